import Foundation

/// Bytes of memory the process has resident, from its own counters (`/proc/self/statm` on Linux).
func residentBytes() -> Int {
  #if os(Linux)
    guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = statm.split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
  #else
    return 0
  #endif
}
