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

/// Bytes the allocator has handed out and not taken back (from glibc's `malloc_info` on Linux; resident bytes
/// elsewhere). Unlike resident bytes, it falls when memory is freed, so it shows what is kept after a release.
func allocatedBytes() -> Int {
  #if os(Linux)
    // In use: what the arenas took from the system, less their free chunks, plus the blocks mapped on their own.
    // `malloc_info` is looked up at run time, as Glibc's module does not import `malloc.h`.
    typealias MallocInfo = @convention(c) (Int32, UnsafeMutablePointer<FILE>?) -> Int32
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_info"), let file = tmpfile() else {
      return residentBytes()
    }
    defer { fclose(file) }
    _ = unsafeBitCast(symbol, to: MallocInfo.self)(0, file)
    let length = ftell(file)
    rewind(file)
    var bytes = [UInt8](repeating: 0, count: length)
    _ = fread(&bytes, 1, length, file)
    let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n")
    // The totals follow the last arena's `</heap>`.
    guard let totals = lines.lastIndex(where: { $0.contains("</heap>") }) else { return residentBytes() }
    func size(_ prefix: String) -> Int {
      guard let line = lines[totals...].first(where: { $0.contains(prefix) }),
        let range = line.range(of: "size=\"")
      else { return 0 }
      return Int(line[range.upperBound...].prefix { $0.isNumber }) ?? 0
    }
    return size("<system type=\"current\"") - size("<total type=\"fast\"") - size("<total type=\"rest\"")
      + size("<total type=\"mmap\"")
  #else
    return residentBytes()
  #endif
}

/// What the memory probe can measure.
enum MemoryProbe: String {
  case keys
  case subscribers
  /// Cached queries nobody holds, after the first garbage check found them unused: bytes still allocated each.
  case queries

  /// Makes `count` items in this (fresh) process and returns the resident bytes each one added.
  func bytesPerItem(count: Int) async -> Double {
    let before = residentBytes()
    switch self {
    case .queries:
      return await unheldQueryBytes(count: count)
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

/// Makes `count` queries, each fetched for a holder that then goes; after one garbage check (a quarter of their
/// `gcTime`, on a manual clock) found them unused, returns the bytes still allocated per query.
func unheldQueryBytes(count: Int) async -> Double {
  let clock = ManualClock()
  let options = QueryOptions(staleTime: .seconds(3_600), gcTime: .seconds(3_600), operation: .retry(.none).clock(clock))
  let keys = (0..<count).map { QueryKey(["items", $0]) }
  let registry = SharedRegistry()
  let store = registry.queries
  let start = allocatedBytes()
  await SharedRegistry.$current.withValue(registry) {
    for key in keys {
      let holder = Shared(wrappedValue: OperationState<Int>(), .query(key, options: options) { 1 })
      for await state in holder.values where state.status.isSuccess { break }
    }
  }
  // One garbage check: every query is found unused (and not collected: a whole gcTime has not passed).
  await waitForSleepers(1, on: clock)
  clock.advance(by: .seconds(900))
  await waitForSleepers(1, on: clock)
  let bytes = Double(allocatedBytes() - start) / Double(count)
  precondition(store.count == count, "the probe's queries were collected")
  withExtendedLifetime((keys, registry)) {}
  return bytes
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
  // The run's deadline ends the probe too, should it not end.
  Watchdog.shared.track(child: process.processIdentifier)
  defer { Watchdog.shared.track(child: nil) }
  let data = output.fileHandleForReading.readDataToEndOfFile()
  process.waitUntilExit()
  if process.terminationReason != .exit || process.terminationStatus != 0 {
    // Its own deadline, or a failure it told on standard error: the figure would be a made-up 0.
    Watchdog.shared.fail("the memory probe for \(probe.rawValue) ended with status \(process.terminationStatus)")
  }
  return Double(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
}
