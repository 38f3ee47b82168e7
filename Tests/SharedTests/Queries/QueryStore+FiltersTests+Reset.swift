import Foundation
import Synchronization
import TestSupport
import Testing

@testable import SharedState

/// Resetting queries by key or prefix: the value goes back to its initial state, fetches under way are cancelled,
/// nothing fetched counts as fresh, and held queries fetch again at once.
extension QueryStoreFiltersTests {
  @Test func aHeldQueryGoesBackToAFirstLoadAndFetchesAgainAtOnce() async {
    let clock = ManualClock()
    let fetcher = KeyedFetcher()
    let store = SharedRegistry.current.queries
    let feed = Shared(wrappedValue: OperationState<String>(), fetcher.query(["feed"], "feed", clock: clock))
    await waitForValue(feed, "feed 1")
    fetcher.hold()
    #expect(store.reset(.exactly(["feed"])) == 1)
    // The initial state, loading again: no value, pending, fetching.
    #expect(feed.wrappedValue.value == nil)
    #expect(feed.wrappedValue.status == .pending)
    #expect(feed.wrappedValue.isFetching)
    await waitUntil { fetcher.count("feed") == 2 }
    fetcher.release()
    await waitForValue(feed, "feed 2")
  }

  @Test func aFetchUnderWayIsCancelledItsCallersFailAndAHeldQueryFetchesAfterIt() async throws {
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
    #expect(store.reset(.prefix(["feed"])) == 1)
    await #expect(throws: CancellationError.self) { try await caller.value }
    #expect(feed.wrappedValue.value == nil)
    #expect(feed.wrappedValue.status == .pending)  // The refetch behind the cancelled one is a first load.
    await waitUntil { fetcher.count("feed") == 3 }  // It starts once the cancelled fetch has ended.
    fetcher.release()
    await waitForValue(feed, "feed 3")
    #expect(fetcher.count("feed") == 3)  // The cancelled fetch is not followed by another.
  }

  @Test func anUnheldQueryForgetsItsFreshValueAndFetchesOnItsNextCaller() async throws {
    let clock = ManualClock()
    let fetcher = KeyedFetcher()
    let store = SharedRegistry.current.queries
    let query = fetcher.query(["feed"], "feed", clock: clock)
    #expect(try await store.fetch(query) == "feed 1")
    #expect(try await store.fetch(query) == "feed 1")  // Fresh for ten minutes.
    #expect(store.reset(.all) == 1)
    #expect(fetcher.count("feed") == 1)  // Nobody holds it: nothing fetches now.
    #expect(store.cachedValue(for: ["feed"], as: String.self) == nil)
    #expect(try await store.fetch(query) == "feed 2")  // Nothing fresh any more: fetched.
  }

  @Test func aFailedQueryLosesItsErrorAndFailures() async throws {
    let clock = ManualClock()
    let fetcher = KeyedFetcher()
    let store = SharedRegistry.current.queries
    let query = fetcher.query(["feed"], "feed", clock: clock)
    #expect(try await store.fetch(query) == "feed 1")
    fetcher.setFailing(true)
    #expect(store.invalidate(.exactly(["feed"]), refetching: .all) == 1)
    let shared = try #require(store.cachedShared(["feed"], as: OperationState<String>.self))
    await waitUntil { shared.wrappedValue.status == .error }
    #expect(shared.wrappedValue.failureCount == 1)
    fetcher.setFailing(false)
    fetcher.hold()
    #expect(store.reset(.exactly(["feed"])) == 1)
    // Held here, so loading again: pending, with nothing of the failure left.
    #expect(shared.wrappedValue.status == .pending)
    #expect(shared.wrappedValue.error == nil)
    #expect(shared.wrappedValue.failureReason == nil)
    #expect(shared.wrappedValue.failureCount == 0)
    #expect(shared.wrappedValue.value == nil)
    fetcher.release()
    await waitForValue(shared, "feed 3")
  }

  @Test func aPrefixResetsTheQueriesUnderItAndLeavesTheOthers() async throws {
    let clock = ManualClock()
    let fetcher = KeyedFetcher()
    let store = SharedRegistry.current.queries
    _ = try await store.fetch(fetcher.query(["users", 1], "one", clock: clock))
    _ = try await store.fetch(fetcher.query(["users", 2], "two", clock: clock))
    _ = try await store.fetch(fetcher.query(["posts"], "posts", clock: clock))
    #expect(store.reset(.prefix(["users"])) == 2)
    #expect(store.count == 3)  // Reset, not removed.
    #expect(store.cachedValue(for: ["users", 1], as: String.self) == nil)
    #expect(store.cachedValue(for: ["users", 2], as: String.self) == nil)
    #expect(store.cachedValue(for: ["posts"], as: String.self) == "posts 1")
    #expect(store.reset(.exactly(["users"])) == 0)  // No query has that exact key.
  }

  @Test func aPaginatedQueryLosesItsPagesAndLoadsItsFirstPageAgain() async throws {
    let clock = ManualClock()
    let fetcher = KeyedFetcher()
    let store = SharedRegistry.current.queries
    let nextPage: @Sendable ([String], Int) -> Int? = { _, id in id + 1 }
    let query: Query<PaginatedState<Int, [String]>> = .paginatedQuery(
      ["feed"], initialPage: 0, nextPage: nextPage, options: queryStoreOptions(clock)
    ) { (id: Int) -> [String] in [try await fetcher.fetch("page \(id)")] }
    let feed = Shared(wrappedValue: PaginatedState<Int, [String]>(), query)
    await waitUntil { feed.wrappedValue.status == .success }
    _ = try await #require(feed.fetchNextPage()).value
    #expect(feed.wrappedValue.pageIDs == [0, 1])
    fetcher.hold()
    #expect(store.reset(.exactly(["feed"])) == 1)
    #expect(feed.wrappedValue.pages.isEmpty)
    #expect(feed.wrappedValue.status == .pending)
    fetcher.release()
    await waitUntil { feed.wrappedValue.status == .success }
    #expect(feed.wrappedValue.pageIDs == [0])  // From the first page again, not every page it had.
    #expect(feed.wrappedValue.pages == [["page 0 2"]])
  }

  @Test func aSleepingQueryIsResetToo() async throws {
    let clock = ManualClock()
    let fetcher = KeyedFetcher()
    let registry = SharedRegistry.current
    let store = registry.queries
    let query = fetcher.query(["feed"], "feed", clock: clock)
    do {
      let holder = Shared(wrappedValue: OperationState<String>(), query)
      await waitForValue(holder, "feed 1")
    }
    // A reference let go a moment after a garbage check waits for the next one; three checks are less than a
    // gcTime, so the query is kept, asleep.
    for _ in 0..<3 where registry.count > 0 {
      await clock.waitForSleepers(1)
      clock.advance(by: .seconds(15))
      await clock.waitForSleepers(1)
    }
    #expect(registry.count == 0)
    #expect(store.count == 1)
    #expect(store.reset(.all) == 1)
    #expect(fetcher.count("feed") == 1)  // Nobody holds it: nothing fetches now.
    #expect(store.cachedValue(for: ["feed"], as: String.self) == nil)
    #expect(try await store.fetch(query) == "feed 2")
  }

  @Test func aDisabledHeldQueryIsResetAndFetchesOnlyWhenAsked() async throws {
    let clock = ManualClock()
    let fetcher = KeyedFetcher()
    let store = SharedRegistry.current.queries
    let query = fetcher.query(["feed"], "feed", clock: clock)
    let feed = Shared(wrappedValue: OperationState<String>(), query)
    await waitForValue(feed, "feed 1")
    #expect(store.setEnabled(false, for: ["feed"]))
    #expect(store.reset(.all) == 1)
    #expect(feed.wrappedValue.status == .idle)
    #expect(!feed.wrappedValue.isFetching)
    #expect(fetcher.count("feed") == 1)
    #expect(try await store.fetch(query) == "feed 2")  // Asked explicitly: fetched.
  }
}
