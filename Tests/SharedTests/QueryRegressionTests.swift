import Foundation
import Synchronization
import TestSupport
import Testing

@testable import Shared

private func waitForSuccess<State: OperationTrackable>(_ shared: Shared<State>) async {
  var values = shared.values.makeAsyncIterator()
  while let state = await values.next(), !state.isSuccess {}
}

@Suite(.freshRegistry) struct QueryRegressionTests {
  @Test func anInvalidationDuringAFetchIsNotUndoneByIt() async {
    let clock = ManualClock()
    let serverVersion = Lock(1)
    let gate = Lock<Gate?>(nil)
    let fetches = Counter()
    let options = QueryOptions(staleTime: .seconds(600), gcTime: .seconds(60), retry: .none, clock: clock)
    let registry = SharedRegistry.current
    let query: Query<OperationState<String>> = .query(["versioned"], options: options) {
      let version = serverVersion.withLock { $0 }
      fetches.increment()
      if let gate = gate.withLock({ $0 }) { await gate.wait() }
      return "v\(version)"
    }
    let first = Shared(wrappedValue: OperationState<String>(), query)
    await waitForSuccess(first)
    let held = Gate()
    gate.withLock { $0 = held }
    first.refetch()
    await waitUntil { fetches.count == 2 }  // In flight, having read version 1.
    serverVersion.withLock { $0 = 2 }
    registry.queries.invalidate(matching: ["versioned"])
    gate.withLock { $0 = nil }
    held.open()
    await waitUntil { first.wrappedValue.value == "v2" && first.wrappedValue.isSuccess }
    #expect(fetches.count == 3)
    let later = Shared(wrappedValue: OperationState<String>(), query)  // Fresh now: no fetch.
    #expect(later.wrappedValue.value == "v2")
    #expect(fetches.count == 3)
  }

  @Test func aUseBetweenGarbageChecksStartsAWholeGCTimeAgain() async {
    let clock = ManualClock()
    let options = QueryOptions(staleTime: .seconds(10_000), gcTime: .seconds(60), retry: .none, clock: clock)
    let registry = SharedRegistry.current
    let query: Query<OperationState<String>> = .query(["brief"], options: options) { "x" }
    do {
      let holder = Shared(wrappedValue: OperationState<String>(), query)
      await waitForSuccess(holder)
    }
    for _ in 0..<4 {
      await clock.waitForSleepers(1)
      clock.advance(by: .seconds(15))
    }
    await clock.waitForSleepers(1)
    do {
      let holder = Shared(wrappedValue: OperationState<String>(), query)  // A brief, fresh use.
      _ = holder.wrappedValue
    }
    clock.advance(by: .seconds(15))
    await waitUntil { clock.sleeperCount == 1 || !registry.queries.contains(["brief"]) }
    #expect(registry.queries.contains(["brief"]))
  }

  @Test func aRefetchOfAllPagesKeepsAPageFetchedMeanwhile() async throws {
    let clock = ManualClock()
    let gate = Lock<Gate?>(nil)
    let firstPageFetches = Counter()
    let options = QueryOptions(staleTime: .seconds(600), gcTime: .seconds(60), retry: .none, clock: clock)
    let registry = SharedRegistry.current
    let nextPage: @Sendable ([Int], Int) -> Int? = { _, id in id < 5 ? id + 1 : nil }
    let query: Query<PaginatedState<Int, [Int]>> = .paginatedQuery(
      ["pages"], initialPage: 0, nextPage: nextPage, options: options
    ) { (id: Int) -> [Int] in
      if id == 0 {
        firstPageFetches.increment()
        if let gate = gate.withLock({ $0 }) { await gate.wait() }
      }
      return [id]
    }
    let feed = Shared(wrappedValue: PaginatedState<Int, [Int]>(), query)
    await waitForSuccess(feed)
    let held = Gate()
    gate.withLock { $0 = held }
    registry.queries.invalidate(matching: ["pages"])  // Refetches every page; held at page 0.
    await waitUntil { firstPageFetches.count == 2 }
    _ = try await feed.fetchNextPage()?.value
    #expect(feed.wrappedValue.pages == [[0], [1]])
    held.open()
    await waitUntil { feed.wrappedValue.isSuccess && firstPageFetches.count == 2 }
    await waitForSuccess(feed)
    #expect(feed.wrappedValue.pages == [[0], [1]])
  }

  @Test func aRegistryAndItsQueriesAreFreedTogether() async {
    let clock = ManualClock()
    weak var weakStore: QueryStore?
    weak var weakRegistry: SharedRegistry?
    do {
      let registry = SharedRegistry()
      weakRegistry = registry
      await SharedRegistry.$current.withValue(registry) {
        weakStore = registry.queries
        let options = QueryOptions(gcTime: .seconds(60), retry: .none, clock: clock)
        let holder = Shared(wrappedValue: OperationState<String>(), .query(["scoped"], options: options) { "x" })
        await waitForSuccess(holder)
      }
    }
    await waitUntil { weakRegistry == nil && weakStore == nil }
    #expect(weakRegistry == nil)
    #expect(weakStore == nil)
  }
}
