import Foundation
import TestSupport
import Testing

@testable import SharedState

/// A key whose saves are recorded, and wait at `gate` when one is given.
private struct RecordingKey: SharedKey, CustomStringConvertible {
  typealias Value = Int
  let name: String
  let saves = Collector<Int>()
  var gate: Gate?
  var failure: TestFailure?

  var id: String { name }
  var description: String { "recording(\(name))" }

  func load(context: SharedKeyContext<Int>, continuation: SharedLoadContinuation<Int>) {
    continuation.resume(returning: nil)
  }

  func save(_ value: Int, context: SharedKeyContext<Int>) async throws {
    saves.append(value)
    await gate?.wait()
    if let failure { throw failure }
  }

  /// Waits an hour, on a clock the tests never move: every save these tests see is made by a flush.
  var saveSchedule: SharedSaveSchedule { .debounced(.seconds(3_600), clock: ManualClock()) }
}

/// A stand-in for a persisted query cache or a queue of mutations: keeps writes of its own, and joins its registry's
/// flushes.
private final class CachePersister: FlushParticipant {
  let flushes = Counter()
  let exitFlushes = Counter()
  var flushDescription: String { "cache" }
  func flush() async throws { flushes.increment() }
  func flushBeforeExit() throws { exitFlushes.increment() }
}

private func stored(_ url: URL) throws -> Settings {
  try JSONDecoder().decode(Settings.self, from: Data(contentsOf: url))
}

/// Makes a value of `key`, changes it to `volume` and lets its holder go, with the save still waiting.
private func changeAndLetGo(_ key: FileStorageKey<Settings>, volume: Int) {
  let settings = Shared(wrappedValue: Settings(), key)
  settings.withLock { $0.volume = volume }
}

@Suite(.freshRegistry) struct SharedRegistryFlushTests {
  @Test func aFlushWritesEveryPendingSaveOfTheRegistry() async throws {
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let clock = ManualClock()  // Never moved: the saves wait for their delay until the flush.
    let first = Shared(
      wrappedValue: Settings(), .fileStorage(folder.file("first.json"), saveDelay: .seconds(60), clock: clock))
    let second = Shared(
      wrappedValue: Settings(), .fileStorage(folder.file("second.json"), saveDelay: .seconds(60), clock: clock))
    let key = RecordingKey(name: "own-store")
    let own = Shared(wrappedValue: 0, key)
    first.withLock { $0.volume = 1 }
    second.withLock { $0.theme = "dark" }
    own.withLock { $0 = 3 }
    #expect(!FileManager.default.fileExists(atPath: folder.file("first.json").path))
    try await SharedRegistry.current.flush()
    #expect(try stored(folder.file("first.json")).volume == 1)
    #expect(try stored(folder.file("second.json")).theme == "dark")
    #expect(key.saves.elements == [3])
  }

  @Test func aFlushWritesAValueWhoseHoldersAreGone() async throws {
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let url = folder.file("settings.json")
    changeAndLetGo(.fileStorage(url, saveDelay: .seconds(60), clock: ManualClock()), volume: 8)
    try await SharedRegistry.current.flush()
    #expect(try stored(url).volume == 8)
  }

  @Test func aFlushReportsEachFailedSaveAndWritesTheOthers() async throws {
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let good = folder.file("good.json")
    let web = try #require(URL(string: "https://example.com/settings.json"))
    let clock = ManualClock()
    let unsaved = Shared(wrappedValue: Settings(), .fileStorage(web, saveDelay: .seconds(60), clock: clock))
    let saved = Shared(wrappedValue: Settings(), .fileStorage(good, saveDelay: .seconds(60), clock: clock))
    var failing = RecordingKey(name: "failing")
    failing.failure = TestFailure(code: 7)
    let own = Shared(wrappedValue: 0, failing)
    unsaved.withLock { $0.volume = 1 }
    saved.withLock { $0.volume = 2 }
    own.withLock { $0 = 3 }
    let error = try await #require(throws: SharedFlushError.self) { try await SharedRegistry.current.flush() }
    // In the order the values were made, each named by its key.
    #expect(error.failures.map(\.key) == [".fileStorage(https://example.com/settings.json)", "recording(failing)"])
    #expect(error.failures.first?.error as? FileStorageError == .notAFileURL(url: web))
    #expect(error.failures.last?.error as? TestFailure == TestFailure(code: 7))
    #expect(try stored(good).volume == 2)
    #expect(unsaved.saveError != nil)
    #expect(error.description.hasPrefix("2 pending saves failed: .fileStorage(https://example.com/settings.json): "))
  }

  @Test func aFlushWithNothingPendingReturnsWithoutSaving() async throws {
    try await SharedRegistry.current.flush()  // No value at all.
    let key = RecordingKey(name: "saved-already")
    let value = Shared(wrappedValue: 0, key)
    try await SharedRegistry.current.flush()  // A value with no change.
    value.withLock { $0 = 1 }
    try await value.save()
    try await SharedRegistry.current.flush()  // A value whose change is saved.
    #expect(key.saves.elements == [1])
  }

  /// A flush that comes while a save is under way waits for that save (and saves nothing twice).
  @Test func aFlushDuringASaveUnderWayWaitsForIt() async throws {
    var key = RecordingKey(name: "in-flight")
    let gate = Gate()
    key.gate = gate
    let value = Shared(wrappedValue: 0, key)
    value.withLock { $0 = 1 }
    let save = Task { try await value.save() }
    await waitUntil { key.saves.elements == [1] }  // The save runs, held at the gate.
    let registry = SharedRegistry.current
    let finished = Counter()
    let flush = Task {
      try await registry.flush()
      finished.increment()
    }
    let persistence = try #require(registry.flushParticipants.current.first as? Persistence<Int>)
    await waitUntil { persistence.flushWaiterCount == 2 }  // The save() and the flush wait for the same save.
    #expect(finished.count == 0)
    gate.open()
    try await flush.value
    try await save.value
    #expect(finished.count == 1)
    #expect(key.saves.elements == [1])
  }

  /// Something that is not a value (a persisted cache, a queue of mutations) joins the registry's flushes, and
  /// leaves them when it is freed.
  @Test func aParticipantThatJoinedIsFlushedUntilItIsFreed() async throws {
    let registry = SharedRegistry.current
    let (flushes, exitFlushes) = try await joinAndFlush(registry)
    #expect(flushes == 1)
    #expect(exitFlushes == 1)
    #expect(registry.flushParticipants.current.isEmpty)
  }

  /// Joins a new participant to `registry`, flushes it both ways, and lets it go; returns how often each ran.
  private func joinAndFlush(_ registry: SharedRegistry) async throws -> (flushes: Int, exitFlushes: Int) {
    let cachePersister = CachePersister()
    registry.flushParticipants.join(cachePersister)
    try await registry.flush()
    for participant in registry.flushParticipants.current { try participant.flushBeforeExit() }
    return (cachePersister.flushes.count, cachePersister.exitFlushes.count)
  }

  /// Each registry flushes its own values: another registry's (another test's) waiting saves are not written.
  @Test func aFlushLeavesTheValuesOfOtherRegistries() async throws {
    let key = RecordingKey(name: "elsewhere")
    let other = inOtherRegistry { Shared(wrappedValue: 0, key) }
    other.withLock { $0 = 1 }
    try await SharedRegistry.current.flush()
    #expect(key.saves.elements.isEmpty)
  }

  @Test func aCancelledFlushThrowsCancellationAndTheSaveGoesOn() async throws {
    var key = RecordingKey(name: "cancelled")
    let gate = Gate()
    key.gate = gate
    let value = Shared(wrappedValue: 0, key)
    value.withLock { $0 = 1 }
    let registry = SharedRegistry.current
    let flush = Task { try await registry.flush() }
    await waitUntil { key.saves.elements == [1] }
    flush.cancel()
    await #expect(throws: CancellationError.self) { try await flush.value }
    gate.open()
    try await value.save()
    #expect(value.saveError == nil)
  }

  // MARK: The flush before exit

  /// What the `atexit` handler does for each value, here for this registry's only: the newest change is written
  /// on the calling thread, once however often it is asked, and the value's own save of it later writes nothing.
  @Test func theFlushBeforeExitWritesTheNewestChangeOnceOnTheCallingThread() async throws {
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let url = folder.file("settings.json")
    let settings = Shared(wrappedValue: Settings(), .fileStorage(url, saveDelay: .seconds(60), clock: ManualClock()))
    let store = FileStore.forFile(at: url.standardizedFileURL)
    settings.withLock { $0.volume = 1 }
    settings.withLock { $0.volume = 2 }
    let own = RecordingKey(name: "async-only")
    Shared(wrappedValue: 0, own).withLock { $0 = 1 }
    let participants = SharedRegistry.current.flushParticipants.current
    #expect(participants.count == 2)
    for _ in 0..<2 {  // A signal's flush, then the exit's.
      for participant in participants { try participant.flushBeforeExit() }
    }
    #expect(try stored(url).volume == 2)
    #expect(store.writeCount == 1)
    #expect(own.saves.elements.isEmpty)  // A save that can only be awaited is left to flush().
    try await settings.save()  // The value's own save of change 2 finds it in the file.
    #expect(store.writeCount == 1)
    #expect(settings.saveError == nil)
  }

  /// The exit's write and a save under way reach the file in either order; the older change never lands last.
  @Test func aSaveUnderWayCannotPutAnOlderChangeOverTheExitsWrite() async throws {
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let url = folder.file("settings.json")
    let store = FileStore.forFile(at: url.standardizedFileURL)
    let owner = DeinitAction {}
    try store.writeNow(JSONEncoder().encode(Settings(volume: 2)), for: owner, sequence: 2)
    try await store.write(JSONEncoder().encode(Settings(volume: 1)), for: owner, sequence: 1)
    try await store.write(JSONEncoder().encode(Settings(volume: 2)), for: owner, sequence: 2)
    #expect(try stored(url).volume == 2)
    #expect(store.writeCount == 1)
    try await store.write(JSONEncoder().encode(Settings(volume: 3)), for: owner, sequence: 3)
    #expect(try stored(url).volume == 3)
    // Another value's changes are numbered on their own: its change 1 is written.
    let other = DeinitAction {}
    try store.writeNow(JSONEncoder().encode(Settings(volume: 9)), for: other, sequence: 1)
    #expect(try stored(url).volume == 9)
  }
}
