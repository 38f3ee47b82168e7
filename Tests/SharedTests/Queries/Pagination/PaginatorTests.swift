import Foundation
import Synchronization
import TestSupport
import Testing

@testable import SharedState

/// A paginated query with `maxPages` keeps that many pages: a page fetched past it drops pages from the other end.
@Suite(.freshRegistry) struct PaginatorTests {
  /// A query over pages 0 through 5, keeping `maxPages`; records every page it fetches.
  private func feed(
    maxPages: Int,
    fetched: Collector<Int>,
    previous: Bool = true
  ) async -> Shared<PaginatedState<Int, [Int]>> {
    let options = QueryOptions(
      staleTime: .seconds(600), gcTime: .seconds(60), operation: OperationOptions(retry: .none, clock: ManualClock()))
    let previousPage: @Sendable ([Int], Int) -> Int? = { _, id in previous && id > 0 ? id - 1 : nil }
    let nextPage: @Sendable ([Int], Int) -> Int? = { _, id in id < 5 ? id + 1 : nil }
    let query: Query<PaginatedState<Int, [Int]>> = .paginatedQuery(
      ["limited"], initialPage: 0, nextPage: nextPage, previousPage: previousPage,
      maxPages: maxPages, options: options
    ) { id in
      fetched.append(id)
      return [id]
    }
    let feed = Shared(wrappedValue: PaginatedState<Int, [Int]>(), query)
    var values = feed.values.makeAsyncIterator()
    while let state = await values.next(), !state.status.isSuccess {}
    return feed
  }

  @Test func fetchingPastTheLimitDropsPagesFromTheOtherEnd() async throws {
    let fetched = Collector<Int>()
    let feed = await feed(maxPages: 2, fetched: fetched)
    _ = try await feed.fetchNextPage()?.value
    #expect(feed.wrappedValue.pageIDs == [0, 1])
    #expect(!feed.wrappedValue.hasPreviousPage && feed.wrappedValue.hasNextPage)
    _ = try await feed.fetchNextPage()?.value
    #expect(feed.wrappedValue.pageIDs == [1, 2])
    #expect(feed.wrappedValue.pages == [[1], [2]])
    #expect(feed.wrappedValue.hasPreviousPage && feed.wrappedValue.hasNextPage)  // Page 0 went: it comes before.
    _ = try await feed.fetchPreviousPage()?.value
    #expect(feed.wrappedValue.pageIDs == [0, 1])
    #expect(feed.wrappedValue.pages == [[0], [1]])
    #expect(!feed.wrappedValue.hasPreviousPage && feed.wrappedValue.hasNextPage)  // Page 2 went: it comes after.
    #expect(fetched.elements == [0, 1, 2, 0])
  }

  @Test func theLastPageKeptSaysWhetherAnotherFollows() async throws {
    let fetched = Collector<Int>()
    let feed = await feed(maxPages: 1, fetched: fetched)
    for _ in 1...5 { _ = try await feed.fetchNextPage()?.value }
    #expect(feed.wrappedValue.pageIDs == [5])
    #expect(feed.wrappedValue.hasPreviousPage && !feed.wrappedValue.hasNextPage)
    _ = try await feed.fetchNextPage()?.value  // At the end: nothing is fetched.
    #expect(fetched.elements == [0, 1, 2, 3, 4, 5])
  }

  @Test func aQueryWithNoPreviousPageHasNoneBeforeItsFirstKeptPage() async throws {
    let fetched = Collector<Int>()
    let feed = await feed(maxPages: 2, fetched: fetched, previous: false)
    _ = try await feed.fetchNextPage()?.value
    _ = try await feed.fetchNextPage()?.value
    #expect(feed.wrappedValue.pageIDs == [1, 2])
    #expect(!feed.wrappedValue.hasPreviousPage)  // It cannot fetch page 0 again, so it does not say there is one.
    _ = try await feed.fetchPreviousPage()?.value
    #expect(feed.wrappedValue.pageIDs == [1, 2])
  }

  @Test func aRefetchOfAllPagesFetchesTheKeptPagesFromTheFirstKept() async throws {
    let fetched = Collector<Int>()
    let feed = await feed(maxPages: 2, fetched: fetched)
    _ = try await feed.fetchNextPage()?.value
    _ = try await feed.fetchNextPage()?.value
    let before = fetched.elements.count
    _ = try await feed.refetchAll()?.value
    #expect(Array(fetched.elements.dropFirst(before)) == [1, 2])
    #expect(feed.wrappedValue.pageIDs == [1, 2])
    #expect(feed.wrappedValue.hasPreviousPage && feed.wrappedValue.hasNextPage)
  }

  @Test func aRefetchOfMorePagesThanTheLimitFetchesOnlyTheLimit() async throws {
    let fetched = Collector<Int>()
    let feed = await feed(maxPages: 2, fetched: fetched)
    // Pages written by the app beyond the query's limit.
    SharedRegistry.current.queries.update(["limited"], as: PaginatedState<Int, [Int]>.self) { state in
      state.applySuccess(.all(ids: [0, 1, 2], pages: [[0], [1], [2]], hasNext: true, hasPrevious: false))
    }
    let before = fetched.elements.count
    _ = try await feed.refetchAll()?.value
    #expect(Array(fetched.elements.dropFirst(before)) == [0, 1])
    #expect(feed.wrappedValue.pageIDs == [0, 1])
  }

  @Test func aCursorThatComesBackToALoadedPageEndsThePages() async throws {
    let options = QueryOptions(
      staleTime: .seconds(600), gcTime: .seconds(60), operation: OperationOptions(retry: .none, clock: ManualClock()))
    let nextPage: @Sendable (String, String) -> String? = { _, id in id == "a" ? "b" : "a" }  // b leads back to a.
    let query: Query<PaginatedState<String, String>> = .paginatedQuery(
      ["cycle"], initialPage: "a", nextPage: nextPage, options: options
    ) { (id: String) -> String in
      "page \(id)"
    }
    let feed = Shared(wrappedValue: PaginatedState<String, String>(), query)
    await waitForSettledSuccess(feed)
    _ = try await feed.fetchNextPage()?.value
    #expect(feed.wrappedValue.pageIDs == ["a", "b"])
    #expect(!feed.wrappedValue.hasNextPage)
    _ = try await feed.fetchNextPage()?.value
    _ = try await feed.refetchAll()?.value
    #expect(!feed.wrappedValue.hasNextPage)
    _ = try await feed.fetchNextPage()?.value
    #expect(feed.wrappedValue.pageIDs == ["a", "b"])
  }
}
