import Foundation
import Synchronization
import TestSupport
import Testing

@testable import SharedState

/// Invalidating an exact key or a prefix, refetching the held queries, all of them or none, narrowing by a
/// predicate; cancelling and removing queries by the same filters.
@Suite(.freshRegistry) struct QueryStoreFiltersTests {
  @Test func anExactKeyReachesThatQueryAndNotTheKeysUnderIt() async {
    let clock = ManualClock()
    let fetcher = KeyedFetcher()
    let store = SharedRegistry.current.queries
    let post = Shared(wrappedValue: OperationState<String>(), fetcher.query(["posts", 1], "post", clock: clock))
    let comments = Shared(
      wrappedValue: OperationState<String>(), fetcher.query(["posts", 1, "comments"], "comments", clock: clock))
    await waitForValue(post, "post 1")
    await waitForValue(comments, "comments 1")
    #expect(store.invalidate(.exactly(["posts", 1])) == 1)
    #expect(post.wrappedValue.isFetching)  // A held query refetches at once.
    #expect(!comments.wrappedValue.isFetching)
    await waitForValue(post, "post 2")
    #expect(fetcher.count("comments") == 1)
    #expect(store.invalidate(.exactly(["posts"])) == 0)  // No query is named ["posts"] itself.
    #expect(store.invalidate(.prefix(["posts"])) == 2)
    await waitForValue(post, "post 3")
    await waitForValue(comments, "comments 2")
  }

  @Test func refetchingAllFetchesQueriesNobodyHoldsNow() async throws {
    let clock = ManualClock()
    let fetcher = KeyedFetcher()
    let store = SharedRegistry.current.queries
    let query = fetcher.query(["feed"], "feed", clock: clock)
    #expect(try await store.fetch(query) == "feed 1")
    #expect(store.invalidate(.prefix(["feed"])) == 1)  // Held only: nothing fetches.
    #expect(store.invalidate(.prefix(["feed"]), refetching: .all) == 1)
    await waitUntil { store.cachedValue(for: ["feed"], as: String.self) == "feed 2" }
    #expect(fetcher.count("feed") == 2)
    #expect(try await store.fetch(query) == "feed 2")  // Fresh again.
  }

  @Test func refetchingNoneMarksHeldQueriesStaleWithoutFetching() async throws {
    let clock = ManualClock()
    let fetcher = KeyedFetcher()
    let store = SharedRegistry.current.queries
    let query = fetcher.query(["feed"], "feed", clock: clock)
    let feed = Shared(wrappedValue: OperationState<String>(), query)
    await waitForValue(feed, "feed 1")
    #expect(store.invalidate(.prefix(["feed"]), refetching: .none) == 1)
    // A fetch started by the invalidation would be fetching before `invalidate` returns.
    #expect(!feed.wrappedValue.isFetching)
    #expect(try await store.fetch(query) == "feed 2")  // Stale: the next caller fetches.
    #expect(fetcher.count("feed") == 2)
  }

  @Test func aPredicateNarrowsTheKeysAndRunsOutsideTheStoresLock() async {
    let clock = ManualClock()
    let fetcher = KeyedFetcher()
    let store = SharedRegistry.current.queries
    let first = Shared(wrappedValue: OperationState<String>(), fetcher.query(["posts", 1], "first", clock: clock))
    let second = Shared(wrappedValue: OperationState<String>(), fetcher.query(["posts", 2], "second", clock: clock))
    let comments = Shared(
      wrappedValue: OperationState<String>(), fetcher.query(["posts", 1, "comments"], "comments", clock: clock))
    await waitForValue(first, "first 1")
    await waitForValue(second, "second 1")
    await waitForValue(comments, "comments 1")
    let asked = Collector<String>()
    let filter = QueryFilter.prefix(["posts"]).satisfying { key in
      // The store's lock is not held: asking the store from here does not deadlock.
      asked.append("\(key)")
      return store.contains(key) && key.parts.count == 2
    }.satisfying { key in key.parts.last as? Int == 1 }
    #expect(store.invalidate(filter) == 1)
    #expect(Set(asked.elements) == ["[\"posts\", 1]", "[\"posts\", 2]", "[\"posts\", 1, \"comments\"]"])
    await waitForValue(first, "first 2")
    #expect(second.wrappedValue.value == "second 1")
    #expect(comments.wrappedValue.value == "comments 1")
    #expect(fetcher.count("second") == 1)
    #expect(fetcher.count("comments") == 1)
    #expect(store.invalidate(.all.satisfying { _ in false }) == 0)
  }

  @Test func aQueryRemovedAndMadeAgainWhileThePredicateRunsIsLeftAlone() async throws {
    let clock = ManualClock()
    let fetcher = KeyedFetcher()
    let store = SharedRegistry.current.queries
    let query = fetcher.query(["feed"], "feed", clock: clock)
    #expect(try await store.fetch(query) == "feed 1")
    let filter = QueryFilter.exactly(["feed"]).satisfying { key in
      store.remove(.exactly(key))
      store.prefetch(query)  // Made again, with a clock of its own.
      return true
    }
    #expect(store.invalidate(filter, refetching: .all) == 0)
    await waitUntil { store.cachedValue(for: ["feed"], as: String.self) == "feed 2" }
    #expect(store.count == 1)
  }

  @Test func cancelStopsTheFetchPutsBackTheStatusAndFailsItsCallers() async throws {
    let clock = ManualClock()
    let fetcher = KeyedFetcher()
    let store = SharedRegistry.current.queries
    let query = fetcher.query(["feed"], "feed", clock: clock)
    let feed = Shared(wrappedValue: OperationState<String>(), query)
    await waitForValue(feed, "feed 1")
    fetcher.hold()
    #expect(store.invalidate(.exactly(["feed"])) == 1)  // Refetches: the holder needs it.
    let caller = Task { try await store.fetch(query) }  // Stale: joins that refetch.
    await waitUntil { fetcher.count("feed") == 2 }
    #expect(feed.wrappedValue.isFetching)
    #expect(store.cancel(.prefix(["feed"])) == 1)
    await #expect(throws: CancellationError.self) { try await caller.value }
    await waitUntil { !feed.wrappedValue.isFetching }
    #expect(feed.wrappedValue.status == .success)
    #expect(feed.wrappedValue.value == "feed 1")  // The value and status from before the fetch.
    #expect(store.cancel(.prefix(["feed"])) == 0)  // Nothing left to cancel.
    fetcher.release()
    #expect(try await store.fetch(query) == "feed 3")  // Still stale: the next caller fetches.
  }

  @Test func cancelWithdrawsQueuedPageFetches() async throws {
    let clock = ManualClock()
    let fetcher = KeyedFetcher()
    let store = SharedRegistry.current.queries
    let nextPage: @Sendable ([String], Int) -> Int? = { _, id in id + 1 }
    let query: Query<PaginatedState<Int, [String]>> = .paginatedQuery(
      ["feed"], initialPage: 0, nextPage: nextPage, options: queryStoreOptions(clock)
    ) { (id: Int) -> [String] in [try await fetcher.fetch("page \(id)")] }
    fetcher.hold()
    let feed = Shared(wrappedValue: PaginatedState<Int, [String]>(), query)
    await waitUntil { fetcher.count("page 0") == 1 }
    let next = try #require(feed.fetchNextPage())
    #expect(store.cancel(.all) == 1)
    await #expect(throws: CancellationError.self) { try await next.value }
    await waitUntil { feed.wrappedValue.status == .idle }
    fetcher.release()
    #expect(fetcher.count("page 1") == 0)  // Withdrawn before its turn.
    #expect(feed.wrappedValue.pages.isEmpty)
  }

  @Test func removeForgetsUnheldQueriesAndReleasesTheirValues() async throws {
    let clock = ManualClock()
    let fetcher = KeyedFetcher()
    let store = SharedRegistry.current.queries
    _ = try await store.fetch(fetcher.query(["users", 1], "one", clock: clock))
    _ = try await store.fetch(fetcher.query(["users", 2], "two", clock: clock))
    _ = try await store.fetch(fetcher.query(["posts"], "posts", clock: clock))
    #expect(store.count == 3)
    #expect(store.remove(.prefix(["users"])) == 2)
    #expect(store.count == 1)
    #expect(!store.contains(["users", 1]))
    #expect(store.cachedValue(for: ["users", 1], as: String.self) == nil)
    #expect(store.contains(["posts"]))
    // Made again from scratch: fetched again.
    #expect(try await store.fetch(fetcher.query(["users", 1], "one", clock: clock)) == "one 2")
  }

  @Test func holdersOfARemovedQueryKeepTheirStateUntilTheQueryIsMadeAgain() async throws {
    let clock = ManualClock()
    let fetcher = KeyedFetcher()
    let store = SharedRegistry.current.queries
    let query = fetcher.query(["feed"], "feed", clock: clock)
    let feed = Shared(wrappedValue: OperationState<String>(), query)
    await waitForValue(feed, "feed 1")
    #expect(store.remove(.exactly(["feed"])) == 1)
    #expect(feed.wrappedValue.value == "feed 1")
    #expect(!feed.refetch())  // Detached from the store.
    #expect(store.invalidate(.all) == 0)
    #expect(try await feed.fetchValue() == nil)
    let second = Shared(wrappedValue: OperationState<String>(), query)  // Made again, and fetched.
    await waitForValue(second, "feed 2")
    #expect(feed.wrappedValue.value == "feed 2")  // One value for every holder of the key.
    #expect(store.count == 1)
  }

  @Test func removeCancelsAFetchUnderWay() async throws {
    let clock = ManualClock()
    let fetcher = KeyedFetcher()
    let store = SharedRegistry.current.queries
    fetcher.hold()
    let caller = Task { try await store.fetch(fetcher.query(["feed"], "feed", clock: clock)) }
    await waitUntil { fetcher.count("feed") == 1 }
    #expect(store.remove(.all) == 1)
    await #expect(throws: CancellationError.self) { try await caller.value }
    #expect(store.count == 0)
  }

  @Test func aFetchOfARemovedQueryThatEndsLateLeavesTheQueryMadeAgainAlone() async throws {
    let clock = ManualClock()
    let store = SharedRegistry.current.queries
    let calls = Counter()
    let gates = [Gate(), Gate(), Gate()]
    // The fetcher does not notice cancellation: the removed query's fetch ends only when its gate opens.
    let query: Query<OperationState<Int>> = .query(["late"], options: queryStoreOptions(clock)) {
      let call = calls.increment()
      await gates[call - 1].wait()
      return call
    }
    let first = Task { try await store.fetch(query) }
    await waitUntil { calls.count == 1 }
    #expect(store.remove(.exactly(["late"])) == 1)
    let second = Task { try await store.fetch(query) }  // Made again: a fetch of its own.
    await waitUntil { calls.count == 2 }
    gates[0].open()  // The removed query's fetch ends while the new one runs.
    _ = try? await first.value
    let third = Task { try await store.fetch(query) }  // Joins the fetch under way, or finds its value fresh.
    gates[1].open()
    gates[2].open()
    #expect(try await second.value == 2)
    #expect(try await third.value == 2)
    #expect(store.cachedValue(for: ["late"], as: Int.self) == 2)
    #expect(calls.count == 2)  // One fetch at a time, and its value kept.
  }

  /// A removed query's fetch that ignores its cancellation still refers to the value it was removed with (a fetch
  /// is handed its value). A query made again on that value, as a new holder shares it, counts that fetch as a use,
  /// as it counts any fetch of its value: it is not evicted while that fetch runs, and it goes as soon as the fetch
  /// ends, with the fetch's late value dropped.
  @Test func aQueryMadeAgainOnTheValueOfARemovedOneIsKeptOnlyUntilTheRemovedOnesFetchEnds() async {
    let clock = ManualClock()
    let store = SharedRegistry.current.queries
    let calls = Counter()
    let gates = [Gate(), Gate()]
    let query: Query<OperationState<Int>> = .query(["late"], options: queryStoreOptions(clock)) {
      let call = calls.increment()
      await gates[call - 1].wait()  // Does not notice cancellation.
      return call
    }
    var holders = [Shared(wrappedValue: OperationState<Int>(), query)]
    await waitUntil { calls.count == 1 }
    #expect(store.remove(.exactly(["late"])) == 1)
    // Made again on the value the first holder keeps: a record of its own, and a fetch of its own.
    holders.append(Shared(wrappedValue: OperationState<Int>(), query))
    await waitUntil { calls.count == 2 }
    gates[1].open()
    await waitUntil { holders[1].wrappedValue.value == 2 && !holders[1].wrappedValue.isFetching }
    holders.removeAll()
    store.capacity = 0  // Nobody holds the query any more: only what uses it is kept.
    #expect(store.contains(["late"]))  // The removed query's fetch still refers to its value.
    gates[0].open()
    await waitUntil {
      store.capacity = 0  // Evicts what nothing uses any more.
      return !store.contains(["late"])
    }
    #expect(calls.count == 2)
  }

  /// A fetch whose value is being written when its record is removed: the removal drops that write if it has not
  /// landed (the record's machine decides it: `QueryRecordMachineTests.aRecordRemovedWhileItsFetchWritesDropsThatWrite`),
  /// so the write, however late, cannot show a fetch after the removal said none runs.
  @Test func aFetchWriteDroppedByTheRemovalOfItsRecordWritesNothing() {
    let value = Shared(value: OperationState<String>())
    value.withLock { $0.operation.beginFetch() }
    let work = QueryWork()
    work.detach()
    value.withLock { state in  // What the removal writes.
      if state.operation.status == .pending { state.operation.status = .idle }
      state.operation.endFetch()
    }
    QueryFetchExecutor.showSuccess("late", in: value, sharing: true, keepFetching: true, closing: nil, of: work)
    QueryValueWriter<OperationState<String>>().showSuccess(value, "late", true, true, nil, work)  // A holder's fetch.
    #expect(value.wrappedValue.value == nil)
    #expect(!value.wrappedValue.isFetching)
    #expect(value.wrappedValue.status == .idle)
    let kept = QueryWork()  // Not detached: written, still fetching for the work that follows.
    QueryFetchExecutor.showSuccess("fetched", in: value, sharing: true, keepFetching: true, closing: nil, of: kept)
    #expect(value.wrappedValue.value == "fetched")
    #expect(value.wrappedValue.isFetching)
  }

  @Test func holdersOfAQueryRemovedWhileItFetchesAreNotLeftFetching() async throws {
    let clock = ManualClock()
    let fetcher = KeyedFetcher()
    let store = SharedRegistry.current.queries
    fetcher.hold()
    let feed = Shared(wrappedValue: OperationState<String>(), fetcher.query(["feed"], "feed", clock: clock))
    await waitUntil { fetcher.count("feed") == 1 }
    #expect(feed.wrappedValue.status == .pending)  // A first load.
    #expect(store.remove(.all) == 1)
    // The fetch can no longer write into the value it was removed with: the removal ends its loading.
    #expect(!feed.wrappedValue.isFetching)
    #expect(feed.wrappedValue.status == .idle)
    fetcher.release()
  }
}
