import Foundation
import Synchronization
import TestSupport
import Testing

@testable import SharedState

/// Invalidations that land while a fetch runs: the value a held query ends on was fetched after the last of them.
extension QueryStoreTests {
  @Test func anInvalidationDuringAFetchIsNotUndoneByIt() async {
    let clock = ManualClock()
    let serverVersion = Lock(1)
    let gate = Lock<Gate?>(nil)
    let fetches = Counter()
    let options = QueryOptions(
      staleTime: .seconds(600), gcTime: .seconds(60), operation: OperationOptions(retry: .none, clock: clock))
    let registry = SharedRegistry.current
    let query: Query<OperationState<String>> = .query(["versioned"], options: options) {
      let version = serverVersion.withLock { $0 }
      fetches.increment()
      if let gate = gate.withLock({ $0 }) { await gate.wait() }
      return "v\(version)"
    }
    let first = Shared(wrappedValue: OperationState<String>(), query)
    await waitForSettledSuccess(first)
    let held = Gate()
    gate.withLock { $0 = held }
    first.refetch()
    await waitUntil { fetches.count == 2 }  // In flight, having read version 1.
    serverVersion.withLock { $0 = 2 }
    registry.queries.invalidate(matching: ["versioned"])
    gate.withLock { $0 = nil }
    held.open()
    await waitUntil { first.wrappedValue.value == "v2" && first.wrappedValue.status.isSuccess }
    #expect(fetches.count == 3)
    let later = Shared(wrappedValue: OperationState<String>(), query)  // Fresh now: no fetch.
    #expect(later.wrappedValue.value == "v2")
    #expect(fetches.count == 3)
  }

  @Test func threeInvalidationsDuringOneRefetchEndOnAValueFetchedAfterTheLast() async {
    let clock = ManualClock()
    let serverVersion = Lock(1)
    let gate = Lock<Gate?>(nil)
    let fetches = Counter()
    let options = QueryOptions(
      staleTime: .seconds(600), gcTime: .seconds(60), operation: OperationOptions(retry: .none, clock: clock))
    let registry = SharedRegistry.current
    let query: Query<OperationState<String>> = .query(["thrice"], options: options) {
      let version = serverVersion.withLock { $0 }
      fetches.increment()
      if let gate = gate.withLock({ $0 }) { await gate.wait() }
      return "v\(version)"
    }
    let held = Shared(wrappedValue: OperationState<String>(), query)
    await waitForSettledSuccess(held)
    var current = Gate()
    gate.withLock { $0 = current }
    held.refetch()
    for version in 2...4 {
      await waitUntil { fetches.count == version }  // In flight, having read version - 1.
      serverVersion.withLock { $0 = version }
      registry.queries.invalidate(matching: ["thrice"])
      let next = Gate()
      gate.withLock { $0 = version == 4 ? nil : next }
      current.open()
      current = next
    }
    await waitForSettledSuccess(held)
    #expect(held.wrappedValue.value == "v4")
    #expect(fetches.count == 5)
  }

  @Test func aQueryInvalidatedDuringEveryFetchShowsEachFetchedValue() async {
    let version = Lock(1)
    let gate = Lock(Gate())
    let fetches = Counter()
    let registry = SharedRegistry.current
    let options = QueryOptions(
      staleTime: .seconds(600), gcTime: .seconds(60), operation: OperationOptions(retry: .none, clock: ManualClock()))
    let query: Query<OperationState<String>> = .query(["restless"], options: options) {
      let read = version.withLock { $0 }
      fetches.increment()
      await gate.withLock { $0 }.wait()
      return "v\(read)"
    }
    let held = Shared(wrappedValue: OperationState<String>(), query)
    for round in 1...2 {
      await waitUntil { fetches.count == round }  // In flight, having read version `round`.
      version.withLock { $0 = round + 1 }
      registry.queries.invalidate(matching: ["restless"])
      let current = gate.withLock { gate in
        defer { gate = Gate() }
        return gate
      }
      current.open()
      await waitUntil { fetches.count == round + 1 }
      // The value fetched before the invalidation shows while the next fetch runs.
      #expect(held.wrappedValue.value == "v\(round)")
      #expect(held.wrappedValue.status == .success)
      #expect(held.wrappedValue.isFetching)
    }
    gate.withLock { $0 }.open()
    await waitForSettledSuccess(held)
    #expect(held.wrappedValue.value == "v3")
    #expect(fetches.count == 3)
  }

  @Test func cancellingARefetchThatAnInvalidationJoinedStillRefreshesTheHeldQuery() async throws {
    let version = Lock(1)
    let gate = Lock<Gate?>(nil)
    let fetches = Counter()
    let registry = SharedRegistry.current
    let options = QueryOptions(
      staleTime: .seconds(600), gcTime: .seconds(60), operation: OperationOptions(retry: .none, clock: ManualClock()))
    let nextPage: @Sendable (VersionedPage, Int) -> Int? = { _, id in id < 1 ? id + 1 : nil }
    let query: Query<PaginatedState<Int, VersionedPage>> = .paginatedQuery(
      ["joined"], initialPage: 0, nextPage: nextPage, options: options
    ) { (id: Int) -> VersionedPage in
      let page = VersionedPage(id: id, version: version.withLock { $0 })
      fetches.increment()
      if let gate = gate.withLock({ $0 }) { await gate.wait() }
      return page
    }
    let feed = Shared(wrappedValue: PaginatedState<Int, VersionedPage>(), query)
    await waitForSettledSuccess(feed)
    let held = Gate()
    gate.withLock { $0 = held }
    let next = feed.fetchNextPage()  // Runs, held at the gate.
    await waitUntil { fetches.count == 2 }
    let refetch = feed.refetchAll()  // Waits behind the page.
    version.withLock { $0 = 2 }
    registry.queries.invalidate(matching: ["joined"])  // Served by the refetch that waits.
    refetch?.cancel()  // Its caller leaves; the invalidation still needs it.
    gate.withLock { $0 = nil }
    held.open()
    _ = try await next?.value
    await waitUntil { feed.wrappedValue.status.isSuccess && feed.wrappedValue.pages.allSatisfy { $0.version == 2 } }
    #expect(feed.wrappedValue.pages.map(\.version) == [2, 2])
  }
}

private struct VersionedPage: Sendable, Equatable {
  let id: Int
  let version: Int
}
