import Observation
import Synchronization
import TestSupport
import Testing

@testable import SharedState

/// Loading from a store that answers later: holders see the default until the load ends, and load calls share it.
extension PersistenceTests {
  @Test func holdersSeeTheDefaultWhileLoadingThenTheLoadedValue() async throws {
    let store = RemoteStore<Int>()
    @Shared(RemoteKey(name: "loaded", store: store)) var value = 0
    @SharedReader(RemoteKey(name: "loaded", store: store)) var reader = -1
    #expect(value == 0)
    #expect(reader == 0)
    #expect($value.isLoading)
    #expect($reader.isLoading)
    var values = $value.values(buffering: .all).makeAsyncIterator()
    #expect(await values.next() == 0)
    let load = try #require(await store.nextLoad())
    load.resume(returning: 7)
    #expect(await values.next() == 7)
    #expect(value == 7)
    #expect(reader == 7)
    #expect(!$value.isLoading)
    #expect(!$reader.isLoading)
    #expect($value.loadError == nil)
    try await $value.save()
    #expect(store.saves.elements.isEmpty)  // The loaded value is what the store holds: nothing is saved back.
    #expect(store.loadCalls.count == 1)
  }

  @Test func aLoadThatFindsNothingKeepsTheDefaultTellsHoldersAndSavesNothing() async throws {
    let store = RemoteStore<Int>()
    @Shared(RemoteKey(name: "empty", store: store)) var value = 3
    let told = Counter()
    let token = $value.observe { _ in told.increment() }
    let load = try #require(await store.nextLoad())
    load.resume(returning: nil)
    #expect(told.count == 1)  // Told that the load ended, though the value did not change.
    #expect(value == 3)
    #expect(!$value.isLoading)
    #expect($value.loadError == nil)
    try await $value.save()
    #expect(store.saves.elements.isEmpty)
    token.cancel()
  }

  @Test func aFailedLoadKeepsTheDefaultExposesTheErrorAndLeavesTheStoreUntilAChange() async throws {
    let store = RemoteStore<Int>()
    @Shared(RemoteKey(name: "failing", store: store)) var value = 3
    let told = Counter()
    let token = $value.observe { _ in told.increment() }
    let load = try #require(await store.nextLoad())
    load.resume(throwing: TestFailure(code: 7))
    #expect(told.count == 1)
    #expect(value == 3)
    #expect(!$value.isLoading)
    #expect($value.loadError as? TestFailure == TestFailure(code: 7))
    try await $value.save()
    #expect(store.saves.elements.isEmpty)  // The store is not touched before the value is changed.
    $value.withLock { $0 = 4 }
    try await $value.save()
    #expect(store.saves.elements == [4])
    #expect($value.loadError == nil)  // A successful save clears it.
    token.cancel()
  }

  @Test func loadReadsTheStoreAgainAndClearsTheLoadError() async throws {
    let store = RemoteStore<Int>()
    @Shared(RemoteKey(name: "reloaded", store: store)) var value = 0
    try #require(await store.nextLoad()).resume(throwing: TestFailure())
    #expect($value.loadError != nil)
    let shared = $value
    let reload = Task { try await shared.load() }
    let next = try #require(await store.nextLoad())
    #expect($value.isLoading)
    next.resume(returning: 4)
    try await reload.value
    #expect(value == 4)
    #expect($value.loadError == nil)
    #expect(!$value.isLoading)
    #expect(store.saves.elements.isEmpty)
  }

  @Test func aFailedReloadThrowsRecordsTheErrorAndKeepsTheValue() async throws {
    let store = RemoteStore<Int>()
    @Shared(RemoteKey(name: "reload-fails", store: store)) var value = 0
    try #require(await store.nextLoad()).resume(returning: 1)
    let shared = $value
    let reload = Task { try await shared.load() }
    try #require(await store.nextLoad()).resume(throwing: TestFailure(code: 2))
    await #expect(throws: TestFailure(code: 2)) { try await reload.value }
    #expect(value == 1)
    #expect($value.loadError as? TestFailure == TestFailure(code: 2))
  }

  @Test func aReloadThatFindsNothingBringsBackTheDefault() async throws {
    let store = RemoteStore<Int>()
    @Shared(RemoteKey(name: "emptied", store: store)) var value = 0
    try #require(await store.nextLoad()).resume(returning: 8)
    let shared = $value
    let reload = Task { try await shared.load() }
    try #require(await store.nextLoad()).resume(returning: nil)
    try await reload.value
    #expect(value == 0)
    try await $value.save()
    #expect(store.saves.elements.isEmpty)  // The default is never saved by a load.
  }

  @Test func aChangeMadeWhileLoadingWinsOverTheLoadedValueAndIsSaved() async throws {
    let store = RemoteStore<Int>()
    @Shared(RemoteKey(name: "write-wins", store: store)) var value = 0
    $value.withLock { $0 = 5 }
    try #require(await store.nextLoad()).resume(returning: 9)
    #expect(value == 5)
    #expect(!$value.isLoading)
    try await $value.save()
    #expect(store.saves.elements == [5])
  }

  @Test func aChangeWaitingToBeSavedWhenAReloadBeginsWinsOverIt() async throws {
    let store = RemoteStore<Int>()
    let clock = ManualClock()
    let key = RemoteKey(name: "pending-wins", store: store, saveSchedule: .debounced(.seconds(1), clock: clock))
    @Shared(key) var value = 0
    try #require(await store.nextLoad()).resume(returning: 1)
    $value.withLock { $0 = 2 }  // Saved a second from now.
    let shared = $value
    let reload = Task { try await shared.load() }
    try #require(await store.nextLoad()).resume(returning: 1)
    try await reload.value
    #expect(value == 2)
    try await $value.save()
    #expect(store.saves.elements == [2])
  }

  @Test func loadCallsDuringALoadShareTheOneThatFollowsIt() async throws {
    let store = RemoteStore<Int>()
    @Shared(RemoteKey(name: "shared-reload", store: store)) var value = 0
    let first = try #require(await store.nextLoad())
    let shared = $value
    let persistence = try #require((shared.rootObject as? SharedRoot<Int>)?.persistence)
    let reloads = [Task { try await shared.load() }, Task { try await shared.load() }]
    await waitUntil { persistence.loadWaiterCount == 2 }
    #expect(store.loadCalls.count == 1)  // They wait for a load that begins after them.
    first.resume(returning: 1)
    let second = try #require(await store.nextLoad())
    #expect(store.loadCalls.count == 2)  // One load for both.
    second.resume(returning: 2)
    for reload in reloads { try await reload.value }
    #expect(value == 2)
    #expect(store.loadCalls.count == 2)
  }

  @Test func aValueFreedWhileLoadingDropsTheLateResult() async throws {
    let store = RemoteStore<Int>()
    let key = RemoteKey(name: "freed", store: store)
    holdBriefly(key)
    #expect(SharedRegistry.current.count == 0)
    let late = try #require(await store.nextLoad())
    late.resume(returning: 9)  // Nobody holds the value: dropped.
    @Shared(key) var again = 0
    #expect(again == 0)
    #expect($again.isLoading)
    #expect(store.loadCalls.count == 2)
  }

  private func holdBriefly(_ key: RemoteKey<Int>) {
    @Shared(key) var value = 0
    withExtendedLifetime($value) {}
  }

  @Test func aSynchronousLoadHasNoLoadingPhase() async {
    let store = SharedKeyTests.DictionaryKey.Store(initial: 3)
    @Shared(SharedKeyTests.DictionaryKey(name: "sync", store: store)) var value = 0
    #expect(!$value.isLoading)
    var values = $value.values.makeAsyncIterator()
    #expect(await values.next() == 3)
  }

  @Test func observationIsToldWhenALoadBeginsAndEnds() async throws {
    let store = RemoteStore<Int>()
    @Shared(RemoteKey(name: "observed", store: store)) var value = 0
    let shared = $value
    let changes = Atomic<Int>(0)
    let wasLoading = withObservationTracking {
      shared.isLoading
    } onChange: {
      changes.add(1, ordering: .relaxed)
    }
    #expect(wasLoading)
    try #require(await store.nextLoad()).resume(returning: nil)  // Same value as before.
    #expect(changes.load(ordering: .relaxed) == 1)

    let isLoading = withObservationTracking {
      shared.isLoading
    } onChange: {
      changes.add(1, ordering: .relaxed)
    }
    #expect(!isLoading)
    let reload = Task { try await shared.load() }
    let next = try #require(await store.nextLoad())
    await waitUntil { changes.load(ordering: .relaxed) == 2 }  // Told that a load began.
    #expect(shared.isLoading)
    next.resume(returning: 1)
    try await reload.value
  }
}
