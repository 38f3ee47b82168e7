import Foundation
import Synchronization
import TestSupport
import Testing

@testable import SharedState

/// Calls `onRelease` from its `deinit`: a value that reads its own shared value when the library lets it go.
private final class ReadsOnRelease: Sendable {
  let name: String
  private let onRelease: @Sendable () -> Void

  init(_ name: String, onRelease: @escaping @Sendable () -> Void) {
    self.name = name
    self.onRelease = onRelease
  }

  deinit { onRelease() }
}

/// Where a value that reads on release finds the shared value it reads, once that exists.
private final class ReadTarget<State: Sendable>: Sendable {
  private let target = Lock<Shared<State>?>(nil)
  let reads = Counter()

  func set(_ shared: Shared<State>) {
    target.withLock { $0 = shared }
  }

  /// A value whose release reads the target (and would stop the program if that happened under its lock).
  func value(_ name: String) -> ReadsOnRelease {
    ReadsOnRelease(name) { [self] in
      if let shared = target.withLock({ $0 }) {
        _ = shared.wrappedValue
        reads.increment()
      }
    }
  }
}

/// Waits until the query shows a success with no fetch in flight (a refetch keeps the status success).
private func waitForSuccess<State: OperationTrackable>(_ shared: Shared<State>) async {
  var values = shared.values.makeAsyncIterator()
  while let state = await values.next(), !state.operation.status.isSuccess || state.operation.isFetching {}
}

private func options() -> QueryOptions {
  QueryOptions(
    staleTime: .seconds(600), gcTime: .seconds(60), operation: OperationOptions(retry: .none, clock: ManualClock()))
}

/// Each test would stop the program with "Recursive call to lock Mutex" if the library released a value it
/// replaces while holding that value's lock.
@Suite(.freshRegistry) struct QueryReleaseTests {
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
    await waitForSuccess(feed)
    _ = try await feed.fetchNextPage()?.value
    _ = try await feed.refetchAll()?.value
    #expect(feed.wrappedValue.pages.map(\.name) == ["page 0 fetch 3", "page 1 fetch 4"])
    #expect(target.reads.count == 2)
  }

  @Test func aMutationHistoryReleasesTheRunsItDropsAfterTheLock() async throws {
    let target = ReadTarget<MutationState<ReadsOnRelease, Int>>()
    let mutation = Shared(value: MutationState<ReadsOnRelease, Int>(historyLimit: 1))
    target.set(mutation)
    for name in ["first", "second", "third"] {
      _ = try await mutation.mutate(target.value(name)) { _ in 1 }.value
    }
    await waitUntil { target.reads.count == 2 }
    #expect(mutation.wrappedValue.history.map(\.arguments.name) == ["third"])
  }

  @Test func updateReleasesTheValueItReplacesAfterTheLock() async {
    let target = ReadTarget<OperationState<ReadsOnRelease>>()
    let registry = SharedRegistry.current
    let query: Query<OperationState<ReadsOnRelease>> = .query(["edited"], options: options()) {
      target.value("fetched")
    }
    let held = Shared(wrappedValue: OperationState<ReadsOnRelease>(), query)
    target.set(held)
    await waitForSuccess(held)
    #expect(registry.queries.update(["edited"], as: OperationState<ReadsOnRelease>.self) { $0.value = nil })
    #expect(target.reads.count == 1)
    let replaced = registry.queries.update(["edited"], as: OperationState<ReadsOnRelease>.self) {
      $0.value = target.value("edited")
    }
    #expect(replaced)
    let cleared = registry.queries.update(["edited"], as: OperationState<ReadsOnRelease>.self) { $0.value = nil }
    #expect(cleared)
    #expect(target.reads.count == 2)
  }
}
