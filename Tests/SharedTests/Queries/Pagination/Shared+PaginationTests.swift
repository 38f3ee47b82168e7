import Foundation
import Synchronization
import TestSupport
import Testing

@testable import SharedState

@Suite(.freshRegistry) struct SharedPaginationTests {
  /// Pages of three numbers; page 3 is the last, page 0 the first.
  private static func page(_ id: Int) -> [Int] { (0..<3).map { id * 3 + $0 } }

  @Test func pagesLoadForwardAndBackInOrderAndEnd() async throws {
    let clock = ManualClock()
    let fetched = Collector<Int>()
    let options = QueryOptions(gcTime: .seconds(60), operation: OperationOptions(retry: .none, clock: clock))
    let nextPage: @Sendable ([Int], Int) -> Int? = { _, id in id < 3 ? id + 1 : nil }
    let previousPage: @Sendable ([Int], Int) -> Int? = { _, id in id > 0 ? id - 1 : nil }
    let query: Query<PaginatedState<Int, [Int]>> = .paginatedQuery(
      ["feed"], initialPage: 1, nextPage: nextPage, previousPage: previousPage, options: options
    ) { (id: Int) -> [Int] in
      fetched.append(id)
      return Self.page(id)
    }
    let feed = Shared(wrappedValue: PaginatedState<Int, [Int]>(), query)
    var values = feed.values.makeAsyncIterator()
    while let state = await values.next(), !state.status.isSuccess {}
    #expect(feed.wrappedValue.pageIDs == [1])
    #expect(feed.wrappedValue.hasNextPage && feed.wrappedValue.hasPreviousPage)
    _ = try await feed.fetchNextPage()?.value
    _ = try await feed.fetchNextPage()?.value
    #expect(feed.wrappedValue.pageIDs == [1, 2, 3])
    #expect(!feed.wrappedValue.hasNextPage)
    _ = try await feed.fetchNextPage()?.value  // At the end: nothing is fetched.
    _ = try await feed.fetchPreviousPage()?.value
    #expect(feed.wrappedValue.pageIDs == [0, 1, 2, 3])
    #expect(!feed.wrappedValue.hasPreviousPage)
    #expect(feed.wrappedValue.pages.flatMap { $0 } == Array(0..<12))
    let before = fetched.elements.count
    _ = try await feed.refetchAll()?.value
    #expect(Array(fetched.elements.dropFirst(before)) == [0, 1, 2, 3])
    #expect(fetched.elements.prefix(4) == [1, 2, 3, 0])
  }

  @Test func aCancelledQueuedPageFetchFetchesNothing() async throws {
    let clock = ManualClock()
    let gate = Lock<Gate?>(nil)
    let fetched = Collector<Int>()
    let options = QueryOptions(
      staleTime: .seconds(600), gcTime: .seconds(60), operation: OperationOptions(retry: .none, clock: clock))
    let nextPage: @Sendable ([Int], Int) -> Int? = { _, id in id < 3 ? id + 1 : nil }
    let query: Query<PaginatedState<Int, [Int]>> = .paginatedQuery(
      ["cancelled"], initialPage: 0, nextPage: nextPage, options: options
    ) { (id: Int) -> [Int] in
      fetched.append(id)
      if let gate = gate.withLock({ $0 }) { await gate.wait() }
      return Self.page(id)
    }
    let feed = Shared(wrappedValue: PaginatedState<Int, [Int]>(), query)
    var values = feed.values.makeAsyncIterator()
    while let state = await values.next(), !state.status.isSuccess {}
    let held = Gate()
    gate.withLock { $0 = held }
    let refetch = feed.refetchAll()
    await waitUntil { fetched.elements.count == 2 }
    let next = feed.fetchNextPage()  // Queued behind the refetch.
    next?.cancel()
    held.open()
    _ = try await refetch?.value
    let result = await next?.result
    #expect(throws: CancellationError.self) { try result?.get() }
    #expect(fetched.elements == [0, 0])
    #expect(feed.wrappedValue.pageIDs == [0])
    #expect(feed.wrappedValue.status.isSuccess)
  }

  @Test func aPageAskedForAgainWhileItIsFetchedIsFetchedOnce() async throws {
    let gate = Lock<Gate?>(nil)
    let fetched = Collector<Int>()
    let options = QueryOptions(
      staleTime: .seconds(600), gcTime: .seconds(60), operation: OperationOptions(retry: .none, clock: ManualClock()))
    let nextPage: @Sendable ([Int], Int) -> Int? = { _, id in id < 3 ? id + 1 : nil }
    let previousPage: @Sendable ([Int], Int) -> Int? = { _, id in id > 0 ? id - 1 : nil }
    let query: Query<PaginatedState<Int, [Int]>> = .paginatedQuery(
      ["twice"], initialPage: 2, nextPage: nextPage, previousPage: previousPage, options: options
    ) { (id: Int) -> [Int] in
      fetched.append(id)
      if let gate = gate.withLock({ $0 }) { await gate.wait() }
      return Self.page(id)
    }
    let feed = Shared(wrappedValue: PaginatedState<Int, [Int]>(), query)
    var values = feed.values.makeAsyncIterator()
    while let state = await values.next(), !state.status.isSuccess {}
    let held = Gate()
    gate.withLock { $0 = held }
    let first = feed.fetchNextPage()
    await waitUntil { fetched.elements.count == 2 }
    let again = feed.fetchNextPage()  // Page 3 is being fetched: joins it.
    let previous = feed.fetchPreviousPage()  // Queued behind it.
    let previousAgain = feed.fetchPreviousPage()  // Page 1 is queued: joins it.
    gate.withLock { $0 = nil }
    held.open()
    #expect(try await first?.value == .next(id: 3, page: Self.page(3), hasNext: false))
    #expect(try await again?.value == .next(id: 3, page: Self.page(3), hasNext: false))
    _ = try await previous?.value
    #expect(try await previousAgain?.value == .previous(id: 1, page: Self.page(1), hasPrevious: true))
    #expect(fetched.elements == [2, 3, 1])
    #expect(feed.wrappedValue.pageIDs == [1, 2, 3])
    // Two more pages: ask for the second once the first is written.
    _ = try await feed.fetchPreviousPage()?.value
    #expect(feed.wrappedValue.pageIDs == [0, 1, 2, 3])
  }

  @Test func cancellingOneOfTwoCallersOfAPageLeavesItsFetchToTheOther() async throws {
    let gate = Lock<Gate?>(nil)
    let fetched = Collector<Int>()
    let options = QueryOptions(
      staleTime: .seconds(600), gcTime: .seconds(60), operation: OperationOptions(retry: .none, clock: ManualClock()))
    let nextPage: @Sendable ([Int], Int) -> Int? = { _, id in id < 3 ? id + 1 : nil }
    let query: Query<PaginatedState<Int, [Int]>> = .paginatedQuery(
      ["joined"], initialPage: 0, nextPage: nextPage, options: options
    ) { (id: Int) -> [Int] in
      fetched.append(id)
      if let gate = gate.withLock({ $0 }) { await gate.wait() }
      return Self.page(id)
    }
    let feed = Shared(wrappedValue: PaginatedState<Int, [Int]>(), query)
    var values = feed.values.makeAsyncIterator()
    while let state = await values.next(), !state.status.isSuccess {}
    let held = Gate()
    gate.withLock { $0 = held }
    let first = feed.fetchNextPage()
    await waitUntil { fetched.elements.count == 2 }
    let second = feed.fetchNextPage()  // Joins the fetch of page 1.
    first?.cancel()
    let cancelled = await first?.result
    #expect(throws: CancellationError.self) { try cancelled?.get() }
    held.open()
    #expect(try await second?.value == .next(id: 1, page: Self.page(1), hasNext: true))
    #expect(fetched.elements == [0, 1])
    #expect(feed.wrappedValue.pageIDs == [0, 1])
  }

  @Test func pageFunctionsAreOnlyForPaginatedQueries() {
    let plain = Shared(value: PaginatedState<Int, [Int]>())
    #expect(plain.fetchNextPage().map { _ in true } == nil)
  }

  @Test func aCancelledQueuedPageFetchSettlesWithoutWaitingForTheFetchAhead() async throws {
    let gate = Lock<Gate?>(nil)
    let fetches = Counter()
    let options = QueryOptions(
      staleTime: .seconds(600), gcTime: .seconds(60), operation: OperationOptions(retry: .none, clock: ManualClock()))
    let nextPage: @Sendable ([Int], Int) -> Int? = { _, id in id < 5 ? id + 1 : nil }
    let query: Query<PaginatedState<Int, [Int]>> = .paginatedQuery(
      ["queued"], initialPage: 0, nextPage: nextPage, options: options
    ) { (id: Int) -> [Int] in
      fetches.increment()
      if let gate = gate.withLock({ $0 }) { await gate.wait() }
      return [id]
    }
    let feed = Shared(wrappedValue: PaginatedState<Int, [Int]>(), query)
    await waitForSettledSuccess(feed)
    let held = Gate()
    gate.withLock { $0 = held }
    let running = feed.fetchNextPage()
    await waitUntil { fetches.count == 2 }
    let queued = feed.fetchPreviousPage()  // A next page would join the running one.
    let refetch = feed.refetchAll()
    let joined = feed.refetchAll()  // Joins `refetch`.
    let settled = Counter()
    let results = Task {
      queued?.cancel()
      let queuedResult = await queued?.result
      settled.increment()
      joined?.cancel()
      let joinedResult = await joined?.result
      settled.increment()
      return (queuedResult, joinedResult)
    }
    await waitUntil { settled.count == 2 }  // Before the page ahead returns.
    #expect(fetches.count == 2)
    gate.withLock { $0 = nil }
    held.open()
    let (queuedResult, joinedResult) = await results.value
    #expect(throws: CancellationError.self) { try queuedResult?.get() }
    #expect(throws: CancellationError.self) { try joinedResult?.get() }
    _ = try await running?.value
    _ = try await refetch?.value  // The caller who stayed gets the refetch.
    #expect(feed.wrappedValue.pageIDs == [0, 1])
  }
}
