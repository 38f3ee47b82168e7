import Foundation
import TestSupport
import Testing

@testable import SharedState

/// The conditions of a filter beyond its key: active or inactive, stale or fresh, the fetch status, and a predicate
/// over what a query shows; refetching and counting by a filter.
extension QueryStoreFiltersTests {
  @Test func theTypeReachesTheHeldOrTheUnheldQueries() async throws {
    let clock = ManualClock()
    let fetcher = KeyedFetcher()
    let store = SharedRegistry.current.queries
    let held = Shared(wrappedValue: OperationState<String>(), fetcher.query(["posts", 1], "held", clock: clock))
    await waitForValue(held, "held 1")
    #expect(try await store.fetch(fetcher.query(["posts", 2], "unheld", clock: clock)) == "unheld 1")
    #expect(store.invalidate(.prefix(["posts"]).only(.active), refetching: .none) == 1)
    #expect(store.refetch(.prefix(["posts"]).only(.inactive)) == 1)
    await waitUntil { store.cachedValue(for: ["posts", 2], as: String.self) == "unheld 2" }
    #expect(fetcher.count("held") == 1)  // Marked stale, not refetched.
    #expect(store.refetch(.prefix(["posts"]).only(.active)) == 1)
    await waitForValue(held, "held 2")
    #expect(store.refetch(.prefix(["posts"]).only(.all)) == 2)
    await waitForValue(held, "held 3")
  }

  @Test func staleReachesTheQueriesPastTheirStaleTimeOrInvalidated() async throws {
    let clock = ManualClock()
    let fetcher = KeyedFetcher()
    let store = SharedRegistry.current.queries
    let short = Query<OperationState<String>>.query(
      ["short"], options: queryStoreOptions(clock, staleTime: .seconds(10))
    ) { try await fetcher.fetch("short") }
    #expect(try await store.fetch(short) == "short 1")
    #expect(try await store.fetch(fetcher.query(["long"], "long", clock: clock)) == "long 1")
    #expect(store.fetchingCount(.all) == 0)
    #expect(store.refetch(.all.stale()) == 0)  // Both fresh.
    clock.advance(by: .seconds(11))
    #expect(store.refetch(.all.stale(false)) == 1)  // ["long"] only.
    await waitUntil { store.cachedValue(for: ["long"], as: String.self) == "long 2" }
    #expect(store.refetch(.all.stale()) == 1)  // ["short"] only.
    await waitUntil { store.cachedValue(for: ["short"], as: String.self) == "short 2" }
    #expect(store.invalidate(.exactly(["long"]), refetching: .none) == 1)
    #expect(store.remove(.all.stale()) == 1)  // Invalidated counts as stale.
    #expect(!store.contains(["long"]))
    #expect(store.contains(["short"]))
  }

  @Test func theFetchStatusReachesTheQueriesFetchingOrIdle() async throws {
    let clock = ManualClock()
    let fetcher = KeyedFetcher()
    let store = SharedRegistry.current.queries
    #expect(try await store.fetch(fetcher.query(["idle"], "idle", clock: clock)) == "idle 1")
    fetcher.hold()
    let busy = Shared(wrappedValue: OperationState<String>(), fetcher.query(["busy"], "busy", clock: clock))
    await waitUntil { fetcher.count("busy") == 1 }
    #expect(busy.wrappedValue.isFetching)
    #expect(store.fetchingCount(.all) == 1)
    #expect(store.fetchingCount(.exactly(["idle"])) == 0)
    #expect(store.invalidate(.all.fetchStatus(.idle), refetching: .none) == 1)
    #expect(store.cancel(.all.fetchStatus(.paused)) == 0)
    #expect(store.cancel(.all.fetchStatus(.fetching)) == 1)
    await waitUntil { !busy.wrappedValue.isFetching }
    #expect(store.fetchingCount(.all) == 0)
    fetcher.release()
  }

  @Test func aQueryPredicateSeesWhatEachQueryShows() async throws {
    let clock = ManualClock()
    let fetcher = KeyedFetcher()
    let store = SharedRegistry.current.queries
    let good = Shared(wrappedValue: OperationState<String>(), fetcher.query(["posts", 1], "good", clock: clock))
    await waitForValue(good, "good 1")
    fetcher.setFailing(true)
    let bad = Shared(wrappedValue: OperationState<String>(), fetcher.query(["posts", 2], "bad", clock: clock))
    await waitUntil { bad.wrappedValue.status == .error }
    fetcher.setFailing(false)
    let seen = Collector<String>()
    let failed = QueryFilter.prefix(["posts"]).matching { query in
      // The store's lock is not held: asking the store from here does not deadlock.
      seen.append("\(query.key) \(query.status) \(query.isActive) \(query.isEnabled) \(store.contains(query.key))")
      return query.status == .error
    }
    #expect(store.refetch(failed) == 1)
    await waitForValue(bad, "bad 2")
    #expect(fetcher.count("good") == 1)
    #expect(
      Set(seen.elements) == [
        "[\"posts\", 1] success true true true", "[\"posts\", 2] error true true true",
      ])
    // A key predicate runs first; both must hold.
    let none = QueryFilter.prefix(["posts"]).satisfying { $0.parts.last as? Int == 1 }.matching { query in
      query.key.parts.last as? Int == 2
    }
    #expect(store.refetch(none) == 0)
  }

  @Test func aQueryRemovedWhileTheQueryPredicateRunsIsLeftAlone() async throws {
    let clock = ManualClock()
    let fetcher = KeyedFetcher()
    let store = SharedRegistry.current.queries
    let query = fetcher.query(["feed"], "feed", clock: clock)
    #expect(try await store.fetch(query) == "feed 1")
    let removing = QueryFilter.exactly(["feed"]).matching { candidate in
      store.remove(.exactly(candidate.key))
      return true
    }
    #expect(store.refetch(removing) == 0)
    #expect(store.count == 0)
    #expect(fetcher.count("feed") == 1)  // The removed query was not fetched again.
    // Removed and made again: the query made again is another, and is left alone too.
    #expect(try await store.fetch(query) == "feed 2")
    let remaking = QueryFilter.exactly(["feed"]).matching { candidate in
      store.remove(.exactly(candidate.key))
      store.prefetch(query)
      return true
    }
    #expect(store.invalidate(remaking, refetching: .none) == 0)
    await waitUntil { store.cachedValue(for: ["feed"], as: String.self) == "feed 3" }
    #expect(store.count == 1)
  }
}
