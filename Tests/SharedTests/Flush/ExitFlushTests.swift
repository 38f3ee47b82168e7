import Foundation
import SharedState
import TestSupport
import Testing

/// The exit probe, built next to this test bundle.
func exitProbeExecutable() -> URL? {
  let bundle = URL(fileURLWithPath: Bundle.main.executablePath ?? CommandLine.arguments[0])
  let candidate = bundle.deletingLastPathComponent().appendingPathComponent("ExitProbe")
  return FileManager.default.isExecutableFile(atPath: candidate.path) ? candidate : nil
}

/// How a probe ended.
private struct Ending: Equatable, CustomStringConvertible {
  var reason: Process.TerminationReason
  var status: Int32
  var description: String { "\(reason == .exit ? "exit status" : "signal") \(status)" }
}

/// Runs the probe in `mode` to its end, without holding a thread of the shared pool.
private func runProbe(_ mode: String, path: String, value: Int) async throws -> Ending {
  let executable = try #require(exitProbeExecutable(), "the ExitProbe helper is built with the tests")
  let process = Process()
  process.executableURL = executable
  process.arguments = [mode, path, String(value)]
  process.standardOutput = FileHandle.nullDevice
  return try await withCheckedThrowingContinuation { continuation in
    process.terminationHandler = {
      continuation.resume(returning: Ending(reason: $0.terminationReason, status: $0.terminationStatus))
    }
    do {
      try process.run()
    } catch {
      process.terminationHandler = nil
      continuation.resume(throwing: error)
    }
  }
}

/// A probe that runs until it is ended from outside: started, then ready once it printed "ready".
private struct WaitingProbe {
  let process: Process
  private let output = Pipe()
  private let ended: Task<Ending, Never>

  init(_ mode: String, path: String, value: Int) throws {
    let executable = try #require(exitProbeExecutable(), "the ExitProbe helper is built with the tests")
    let process = Process()
    process.executableURL = executable
    process.arguments = [mode, path, String(value)]
    process.standardOutput = output
    try process.run()
    self.process = process
    // Waiting for the process blocks a thread: one of its own, never one of the cooperative pool.
    ended = Task {
      await onThreadOfItsOwn {
        process.waitUntilExit()
        return Ending(reason: process.terminationReason, status: process.terminationStatus)
      }
    }
  }

  /// Waits until the probe printed "ready" (its change is made); `false` if it ended without saying so.
  func ready() async -> Bool {
    let output = output.fileHandleForReading
    let line = await onThreadOfItsOwn { () -> String in
      var bytes = Data()
      while !bytes.contains(UInt8(ascii: "\n")) {
        let more = output.availableData
        if more.isEmpty { break }
        bytes.append(more)
      }
      return String(decoding: bytes, as: UTF8.self)
    }
    return line == "ready\n"
  }

  /// Sends `signal` and waits for the process to end.
  func end(with signal: Int32) async -> Ending {
    kill(process.processIdentifier, signal)
    return await ended.value
  }

  /// Waits for the process to end; if it still runs after `limit` (it ignored a signal), ends it with SIGKILL,
  /// which its ending then shows.
  func ended(killingAfter limit: Duration) async -> Ending {
    let identifier = process.processIdentifier
    // A deadlock guard, not a measure: a process that heard the signal ends long before it.
    let guardTask = Task {
      try? await Task.sleep(for: limit)
      if !Task.isCancelled { kill(identifier, SIGKILL) }
    }
    defer { guardTask.cancel() }
    return await ended.value
  }
}

private func storedValue(at url: URL) throws -> Int {
  try JSONDecoder().decode(Int.self, from: Data(contentsOf: url))
}

/// The values a next launch restores from the persisted query cache at `url`, by query, and the restore's problem.
private func restoredQueries(from url: URL) async throws -> (values: [QueryKey: String], problem: QueryCacheProblem?) {
  let store = SharedRegistry().queries
  let restore = await store.persistCache(QueryCachePersistence(persister: .file(url)))
  var values: [QueryKey: String] = [:]
  for entry in store.dehydrate().entries { values[entry.key] = try entry.decodedValue(as: String.self) }
  return (values, restore.problem)
}

/// The feed ["feed"] a next launch shows at once from the persisted query cache at `url`, and how many pages it
/// fetched meanwhile.
private func restoredFeed(
  from url: URL
) async -> (pageIDs: [Int], pages: [[String]], hasNextPage: Bool, fetches: Int, problem: QueryCacheProblem?) {
  let registry = SharedRegistry()
  return await SharedRegistry.$current.withValue(registry) {
    let store = registry.queries
    // The expectations stay out of this closure, which makes a holder (see the test-scoping trait).
    let restore = await store.persistCache(QueryCachePersistence(persister: .file(url)))
    let fetches = Counter()
    let nextPage: @Sendable ([String], Int) -> Int? = { _, id in id + 1 }
    let query: Query<PaginatedState<Int, [String]>> = .paginatedQuery(
      ["feed"], initialPage: 0, nextPage: nextPage, options: QueryOptions(staleTime: .seconds(3_600))
    ) { id in
      fetches.increment()
      return ["fetched \(id)"]
    }
    let feed = Shared(wrappedValue: PaginatedState<Int, [String]>(), query)
    let shown = feed.wrappedValue
    return (shown.pageIDs, shown.pages, shown.hasNextPage, fetches.count, restore.problem)
  }
}

/// A program that changes a file's value and ends before the save delay (an hour in the probe) has passed: the
/// change is written before the process is gone. Each probe is a real process.
// A probe that never ends would leave its test waiting: the time limit turns that into a failure.
@Suite(.timeLimit(.minutes(20))) struct ExitFlushTests {
  @Test func aProgramThatReturnsWithinTheSaveDelayLeavesTheFile() async throws {
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let url = folder.file("counter.json")
    let ending = try await runProbe("return", path: url.path, value: 42)
    #expect(ending == Ending(reason: .exit, status: 0))
    #expect(try storedValue(at: url) == 42)
  }

  /// The exit's flush writes on the exiting thread and waits for nothing on the cooperative pool, whose every
  /// thread the probe keeps busy for good.
  @Test func anExitWhileEveryPoolThreadIsBusyStillWritesTheFile() async throws {
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let url = folder.file("counter.json")
    let ending = try await runProbe("busy", path: url.path, value: 7)
    #expect(ending == Ending(reason: .exit, status: 0))
    #expect(try storedValue(at: url) == 7)
  }

  /// A program that lets the library handle SIGTERM writes what waits, then exits with 128 + 15, as the signal
  /// itself would have ended it.
  @Test func sigtermWithTheHandlerWritesTheFileAndExitsWith143() async throws {
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let url = folder.file("counter.json")
    let probe = try WaitingProbe("term", path: url.path, value: 42)
    #expect(await probe.ready())
    #expect(!FileManager.default.fileExists(atPath: url.path))  // The change waits for its hour-long delay.
    let ending = await probe.end(with: SIGTERM)
    #expect(ending == Ending(reason: .exit, status: 143))
    #expect(try storedValue(at: url) == 42)
  }

  /// When `flushOnTermination()` returns, its handler is in place: a SIGTERM that arrives at once (the probe makes
  /// the call first thing at launch and sends itself the signal as it returns) ends the process with 143, in each
  /// of twenty launches, instead of being ignored.
  @Test func sigtermRightAfterFlushOnTerminationReturnsEndsTheProcessWith143() async throws {
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    for launch in 1...20 {
      let url = folder.file("counter-\(launch).json")
      let probe = try WaitingProbe("launch", path: url.path, value: launch)
      let ending = await probe.ended(killingAfter: .seconds(20))
      #expect(ending == Ending(reason: .exit, status: 143), "launch \(launch)")
    }
  }

  /// A query removed just before a normal exit, its removal waiting for the cache's throttle (an hour in the
  /// probe), is not restored at the next launch: the exit writes a removal as it writes a change.
  @Test func aQueryRemovedJustBeforeANormalExitIsNotRestoredAtTheNextLaunch() async throws {
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let url = folder.file("queries.cache")
    let ending = try await runProbe("cache-remove", path: url.path, value: 42)
    #expect(ending == Ending(reason: .exit, status: 0))
    let restored = try await restoredQueries(from: url)
    #expect(restored.problem == nil)
    #expect(restored.values == [["kept"]: "42"])
  }

  /// A paginated feed whose pages were loaded in one process, and written by its normal exit (the cache's throttle
  /// is an hour in the probe), shows its pages, in order with their identifiers, at once in the next launch.
  @Test func aFeedsPagesWrittenAtANormalExitShowAtTheNextLaunch() async throws {
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let url = folder.file("queries.cache")
    let ending = try await runProbe("cache-pages", path: url.path, value: 3)
    #expect(ending == Ending(reason: .exit, status: 0))
    let restored = await restoredFeed(from: url)
    #expect(restored.problem == nil)
    #expect(restored.pageIDs == [0, 1, 2])
    #expect(restored.pages == [["item 0"], ["item 1"], ["item 2"]])
    #expect(!restored.hasNextPage)
    #expect(restored.fetches == 0)
  }

  /// The same with SIGTERM, when the program let the library handle it: the removal is written before the
  /// process ends with 143.
  @Test func aQueryRemovedBeforeSigtermWithTheHandlerIsNotRestoredAtTheNextLaunch() async throws {
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let url = folder.file("queries.cache")
    let probe = try WaitingProbe("cache-remove-term", path: url.path, value: 42)
    #expect(await probe.ready())
    let ending = await probe.end(with: SIGTERM)
    #expect(ending == Ending(reason: .exit, status: 143))
    let restored = try await restoredQueries(from: url)
    #expect(restored.problem == nil)
    #expect(restored.values == [["kept"]: "42"])
  }

  /// SIGKILL cannot be handled: the change still waiting for its save delay is lost, and the file keeps what an
  /// earlier flush wrote, whole.
  @Test func sigkillLosesOnlyTheChangeWithinTheSaveDelay() async throws {
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let url = folder.file("counter.json")
    let probe = try WaitingProbe("kill", path: url.path, value: 5)
    #expect(await probe.ready())  // It flushed 5, then set 6.
    let ending = await probe.end(with: SIGKILL)
    #expect(ending == Ending(reason: .uncaughtSignal, status: SIGKILL))
    #expect(try storedValue(at: url) == 5)
  }
}
