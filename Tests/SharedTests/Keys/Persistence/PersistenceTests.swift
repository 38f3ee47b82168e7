import Foundation
import Synchronization
import TestSupport
import Testing

@testable import SharedState

@Suite(.freshRegistry) struct PersistenceTests {
  @Test func aPendingSaveKeepsTheValueAliveForTheNextHolder() async throws {
    let store = GatedKey.Store()
    let clock = ManualClock()
    let key = GatedKey(name: "kept", store: store, delay: .seconds(1), clock: clock)
    let registry = SharedRegistry.current
    do {
      @Shared(key) var value = 0
      $value.withLock { $0 = 9 }
    }
    #expect(registry.count == 1)
    @Shared(key) var again = 0
    #expect(again == 9)
    try await $again.save()
    #expect(store.saved.elements == [9])
  }

  @Test func laterSavesWaitTheDelayToo() async {
    let store = GatedKey.Store()
    let firstSave = Gate()
    store.gates.withLock { $0 = [firstSave] }
    let clock = ManualClock()
    @Shared(GatedKey(name: "paced", store: store, delay: .seconds(10), clock: clock)) var value = 0
    $value.withLock { $0 = 1 }
    await clock.waitForSleepers(1)
    clock.advance(by: .seconds(10))
    await waitUntil { store.started.elements == [1] }
    $value.withLock { $0 = 2 }  // Made while the first save runs.
    firstSave.open()
    await clock.waitForSleepers(1)  // The drain waits the delay again before saving 2.
    #expect(store.saved.elements == [1])
    clock.advance(by: .seconds(10))
    await waitUntil { store.saved.elements == [1, 2] }
  }

  /// The schedule saves on a fixed rhythm, as a throttle does: a change made during the wait is saved when the wait
  /// that was already running ends, not a whole delay after it (as a debounce would).
  @Test func aChangeDuringTheDelayDoesNotPutTheSaveOff() async {
    let store = GatedKey.Store()
    let clock = ManualClock()
    @Shared(GatedKey(name: "rhythm", store: store, delay: .seconds(1), clock: clock)) var value = 0
    $value.withLock { $0 = 1 }
    await clock.waitForSleepers(1)
    clock.advance(by: .milliseconds(600))
    $value.withLock { $0 = 2 }  // A debounce would now wait until 1.6 s.
    clock.advance(by: .milliseconds(399))
    #expect(store.started.elements.isEmpty)
    clock.advance(by: .milliseconds(1))  // 1 s after the first change: both are saved, in one save.
    await waitUntil { store.saved.elements == [2] }
    #expect(clock.sleeperCount == 0)
  }

  @Test func saveIsNotKeptWaitingByLaterChanges() async throws {
    let store = GatedKey.Store()
    let firstSave = Gate()
    let secondSave = Gate()
    store.gates.withLock { $0 = [firstSave, secondSave] }
    let clock = ManualClock()
    @Shared(GatedKey(name: "flushed", store: store, delay: .zero, clock: clock)) var value = 0
    $value.withLock { $0 = 1 }
    await waitUntil { store.started.elements == [1] }
    let handle = $value
    let flush = Task { try await handle.save() }
    let persistence = (handle.rootObject as? SharedRoot<Int>)?.persistence
    await waitUntil { persistence?.flushWaiterCount == 1 }
    $value.withLock { $0 = 2 }  // After save() was called: it need not wait for this one.
    firstSave.open()
    try await flush.value
    #expect(store.saved.elements.first == 1)
    secondSave.open()
  }

  @Test func aStoreUpdateDuringASaveEndsWithMemoryAndStoreAgreeing() async throws {
    let store = GatedKey.Store()
    let firstSave = Gate()
    store.gates.withLock { $0 = [firstSave] }
    let clock = ManualClock()
    @Shared(GatedKey(name: "converge", store: store, delay: .zero, clock: clock)) var value = 0
    $value.withLock { $0 = 1 }
    await waitUntil { store.started.elements == [1] }
    store.stored.withLock { $0 = 50 }
    store.context.withLock { $0 }?.update(50)
    firstSave.open()
    try await $value.save()
    #expect(value == 50)
    #expect(store.stored.withLock { $0 } == 50)
  }

  @Test func aSuccessfulSaveClearsTheLoadError() async throws {
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let url = folder.file("settings.json")
    try Data("{ broken".utf8).write(to: url)
    @Shared(.fileStorage(url)) var settings = Settings()
    #expect($settings.loadError != nil)
    $settings.withLock { $0.volume = 1 }
    try await $settings.save()
    #expect($settings.loadError == nil)
  }

  @Test func twoRegistriesOnOneFileSeeEachOthersWrites() async throws {
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let url = folder.file("settings.json")
    let clock = ManualClock()
    let first = SharedRegistry()
    let second = SharedRegistry()
    let writer = SharedRegistry.$current.withValue(first) {
      Shared(wrappedValue: Settings(), .fileStorage(url, pollInterval: .seconds(1), clock: clock))
    }
    let reader = SharedRegistry.$current.withValue(second) {
      Shared(wrappedValue: Settings(), .fileStorage(url, pollInterval: .seconds(1), clock: clock))
    }
    var readerValues = reader.values.makeAsyncIterator()
    #expect(await readerValues.next()?.volume == 5)
    writer.withLock { $0.volume = 8 }
    try await writer.save()
    await clock.waitForSleepers(2)  // Both values poll.
    clock.advance(by: .seconds(1))
    #expect(await readerValues.next()?.volume == 8)
  }
}
