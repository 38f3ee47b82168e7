import Foundation
import Synchronization
import TestSupport
import Testing

@testable import SharedState

/// A paginated query is awaited, prefetched, read from the cache, written and seeded as a plain query is, and
/// tells which end of its pages is being fetched.
@Suite(.freshRegistry) struct QueryStorePagesTests {
  private static let staleTime = Duration.seconds(60)

  /// A feed of pages of three numbers, pages 0 to 3, whose fetches can be held.
  private final class Feed: Sendable {
    let fetched = Collector<Int>()
    private let gate = Lock<Gate?>(nil)

    func hold() -> Gate {
      let held = Gate()
      gate.withLock { $0 = held }
      return held
    }

    func query(_ clock: ManualClock) -> Query<PaginatedState<Int, [Int]>> {
      let options = QueryOptions(
        staleTime: QueryStorePagesTests.staleTime, gcTime: .seconds(60),
        operation: OperationOptions(retry: .none, clock: clock))
      let nextPage: @Sendable ([Int], Int) -> Int? = { _, id in id < 3 ? id + 1 : nil }
      let previousPage: @Sendable ([Int], Int) -> Int? = { _, id in id > 0 ? id - 1 : nil }
      return .paginatedQuery(
        ["feed"], initialPage: 1, nextPage: nextPage, previousPage: previousPage, options: options
      ) { (id: Int) -> [Int] in
        self.fetched.append(id)
        if let gate = self.gate.withLock({ $0 }) { await gate.wait() }
        return (0..<3).map { id * 3 + $0 }
      }
    }
  }

  @Test func theStoreAwaitsTheFirstPageAndServesItFreshAfterwards() async throws {
    let clock = ManualClock()
    let feed = Feed()
    let store = SharedRegistry.current.queries
    let loaded = try await store.fetch(feed.query(clock))
    #expect(loaded.pageIDs == [1])
    #expect(loaded.pages == [[3, 4, 5]])
    #expect(loaded.status == .success)
    #expect(try await store.fetch(feed.query(clock)).pageIDs == [1])
    #expect(try await store.ensureValue(feed.query(clock)).pageIDs == [1])
    #expect(feed.fetched.elements == [1])
    #expect(store.cachedState(for: ["feed"], as: PaginatedState<Int, [Int]>.self)?.pages == [[3, 4, 5]])
    clock.advance(by: Self.staleTime)
    _ = try await store.fetch(feed.query(clock))  // Stale: every loaded page again.
    #expect(feed.fetched.elements == [1, 1])
  }

  @Test func aHolderAwaitsItsPages() async throws {
    let clock = ManualClock()
    let feed = Feed()
    let holder = Shared(wrappedValue: PaginatedState<Int, [Int]>(), feed.query(clock))
    let loaded = try #require(try await holder.fetchValue())
    #expect(loaded.pageIDs == [1])
    _ = try await holder.fetchNextPage()?.value
    #expect(try await holder.fetchValue()?.pageIDs == [1, 2])  // Fresh: no fetch.
    #expect(feed.fetched.elements == [1, 2])
    let plain = Shared(value: PaginatedState<Int, [Int]>())
    #expect(try await plain.fetchValue() == nil)  // Not a query.
  }

  @Test func aPrefetchLoadsTheFirstPageForTheNextHolder() async throws {
    let clock = ManualClock()
    let feed = Feed()
    let store = SharedRegistry.current.queries
    store.prefetch(feed.query(clock))
    await waitUntil { store.cachedState(for: ["feed"], as: PaginatedState<Int, [Int]>.self)?.pageIDs == [1] }
    let holder = Shared(wrappedValue: PaginatedState<Int, [Int]>(), feed.query(clock))
    #expect(holder.wrappedValue.pageIDs == [1])
    #expect(!holder.wrappedValue.isFetching)
    #expect(feed.fetched.elements == [1])
  }

  @Test func theEndBeingFetchedShowsWhileItsPageIsFetched() async throws {
    let clock = ManualClock()
    let feed = Feed()
    let holder = Shared(wrappedValue: PaginatedState<Int, [Int]>(), feed.query(clock))
    _ = try await holder.fetchValue()
    #expect(!holder.wrappedValue.isFetchingNextPage && !holder.wrappedValue.isFetchingPreviousPage)
    var gate = feed.hold()
    let next = holder.fetchNextPage()
    await waitUntil { feed.fetched.elements.count == 2 }
    #expect(holder.wrappedValue.isFetchingNextPage)
    #expect(!holder.wrappedValue.isFetchingPreviousPage)
    gate.open()
    _ = try await next?.value
    #expect(!holder.wrappedValue.isFetchingNextPage)
    gate = feed.hold()
    let previous = holder.fetchPreviousPage()
    await waitUntil { feed.fetched.elements.count == 3 }
    #expect(holder.wrappedValue.isFetchingPreviousPage)
    #expect(!holder.wrappedValue.isFetchingNextPage)
    gate.open()
    _ = try await previous?.value
    // A refetch of every page is neither end.
    gate = feed.hold()
    let all = holder.refetchAll()
    await waitUntil { feed.fetched.elements.count == 4 }
    #expect(holder.wrappedValue.isFetching)
    #expect(!holder.wrappedValue.isFetchingNextPage && !holder.wrappedValue.isFetchingPreviousPage)
    gate.open()
    _ = try await all?.value
    #expect(holder.wrappedValue.pageIDs == [0, 1, 2])
  }

  @Test func pagesAreWrittenInPlaceAndTheirCountIsKept() async throws {
    let clock = ManualClock()
    let feed = Feed()
    let store = SharedRegistry.current.queries
    let holder = Shared(wrappedValue: PaginatedState<Int, [Int]>(), feed.query(clock))
    _ = try await holder.fetchValue()
    #expect(store.setFetchedState(for: feed.query(clock)) { $0.pages[0].insert(-1, at: 0) })
    #expect(holder.wrappedValue.pages == [[-1, 3, 4, 5]])
    #expect(holder.wrappedValue.pageIDs == [1])
    holder.withLock { $0.replacePages(ids: [7, 8], pages: [[70], [80]], hasNextPage: false, hasPreviousPage: true) }
    #expect(holder.wrappedValue.pageIDs == [7, 8])
    #expect(holder.wrappedValue.pages == [[70], [80]])
    #expect(!holder.wrappedValue.hasNextPage && holder.wrappedValue.hasPreviousPage)
  }

  @Test func pagesSetForAQueryTheStoreDoesNotKeepAreServedFresh() async throws {
    let clock = ManualClock()
    let feed = Feed()
    let store = SharedRegistry.current.queries
    store.setFetchedState(for: feed.query(clock)) { state in
      state.replacePages(ids: [1], pages: [[100]], hasNextPage: true, hasPreviousPage: false)
    }
    #expect(try await store.fetch(feed.query(clock)).pages == [[100]])
    let holder = Shared(wrappedValue: PaginatedState<Int, [Int]>(), feed.query(clock))
    #expect(holder.wrappedValue.pages == [[100]])
    #expect(feed.fetched.elements.isEmpty)
    _ = try await holder.fetchNextPage()?.value  // Continues from the pages that were set.
    #expect(holder.wrappedValue.pageIDs == [1, 2])
  }

  @Test func anInitialStateSeedsTheFirstHolder() async throws {
    let clock = ManualClock()
    let feed = Feed()
    var saved = PaginatedState<Int, [Int]>()
    saved.replacePages(ids: [1], pages: [[9, 9, 9]], hasNextPage: true, hasPreviousPage: true)
    let holder = Shared(wrappedValue: PaginatedState<Int, [Int]>(), feed.query(clock).initialState(saved))
    #expect(holder.wrappedValue.pages == [[9, 9, 9]])
    #expect(holder.wrappedValue.status == .success)
    #expect(feed.fetched.elements.isEmpty)
  }
}
