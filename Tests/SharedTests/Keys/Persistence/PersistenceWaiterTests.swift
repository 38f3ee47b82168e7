import Foundation
import SharedState
import TestSupport
import Testing

/// `load()` and `save()` wait for a store, which may never answer: a caller that is cancelled stops waiting.
@Suite(.freshRegistry) struct PersistenceWaiterTests {
  @Test func aCancelledLoadCallThrowsCancellationWhileTheStoreNeverAnswers() async throws {
    let store = RemoteStore<Int>()
    @Shared(RemoteKey(name: "slow", store: store)) var value = 0
    try #require(await store.nextLoad()).resume(returning: 1)

    let reload = Task { [$value] in try await $value.load() }
    let pending = try #require(await store.nextLoad())  // kept, never resumed: a hung request
    reload.cancel()
    let result = await reload.result
    #expect(throws: CancellationError.self) { try result.get() }
    #expect(value == 1)
    withExtendedLifetime(pending) {}
  }

  /// Cancelling one caller leaves the load, and every other caller, alone.
  @Test func anotherCallerStillGetsTheLoadAfterOneIsCancelled() async throws {
    let store = RemoteStore<Int>()
    @Shared(RemoteKey(name: "shared-load", store: store)) var value = 0
    try #require(await store.nextLoad()).resume(returning: 1)

    let cancelled = Task { [$value] in try await $value.load() }
    let pending = try #require(await store.nextLoad())
    let other = Task { [$value] in try await $value.load() }
    cancelled.cancel()
    await #expect(throws: CancellationError.self) { try await cancelled.value }
    pending.resume(returning: 2)
    // The other caller waits for a load that began after it called: the one after the cancelled caller's.
    if let next = await store.nextLoad() { next.resume(returning: 3) }
    try await other.value
    #expect(value == 3)
  }

  /// A caller cancelled before it calls does not wait at all.
  @Test func aCallerCancelledBeforeItCallsDoesNotWait() async throws {
    let store = RemoteStore<Int>()
    @Shared(RemoteKey(name: "pre-cancelled", store: store)) var value = 0
    try #require(await store.nextLoad()).resume(returning: 1)
    let gate = Gate()
    let reload = Task { [$value] in
      await gate.wait()
      try await $value.load()
    }
    reload.cancel()
    gate.open()
    await #expect(throws: CancellationError.self) { try await reload.value }
    #expect(store.loadCalls.count == 1)  // only the first holder's load: the cancelled caller asked for none
  }
}

/// A key whose saves wait until the test lets them go.
private struct HangingSaveKey: SharedKey {
  typealias Value = Int
  let gate: Gate
  let saves: Counter
  var id: String { "hanging-save" }

  func save(_ value: Int, context: SharedKeyContext<Int>) async throws {
    _ = saves.increment()
    await gate.wait()
  }
}

extension PersistenceWaiterTests {
  /// The save goes on for everyone else.
  @Test func aCancelledSaveCallThrowsCancellationWhileTheStoreHangs() async throws {
    let gate = Gate()
    let saves = Counter()
    @Shared(HangingSaveKey(gate: gate, saves: saves)) var value = 0
    $value.withLock { $0 = 1 }
    await waitUntil { saves.count == 1 }  // the save runs and hangs
    let saving = Task { [$value] in try await $value.save() }
    saving.cancel()
    await #expect(throws: CancellationError.self) { try await saving.value }
    gate.open()
    try await $value.save()  // the save went on, and a later caller waits for it as usual
    #expect(saves.count == 1)
  }
}
