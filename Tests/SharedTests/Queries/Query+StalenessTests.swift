import Foundation
import TestSupport
import Testing

@testable import SharedState

/// A staleness rule: each fetched value decides how long it stays fresh, for the queries made with the rule.
@Suite(.freshRegistry) struct QueryStalenessTests {
  private static let staleTime = Duration.seconds(30)

  private func options(_ clock: ManualClock) -> QueryOptions {
    queryStoreOptions(clock, staleTime: Self.staleTime)
  }

  private func query(
    _ key: QueryKey,
    _ fetcher: GatedFetcher,
    _ options: QueryOptions
  ) -> Query<OperationState<String>> {
    .query(key, options: options) { await fetcher.fetch() }
  }

  private func query(_ fetcher: GatedFetcher, _ options: QueryOptions) -> Query<OperationState<String>> {
    query(["post"], fetcher, options)
  }

  @Test func eachFetchedValueDecidesHowLongItStaysFreshThroughTheQuerysRule() async throws {
    let clock = ManualClock()
    let fetcher = GatedFetcher()
    let store = SharedRegistry.current.queries
    // The first value is stale at once; the later ones stay fresh for 100 s, over the query's 30 s.
    let query = query(fetcher, options(clock)).staleTime { value in value == "fetch 1" ? .zero : .seconds(100) }
    let post = Shared(wrappedValue: OperationState<String>(), query)
    await waitForValue(post, "fetch 1")
    await waitUntil { store.activity.wrappedValue.fetchingQueries == 0 }
    #expect(post.isStale == true)
    #expect(try await store.fetch(query) == "fetch 2")  // Stale: awaited a refetch.
    clock.advance(by: .seconds(99))
    #expect(post.isStale == false)
    #expect(try await store.fetch(query) == "fetch 2")  // Still fresh, 69 s past the query's staleTime.
    clock.advance(by: .seconds(1))
    #expect(post.isStale == true)
    #expect(try await store.fetch(query) == "fetch 3")
    store.invalidate(.exactly(["post"]), refetching: .none)
    #expect(post.isStale == true)  // Invalidated, whatever the rule says.
    #expect(fetcher.fetches.count == 3)
  }

  @Test func aStalenessRuleBelongsToTheQueriesMadeWithItNotToOthersFromTheSameCode() async throws {
    let clock = ManualClock()
    let fetcher = GatedFetcher()
    let store = SharedRegistry.current.queries
    // The same fetcher code and options: only the rule tells the two apart.
    let ruled = query(["ruled"], fetcher, options(clock)).staleTime { _ in .zero }
    _ = try await store.fetch(ruled)
    _ = try await store.fetch(query(["plain"], fetcher, options(clock)))
    #expect(store.isStale(["ruled"]) == true)
    #expect(store.isStale(["plain"]) == false)
    _ = try await store.fetch(ruled)  // Stale: fetched again, by the same rule.
    #expect(fetcher.fetches.count == 3)
  }
}
