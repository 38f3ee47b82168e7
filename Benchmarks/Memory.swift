import Foundation
import Reactive
import SharedState

/// Bytes of memory the process has resident, from its own counters (`/proc/self/statm` on Linux).
func residentBytes() -> Int {
  #if os(Linux)
    guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = statm.split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
  #else
    var usage = rusage()
    getrusage(RUSAGE_SELF, &usage)
    return Int(usage.ru_maxrss)
  #endif
}

/// What the memory probe can measure.
enum MemoryProbe: String {
  case keys
  case subscribers

  /// Makes `count` items in this (fresh) process and returns the resident bytes each one added.
  func bytesPerItem(count: Int) -> Double {
    let before = residentBytes()
    switch self {
    case .keys:
      let names = (0..<count).map { "key-\($0)" }
      let start = residentBytes()
      for name in names { blackHole(Shared(wrappedValue: 0, InMemoryKey<Int>(name))) }
      return Double(residentBytes() - start) / Double(count)
    case .subscribers:
      let box = ReactiveBox(0)
      var iterators: [ReactiveBox<Int>.Values.Iterator] = []
      iterators.reserveCapacity(count)
      let start = residentBytes()
      for _ in 0..<count { iterators.append(box.values(buffering: .latest).makeAsyncIterator()) }
      let bytes = Double(residentBytes() - start) / Double(count)
      withExtendedLifetime(iterators) {}
      _ = before
      return bytes
    }
  }
}

/// Runs the memory probe in a fresh copy of this program, where no memory freed by earlier scenarios can be reused
/// and hide what the items cost; returns bytes per item, or 0 if the probe could not run.
func probeMemory(_ probe: MemoryProbe, count: Int) -> Double {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
  process.arguments = ["--memory-probe", probe.rawValue, String(count)]
  let output = Pipe()
  process.standardOutput = output
  do {
    try process.run()
  } catch {
    return 0
  }
  let data = output.fileHandleForReading.readDataToEndOfFile()
  process.waitUntilExit()
  return Double(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
}
