import Foundation
import Synchronization
import TestSupport
import Testing

@testable import SharedState

/// What a query carries besides its key: where its fetcher is written, and whether it is paginated.
@Suite(.freshRegistry) struct QueryFetcherTests {
  @Test func aConflictNamesBothFetchersByFileAndLine() {
    let clock = ManualClock()
    let registry = SharedRegistry.current
    let firstLine = #line + 1
    let first = Shared(wrappedValue: OperationState<Int>(), .query(["twice"], options: queryStoreOptions(clock)) { 1 })
    let secondLine = #line + 1
    let second = Shared(wrappedValue: OperationState<Int>(), .query(["twice"], options: queryStoreOptions(clock)) { 2 })
    let third = Shared(wrappedValue: OperationState<Int>(), .query(["once"], options: queryStoreOptions(clock)) { 3 })
    #expect(
      registry.diagnostics.map(\.kind) == [
        .conflictingFetchers(
          first: "SharedTests/QueryFetcherTests.swift:\(firstLine)",
          second: "SharedTests/QueryFetcherTests.swift:\(secondLine)")
      ])
    _ = (first, second, third)
  }

  @Test func aHolderOfTheSameFetcherIsNoConflict() {
    let clock = ManualClock()
    let query: Query<OperationState<Int>> = .query(["shared"], options: queryStoreOptions(clock)) { 1 }
    let holders = (0..<3).map { _ in Shared(wrappedValue: OperationState<Int>(), query) }
    #expect(SharedRegistry.current.diagnostics.isEmpty)
    _ = holders
  }

  @Test func pageWorkIsOnlyForPaginatedQueries() async throws {
    let clock = ManualClock()
    let single = Shared(
      wrappedValue: PaginatedState<Int, [Int]>(),
      .query(["single"], options: queryStoreOptions(clock)) {
        PageUpdate<Int, [Int]>.next(id: 0, page: [0], hasNext: true)
      })
    var values = single.values.makeAsyncIterator()
    while let state = await values.next(), state.pageIDs.isEmpty {}
    #expect(single.fetchNextPage() == nil)
    #expect(single.fetchPreviousPage() == nil)
    #expect(single.refetchAll() == nil)
    #expect(single.refetch())  // A query all the same.
    let nextPage: @Sendable ([Int], Int) -> Int? = { _, id in id + 1 }
    let paged = Shared(
      wrappedValue: PaginatedState<Int, [Int]>(),
      .paginatedQuery(["paged"], initialPage: 0, nextPage: nextPage, options: queryStoreOptions(clock)) { (id: Int) in
        [id]
      })
    let next = try #require(paged.fetchNextPage())
    guard case .next(let id, let page, _) = try await next.value else {
      Issue.record("a paginated query fetches the next page")
      return
    }
    #expect(id == 1 && page == [1])
    #expect(paged.wrappedValue.pageIDs == [0, 1])
  }
}
