import Foundation
import TestSupport
import Testing

@testable import SharedState

/// Writing many cached queries in one call by a filter: which are written, which are skipped for another state type,
/// and what the holders and the persisted cache hear.
@Suite(.freshRegistry) struct QueryStoreSetQueriesDataTests {
  @Test func writesEveryQueryTheFilterReachesAndReportsTheOtherStateTypes() async throws {
    let clock = ManualClock()
    let fetcher = KeyedFetcher()
    let store = SharedRegistry.current.queries
    let first = Shared(wrappedValue: OperationState<String>(), fetcher.query(["posts", 1], "first", clock: clock))
    await waitForValue(first, "first 1")
    #expect(try await store.fetch(fetcher.query(["posts", 2], "second", clock: clock)) == "second 1")
    let noNextPage: @Sendable ([String], Int) -> Int? = { _, _ in nil }
    let pages: Query<PaginatedState<Int, [String]>> = .paginatedQuery(
      ["posts", "feed"], initialPage: 0, nextPage: noNextPage, options: queryStoreOptions(clock)
    ) { (id: Int) -> [String] in ["page \(id)"] }
    _ = try await store.fetch(pages)
    #expect(try await store.fetch(fetcher.query(["users", 1], "user", clock: clock)) == "user 1")
    let seen = Collector<String>()
    let report = store.setQueriesData(.prefix(["posts"]), as: OperationState<String>.self) { key, state in
      seen.append("\(key)")
      state.value = (state.value ?? "") + " edited"
    }
    #expect(report.count == 2)
    #expect(Set(report.updated) == [["posts", 1], ["posts", 2]])
    #expect(report.mismatched == [["posts", "feed"]])
    #expect(seen.elements.count == 2)
    #expect(first.wrappedValue.value == "first 1 edited")  // The holder sees it.
    #expect(store.cachedValue(for: ["posts", 2], as: String.self) == "second 1 edited")
    #expect(store.cachedValue(for: ["users", 1], as: String.self) == "user 1")
    // An edit, not a fetch: the queries keep their status and freshness.
    #expect(first.wrappedValue.status == .success)
    #expect(store.isStale(["posts", 2]) == false)
    #expect(fetcher.count("first") == 1)
  }

  @Test func queryConditionsChooseWhichQueriesAreWritten() async throws {
    let clock = ManualClock()
    let fetcher = KeyedFetcher()
    let store = SharedRegistry.current.queries
    let held = Shared(wrappedValue: OperationState<String>(), fetcher.query(["posts", 1], "held", clock: clock))
    await waitForValue(held, "held 1")
    #expect(try await store.fetch(fetcher.query(["posts", 2], "unheld", clock: clock)) == "unheld 1")
    let report = store.setQueriesData(.prefix(["posts"]).only(.inactive), as: OperationState<String>.self) {
      _, state in state.value = "cleared"
    }
    #expect(report.updated == [["posts", 2]])
    #expect(held.wrappedValue.value == "held 1")
    #expect(store.setQueriesData(.exactly(["nothing"]), as: OperationState<String>.self) { _, _ in }.count == 0)
  }

  @Test func aQueryRemovedWhileThePredicateRunsIsNeitherWrittenNorReported() async throws {
    let clock = ManualClock()
    let fetcher = KeyedFetcher()
    let store = SharedRegistry.current.queries
    #expect(try await store.fetch(fetcher.query(["feed"], "feed", clock: clock)) == "feed 1")
    let removing = QueryFilter.exactly(["feed"]).matching { query in
      store.remove(.exactly(query.key))
      return true
    }
    let report = store.setQueriesData(removing, as: OperationState<String>.self) { _, state in state.value = "x" }
    #expect(report.updated.isEmpty)
    #expect(report.mismatched.isEmpty)
    #expect(!store.contains(["feed"]))
  }
}
