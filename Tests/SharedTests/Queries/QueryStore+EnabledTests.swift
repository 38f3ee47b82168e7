import Foundation
import Synchronization
import TestSupport
import Testing

@testable import SharedState

/// Waits until the holder shows a success.
private func waitForSuccess(_ shared: Shared<OperationState<String>>) async {
  var values = shared.values.makeAsyncIterator()
  while let state = await values.next(), !state.status.isSuccess {}
}

/// Waits for the fetch under way to end, record and all: `fetchValue()` joins it and returns after it (a success
/// shows a moment earlier, while the record still counts the fetch as running).
private func waitForFetchToEnd(_ shared: Shared<OperationState<String>>) async throws {
  _ = try await shared.fetchValue()
}

/// Automatic fetching turned off (a manual query) and on again: holders, invalidations and triggers leave a disabled
/// query alone, explicit requests still fetch, and turning it on fetches a held query that is missing or stale.
@Suite(.freshRegistry) struct QueryStoreEnabledTests {
  private func query(
    _ api: GatedFetcher,
    clock: ManualClock,
    enabled: Bool,
    staleTime: Duration = .seconds(10)
  ) -> Query<OperationState<String>> {
    .query(
      ["post"],
      options: QueryOptions(
        staleTime: staleTime, gcTime: .seconds(60), enabled: enabled, operation: .retry(.none).clock(clock))
    ) { await api.fetch() }
  }

  @Test func aDisabledQueryFetchesForNeitherHoldersNorInvalidationsNorTriggers() async {
    let clock = ManualClock()
    let api = GatedFetcher()
    let store = SharedRegistry.current.queries
    @Shared(query(api, clock: clock, enabled: false)) var post = OperationState<String>()
    // A fetch that starts shows pending before the holder's initializer returns: none did.
    #expect(post.status == .idle)
    _ = Shared(wrappedValue: OperationState<String>(), query(api, clock: clock, enabled: false))
    store.invalidate(matching: ["post"])
    #expect(store.refetchStale(matching: []) == 0)
    #expect(post.status == .idle)
    #expect(api.fetches.count == 0)
  }

  @Test func anExplicitRefetchOrFetchOfADisabledQueryStillFetches() async throws {
    let clock = ManualClock()
    let api = GatedFetcher()
    let store = SharedRegistry.current.queries
    @Shared(query(api, clock: clock, enabled: false)) var post = OperationState<String>()
    #expect($post.refetch())
    try await waitForFetchToEnd($post)
    #expect(post.value == "fetch 1")
    clock.advance(by: .seconds(11))  // Stale: fetch(_:) fetches again, asked to.
    #expect(try await store.fetch(query(api, clock: clock, enabled: false)) == "fetch 2")
    #expect(store.refetch(["post"]))
    await waitUntil { api.fetches.count == 3 }
    await waitForSuccess($post)
    #expect(post.value == "fetch 3")
  }

  @Test func turningOnFetchesAHeldQueryWithNoValueAtOnce() async throws {
    let clock = ManualClock()
    let api = GatedFetcher()
    let store = SharedRegistry.current.queries
    @Shared(query(api, clock: clock, enabled: false)) var post = OperationState<String>()
    #expect(post.status == .idle)
    var gate = api.hold()
    #expect(store.setEnabled(true, for: ["post"]))
    #expect(post.status == .pending)  // Started before setEnabled returned.
    gate.open()
    try await waitForFetchToEnd($post)
    #expect(post.value == "fetch 1")
    // On now: an invalidation refetches a held query.
    gate = api.hold()
    store.invalidate(matching: ["post"])
    #expect(post.isFetching)
    #expect(post.status == .success)  // A refetch keeps the status.
    gate.open()
    try await waitForFetchToEnd($post)
    #expect(post.value == "fetch 2")
  }

  @Test func turningOnLeavesAFreshValueAndFetchesAStaleOne() async throws {
    let clock = ManualClock()
    let api = GatedFetcher()
    @Shared(query(api, clock: clock, enabled: false)) var post = OperationState<String>()
    $post.refetch()
    try await waitForFetchToEnd($post)
    clock.advance(by: .seconds(5))
    #expect($post.setEnabled(true))
    #expect(!post.isFetching)  // Fresh for 5 more seconds: no fetch.
    #expect($post.setEnabled(false))
    clock.advance(by: .seconds(5))
    let gate = api.hold()
    #expect($post.setEnabled(true))
    #expect(post.isFetching)  // Stale now: fetched at once.
    gate.open()
    try await waitForFetchToEnd($post)
    #expect(post.value == "fetch 2")
    #expect(api.fetches.count == 2)
  }

  @Test func turningOffAnEnabledQueryStopsItsInvalidationsFromFetching() async throws {
    let clock = ManualClock()
    let api = GatedFetcher()
    let store = SharedRegistry.current.queries
    @Shared(query(api, clock: clock, enabled: true)) var post = OperationState<String>()
    try await waitForFetchToEnd($post)
    #expect(store.setEnabled(false, for: ["post"]))
    let gate = api.hold()  // A fetch started by mistake would still be fetching when read.
    store.invalidate(matching: ["post"])
    #expect(!post.isFetching)
    _ = Shared(wrappedValue: OperationState<String>(), query(api, clock: clock, enabled: true))  // Another holder.
    #expect(!post.isFetching)
    #expect(api.fetches.count == 1)
    #expect(store.setEnabled(true, for: ["post"]))  // Invalidated while off: fetched now.
    #expect(post.isFetching)
    gate.open()
    try await waitForFetchToEnd($post)
    #expect(post.value == "fetch 2")
  }

  @Test func settingAQueryTheStoreDoesNotKeepChangesNothing() {
    let store = SharedRegistry.current.queries
    #expect(!store.setEnabled(true, for: ["missing"]))
    let plain = Shared(value: OperationState<String>())
    #expect(!plain.setEnabled(true))
  }
}
