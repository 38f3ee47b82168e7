import Dispatch
import Foundation
import TestSupport
import Testing

@testable import SharedState

/// A key that records every value it saves, in order.
private struct RecordingKey: SharedKey {
  typealias Value = Int
  let name: String
  let saves: Collector<Int>

  var id: String { name }

  func save(_ value: Int, context: SharedKeyContext<Int>) async throws {
    saves.append(value)
  }
}

/// Runs `action` when freed.
final class DeinitAction: Sendable {
  let action: @Sendable () -> Void

  init(_ action: @escaping @Sendable () -> Void) {
    self.action = action
  }

  deinit { action() }
}

/// A value that may run code when the library lets go of it.
struct Releasing: Sendable {
  var number: Int
  var onRelease: DeinitAction?
}

/// An error that runs code when the library lets go of it.
final class ReleasingError: Error, Sendable {
  let onRelease: DeinitAction

  init(_ action: @escaping @Sendable () -> Void) {
    onRelease = DeinitAction(action)
  }
}

/// A key that hands its context, stored value and errors to the test.
private struct ContextKey: SharedKey {
  typealias Value = Releasing
  let name: String
  let store: Store

  final class Store: Sendable {
    let context = Lock<SharedKeyContext<Releasing>?>(nil)
    let stored = Lock<Releasing?>(nil)
    let loadError = Lock<ReleasingError?>(nil)
    let saveErrors = Lock<[ReleasingError]>([])
    let holder = Lock<Shared<Releasing>?>(nil)
  }

  var id: String { name }

  func load(context: SharedKeyContext<Releasing>, continuation: SharedLoadContinuation<Releasing>) {
    store.context.withLock { $0 = context }
    if let error = store.loadError.withLock({ $0.take() }) { return continuation.resume(throwing: error) }
    continuation.resume(returning: store.stored.withLock { $0 })
  }

  func save(_ value: Releasing, context: SharedKeyContext<Releasing>) async throws {
    if let error = store.saveErrors.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) { throw error }
  }
}

@Suite(.freshRegistry) struct SaveOrderTests {
  /// Writer A's change waits in a slow observer until B's newer change is saved; A's save request comes last.
  @Test func anOlderChangeDelayedByASlowObserverIsNeverSavedAfterANewerOne() async throws {
    let saves = Collector<Int>()
    @Shared(RecordingKey(name: "ordered", saves: saves)) var value = 0
    try await delayFirstWriterBehindASecond($value)
    #expect(saves.elements == [2])
    #expect(value == 2)
    #expect($value.saveError == nil)
  }

  @Test func aFileEndsWithTheNewestValueWhenAnOlderSaveRequestComesLast() async throws {
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let url = folder.file("number.json")
    @Shared(.fileStorage(url, saveDelay: .zero)) var value = 0
    try await delayFirstWriterBehindASecond($value)
    #expect(value == 2)
    #expect(try JSONDecoder().decode(Int.self, from: Data(contentsOf: url)) == 2)
    #expect($value.saveError == nil)
  }

  /// Writes 1 on a thread of its own, whose observer blocks until 2 was written and saved; then waits for both.
  private func delayFirstWriterBehindASecond(_ value: Shared<Int>) async throws {
    let entered = Counter()
    let release = DispatchSemaphore(value: 0)
    let token = value.observe { number in
      guard number == 1 else { return }
      entered.increment()
      _ = release.wait(timeout: .now() + .seconds(30))
    }
    defer { token.cancel() }
    let writerDone = Counter()
    Thread {
      value.withLock { $0 = 1 }
      writerDone.increment()
    }.start()
    await waitUntil { entered.count == 1 }
    value.withLock { $0 = 2 }
    try await value.save()
    release.signal()
    await waitUntil { writerDone.count == 1 }
    try await value.save()
  }
}

/// A read of the store that began before a change of the program never replaces that change, whenever the change's
/// save request arrives.
@Suite(.freshRegistry) struct PollAgainstLocalChangeTests {
  /// A read begins; a change is made whose save request waits in a slow observer; the read's older value comes in.
  @Test func aReadThatBeganBeforeAChangeWhoseRequestIsDelayedIsNotApplied() async throws {
    let store = ContextKey.Store()
    @Shared(ContextKey(name: "poll-vs-change", store: store)) var value = Releasing(number: 0)
    let context = try #require(store.context.withLock { $0 })
    let read = try #require(context.storeReadStarted())
    let entered = Counter()
    // The observer runs on the writer's thread of its own, never on the shared pool.
    let release = DispatchSemaphore(value: 0)
    let token = $value.observe { current in
      guard current.number == 1 else { return }
      entered.increment()
      _ = release.wait(timeout: .now() + .seconds(30))
    }
    defer { token.cancel() }
    let writerDone = Counter()
    let shared = $value
    Thread {
      shared.withLock { $0.number = 1 }
      writerDone.increment()
    }.start()
    await waitUntil { entered.count == 1 }
    let applied = context.update(Releasing(number: 100), readAt: read)
    release.signal()
    await waitUntil { writerDone.count == 1 }
    try await $value.save()
    #expect(!applied)
    #expect(value.number == 1)
  }
}

/// A value that cannot be compared.
struct Opaque: Sendable {
  var number: Int
}

/// A key whose store tells its watchers of every write, this program's own too, before the write call returns.
private struct EchoKey<Value: Sendable>: SharedKey {
  let name: String
  let number: @Sendable (Value) -> Int
  let saves: Collector<Int>
  /// Whether the store reports from a task of its own (a watcher) rather than from inside the save.
  let echoesFromAnotherTask: Bool
  /// Holds the first save's echo until opened.
  var holdFirstEcho: Gate?
  let contexts = Collector<SharedKeyContext<Value>>()

  var id: String { name }

  func load(context: SharedKeyContext<Value>, continuation: SharedLoadContinuation<Value>) {
    contexts.append(context)
    continuation.resume(returning: nil)
  }

  func save(_ value: Value, context: SharedKeyContext<Value>) async throws {
    saves.append(number(value))
    // Bounded, so a store that re-saves forever is reported instead of spinning.
    guard saves.elements.count < 20 else { return }
    if saves.elements.count == 1, let holdFirstEcho { await holdFirstEcho.wait() }
    if echoesFromAnotherTask {
      await Task.detached { context.update(value) }.value
    } else {
      context.update(value)
    }
  }
}

@Suite(.freshRegistry) struct EchoingStoreTests {
  /// The echo comes from another task while the save runs; it equals the value being saved.
  @Test func aStoreThatEchoesEachSaveFromAnotherTaskDuringItIsSavedOnce() async throws {
    let saves = Collector<Int>()
    let key = EchoKey<Int>(name: "echo", number: { $0 }, saves: saves, echoesFromAnotherTask: true)
    @Shared(key) var value = 0
    $value.withLock { $0 = 1 }
    try await $value.save()
    let context = try #require(key.contexts.elements.first)
    await waitUntil { context.persistence?.isIdle ?? true }
    #expect(saves.elements == [1])
    #expect(value == 1)
    #expect($value.saveError == nil)
  }

  /// The program changes the value while a save runs; that save's echo comes later and must not undo the change.
  @Test(arguments: [false, true])
  func anEchoOfARunningSaveNeverReplacesANewerChange(fromAnotherTask: Bool) async throws {
    let saves = Collector<Int>()
    let hold = Gate()
    var key = EchoKey<Int>(name: "echo-late", number: { $0 }, saves: saves, echoesFromAnotherTask: fromAnotherTask)
    key.holdFirstEcho = hold
    try await changeDuringTheFirstSave(key: key, hold: hold)
    #expect(saves.elements == [1, 2])
  }

  private func changeDuringTheFirstSave(key: EchoKey<Int>, hold: Gate) async throws {
    @Shared(key) var value = 0
    $value.withLock { $0 = 1 }
    await waitUntil { key.saves.elements.count == 1 }
    $value.withLock { $0 = 2 }
    hold.open()
    try await $value.save()
    #expect(value == 2)
    let context = try #require(key.contexts.elements.first)
    await waitUntil { context.persistence?.isIdle ?? true }
    #expect(value == 2)
  }

  /// The echo is reported from inside the save, of a value that cannot be compared.
  @Test func aStoreThatEchoesEachSaveFromInsideItIsSavedOnce() async throws {
    let saves = Collector<Int>()
    let key = EchoKey<Opaque>(name: "echo-opaque", number: \.number, saves: saves, echoesFromAnotherTask: false)
    @Shared(key) var value = Opaque(number: 0)
    $value.withLock { $0.number = 1 }
    try await $value.save()
    let context = try #require(key.contexts.elements.first)
    await waitUntil { context.persistence?.isIdle ?? true }
    #expect(saves.elements == [1])
    #expect(value.number == 1)
  }
}

/// A key whose first save waits at a gate and succeeds, and whose later saves fail at once.
private struct FirstSucceedsKey: SharedKey {
  typealias Value = Int
  let name: String
  let gate: Gate
  let saves: Collector<Int>
  let contexts = Collector<SharedKeyContext<Int>>()

  var id: String { name }

  func load(context: SharedKeyContext<Int>, continuation: SharedLoadContinuation<Int>) {
    contexts.append(context)
    continuation.resume(returning: nil)
  }

  func save(_ value: Int, context: SharedKeyContext<Int>) async throws {
    saves.append(value)
    if saves.elements.count == 1 {
      await gate.wait()
      return
    }
    throw TestFailure()
  }
}

@Suite(.freshRegistry) struct SaveResultTests {
  /// `save()` for change 1 returns when change 1 is saved; change 2's save fails right after. The first `save()`
  /// reports its own result, not the later save's error.
  @Test func aSaveReportsItsOwnResultNotALaterSavesError() async throws {
    let key = FirstSucceedsKey(name: "own-result", gate: Gate(), saves: Collector())
    @Shared(key) var value = 0
    $value.withLock { $0 = 1 }
    await waitUntil { key.saves.elements.count == 1 }
    let context = try #require(key.contexts.elements.first)
    let shared = $value
    let first = Task { try await shared.save() }
    await waitUntil { context.persistence?.flushWaiterCount == 1 }
    $value.withLock { $0 = 2 }
    key.gate.open()
    let result = await first.result
    if case .failure(let error) = result { Issue.record("the save of change 1 threw \(error)") }
    await waitUntil { context.persistence?.isIdle ?? true }
    #expect($value.saveError != nil)
  }

  /// A failed change that the store's own value then replaced leaves nothing failed behind.
  @Test func aFailedChangeReplacedByTheStoresValueClearsTheSaveError() async throws {
    let store = ContextKey.Store()
    store.saveErrors.withLock { $0 = [ReleasingError {}] }
    @Shared(ContextKey(name: "failed-then-replaced", store: store)) var value = Releasing(number: 0)
    $value.withLock { $0.number = 1 }
    await #expect(throws: ReleasingError.self) { try await $value.save() }
    let context = try #require(store.context.withLock { $0 })
    context.update(Releasing(number: 5))
    #expect(value.number == 5)
    #expect($value.saveError == nil)
  }
}

@Suite(.freshRegistry) struct StoreResetTests {
  @Test func aStoreThatLosesItsValueBringsHoldersBackToTheDefault() throws {
    let store = ContextKey.Store()
    store.stored.withLock { $0 = Releasing(number: 8) }
    @Shared(ContextKey(name: "reset", store: store)) var value = Releasing(number: 3)
    #expect(value.number == 8)
    let context = try #require(store.context.withLock { $0 })
    context.resetToDefault()
    #expect(value.number == 3)
  }
}

/// The library replaces a user's value or error and releases the old one after its locks: a `deinit` that reads the
/// same shared value would otherwise stop the program with "Recursive call to lock Mutex".
@Suite(.freshRegistry) struct PersistenceReleaseTests {
  @Test func aValueReplacedThroughTheContextIsReleasedAfterTheLock() throws {
    let store = ContextKey.Store()
    @Shared(ContextKey(name: "update", store: store)) var value = Releasing(number: 0)
    let context = try #require(store.context.withLock { $0 })
    let reads = Counter()
    context.update(
      Releasing(number: 1, onRelease: DeinitAction { if context.currentValue != nil { reads.increment() } }))
    context.update(Releasing(number: 2))
    #expect(reads.count == 1)
    #expect(value.number == 2)
  }

  @Test func theDefaultReplacedOnLoadIsReleasedAfterTheLock() throws {
    let store = ContextKey.Store()
    store.stored.withLock { $0 = Releasing(number: 5) }
    let reads = Counter()
    try loadOverADefaultThatReads(store: store, reads: reads)
    #expect(reads.count == 1)
  }

  private func loadOverADefaultThatReads(store: ContextKey.Store, reads: Counter) throws {
    let onRelease = DeinitAction {
      _ = store.context.withLock({ $0 })?.currentValue
      reads.increment()
    }
    var defaultValue: Releasing? = Releasing(number: 0, onRelease: onRelease)
    let shared = Shared(wrappedValue: defaultValue.take()!, ContextKey(name: "load", store: store))
    #expect(shared.wrappedValue.number == 5)
    store.holder.withLock { $0 = shared }
    // The default is kept for a store that loses its value; it goes with the value at the latest.
    store.holder.withLock { $0 = nil }
  }

  @Test func aReplacedLoadErrorIsReleasedAfterTheLock() throws {
    let store = ContextKey.Store()
    let reads = Counter()
    store.loadError.withLock {
      $0 = ReleasingError {
        _ = store.holder.withLock { $0 }?.loadError
        reads.increment()
      }
    }
    @Shared(ContextKey(name: "load-error", store: store)) var value = Releasing(number: 0)
    store.holder.withLock { $0 = $value }
    defer { store.holder.withLock { $0 = nil } }
    #expect($value.loadError != nil)
    let context = try #require(store.context.withLock { $0 })
    context.reportLoadError(nil)
    #expect(reads.count == 1)
    #expect($value.loadError == nil)
  }

  @Test func aReplacedSaveErrorIsReleasedAfterTheLock() async throws {
    let store = ContextKey.Store()
    let reads = Counter()
    store.saveErrors.withLock {
      $0 = [
        ReleasingError {
          _ = store.holder.withLock { $0 }?.saveError
          reads.increment()
        }
      ]
    }
    @Shared(ContextKey(name: "save-error", store: store)) var value = Releasing(number: 0)
    store.holder.withLock { $0 = $value }
    defer { store.holder.withLock { $0 = nil } }
    $value.withLock { $0.number = 1 }
    await #expect(throws: ReleasingError.self) { try await $value.save() }
    $value.withLock { $0.number = 2 }
    try await $value.save()
    #expect(reads.count == 1)
    #expect($value.saveError == nil)
  }
}
