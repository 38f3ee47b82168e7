import Foundation
import Synchronization
import TestSupport
import Testing

@testable import SharedState

@Suite(.freshRegistry) struct DebounceTests {
  @Test func rapidTriggersRunOnceAfterTheQuietInterval() async throws {
    let clock = ManualClock()
    let search = Shared(value: OperationState<String>())
    let runs = Collector<String>()
    let settled = Collector<String>()
    var tasks: [OperationTask<String>] = []
    for query in ["s", "sw", "swi"] {
      tasks.append(
        search.run(.clock(clock), policy: .debounce(.milliseconds(300))) {
          runs.append(query)
          return "results for \(query)"
        } onSettled: { result in
          settled.append((try? result.get()) ?? "coalesced")
        })
    }
    await clock.waitForSleepers(3)
    clock.advance(by: .milliseconds(299))
    #expect(runs.elements.isEmpty)
    clock.advance(by: .milliseconds(1))
    #expect(try await tasks[2].value == "results for swi")
    for task in tasks.prefix(2) { _ = await task.result }
    #expect(runs.elements == ["swi"])
    #expect(settled.elements.filter { $0 == "coalesced" }.count == 2)
    #expect(search.wrappedValue.value == "results for swi")
  }
}

@Suite(.freshRegistry) struct RerunTriggerTests {
  @Test func aTriggerRefetchesOnlyHeldStaleQueries() async {
    let clock = ManualClock()
    let fetches = Counter()
    let (triggers, trigger) = AsyncStream<Void>.makeStream()
    let registry = SharedRegistry.current
    let options = QueryOptions(
      staleTime: .seconds(10), gcTime: .seconds(60), operation: OperationOptions(retry: .none, clock: clock))
    let held = Shared(
      wrappedValue: OperationState<Int>(),
      .query(["reconnect"], options: options) {
        fetches.increment()
      })
    var values = held.values.makeAsyncIterator()
    while let state = await values.next(), !state.status.isSuccess {}
    let subscription = registry.queries.refetchStale(on: triggers)
    #expect(registry.queries.refetchStale(matching: []) == 0)  // Fresh: nothing to do.
    clock.advance(by: .seconds(10))
    trigger.yield()
    await waitUntil { fetches.count == 2 }
    subscription.cancel()
    trigger.finish()
    #expect(fetches.count == 2)
  }
}

@Suite(.freshRegistry) struct MutationTests {
  @Test func aMutationKeepsABoundedHistoryAndInvalidatesQueries() async throws {
    let clock = ManualClock()
    let fetches = Counter()
    let registry = SharedRegistry.current
    let options = QueryOptions(
      staleTime: .seconds(60), gcTime: .seconds(60), operation: OperationOptions(retry: .none, clock: clock))
    let todos = Shared(
      wrappedValue: OperationState<Int>(),
      .query(["todos"], options: options) {
        fetches.increment()
      })
    var values = todos.values.makeAsyncIterator()
    while let state = await values.next(), !state.status.isSuccess {}
    @Shared(.inMemory("add")) var add = MutationState<String, Int>(historyLimit: 2)
    let other = Shared(wrappedValue: MutationState<String, Int>(historyLimit: 2), .inMemory("add"))
    let events = Collector<String>()
    for title in ["a", "b", "c"] {
      let task = $add.mutate(title, invalidates: [["todos"]]) { title in
        title.count
      } onSuccess: { _ in
        events.append("success \(other.wrappedValue.history.last?.status == .success)")
      }
      _ = try await task.value
    }
    _ = await $add.mutate("fails") { _ in throw TestFailure() }.result
    #expect(add.history.map(\.arguments) == ["c", "fails"])
    #expect(other.wrappedValue.history.map(\.status) == [.success, .error])
    #expect(other.wrappedValue.history.allSatisfy { $0.endedAt != nil })
    #expect(events.elements == ["success true", "success true", "success true"])
    await waitUntil { fetches.count == 4 }  // The first fetch, then one per successful mutation.
    _ = registry
  }
}

@Suite(.freshRegistry) struct PaginationTests {
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
    let second = feed.fetchNextPage()
    let third = feed.fetchNextPage()
    _ = try await second?.value
    _ = try await third?.value
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

  @Test func pageFunctionsAreOnlyForPaginatedQueries() {
    let plain = Shared(value: PaginatedState<Int, [Int]>())
    #expect(plain.fetchNextPage().map { _ in true } == nil)
  }
}
