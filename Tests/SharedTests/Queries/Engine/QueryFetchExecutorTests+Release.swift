import Foundation
import Synchronization
import TestSupport
import Testing

@testable import SharedState

private func options() -> QueryOptions {
  QueryOptions(
    staleTime: .seconds(600), gcTime: .seconds(60), operation: OperationOptions(retry: .none, clock: ManualClock()))
}

/// Each test would stop the program with "Recursive call to lock Mutex" if the library released a value it
/// replaces while holding that value's lock.
extension QueryFetchExecutorTests {
  @Test func aYieldedValueIsReleasedAfterTheLock() async {
    let target = ReadTarget<OperationState<ReadsOnRelease>>()
    let gates = [Gate(), Gate(), Gate()]
    let query: Query<OperationState<ReadsOnRelease>> = .query(["yields"], options: options()) { context in
      await gates[0].wait()
      context.yield(target.value("first"))
      await gates[1].wait()
      context.yield(target.value("second"))
      await gates[2].wait()
      return target.value("final")
    }
    let held = Shared(wrappedValue: OperationState<ReadsOnRelease>(), query)
    target.set(held)
    // No iteration of `values` here: its buffer would keep the replaced value past the lock.
    gates[0].open()
    await waitUntil { held.wrappedValue.value?.name == "first" }
    gates[1].open()
    await waitUntil { held.wrappedValue.value?.name == "second" }
    #expect(target.reads.count == 1)
    gates[2].open()
    await waitUntil { held.wrappedValue.status.isSuccess }
    #expect(held.wrappedValue.value?.name == "final")
    #expect(target.reads.count == 2)
  }

  @Test func aRefetchedValueReleasesTheOldOneAfterTheLock() async {
    let target = ReadTarget<OperationState<ReadsOnRelease>>()
    let fetches = Counter()
    let query: Query<OperationState<ReadsOnRelease>> = .query(["refetched"], options: options()) {
      target.value("fetch \(fetches.increment())")
    }
    let held = Shared(wrappedValue: OperationState<ReadsOnRelease>(), query)
    target.set(held)
    await waitUntil { held.wrappedValue.status.isSuccess }
    held.refetch()
    await waitUntil { held.wrappedValue.value?.name == "fetch 2" && held.wrappedValue.status.isSuccess }
    #expect(target.reads.count == 1)
  }

  @Test func refetchedPagesReleaseTheOldOnesAfterTheLock() async throws {
    let target = ReadTarget<PaginatedState<Int, ReadsOnRelease>>()
    let fetches = Counter()
    let nextPage: @Sendable (ReadsOnRelease, Int) -> Int? = { _, id in id < 1 ? id + 1 : nil }
    let query: Query<PaginatedState<Int, ReadsOnRelease>> = .paginatedQuery(
      ["paged"], initialPage: 0, nextPage: nextPage, options: options()
    ) { (id: Int) -> ReadsOnRelease in
      target.value("page \(id) fetch \(fetches.increment())")
    }
    let feed = Shared(wrappedValue: PaginatedState<Int, ReadsOnRelease>(), query)
    target.set(feed)
    await waitForSettledSuccess(feed)
    _ = try await feed.fetchNextPage()?.value
    _ = try await feed.refetchAll()?.value
    #expect(feed.wrappedValue.pages.map(\.name) == ["page 0 fetch 3", "page 1 fetch 4"])
    #expect(target.reads.count == 2)
  }
}
