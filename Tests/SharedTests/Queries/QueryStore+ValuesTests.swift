import Foundation
import Synchronization
import TestSupport
import Testing

@testable import SharedState

/// A fetcher that counts its fetches, can be held at a gate, and can fail.
private final class ValueFetcher: Sendable {
  struct Failure: Error, Equatable {}

  let fetches = Counter()
  let cancellations = Counter()
  private let gate = Lock<Gate?>(nil)
  private let failing = Lock(false)

  /// Holds the fetches that start from now on until the returned gate opens.
  func hold() -> Gate {
    let held = Gate()
    gate.withLock { $0 = held }
    return held
  }

  /// Lets the fetches that start from now on return at once.
  func release() {
    gate.withLock { $0 = nil }
  }

  /// Makes the fetches that start from now on fail.
  func fail() {
    failing.withLock { $0 = true }
  }

  func fetch() async throws -> String {
    let number = fetches.increment()
    if let gate = gate.withLock({ $0 }) { await gate.wait() }
    if failing.withLock({ $0 }) { throw Failure() }
    return "fetch \(number)"
  }

  /// A fetch that waits on `clock` until cancelled (a backend that never answers).
  func hang(on clock: ManualClock) async throws -> String {
    fetches.increment()
    do {
      try await clock.sleep(for: .seconds(3_600))
    } catch {
      cancellations.increment()
      throw error
    }
    return "never"
  }
}

/// Awaiting a query's value without a holder or a loop over its values: at once when fresh, after a fetch when
/// stale or missing; prefetching, ensuring, and reading cached values.
@Suite(.freshRegistry) struct QueryStoreValuesTests {
  private func query(
    _ fetcher: ValueFetcher,
    key: QueryKey = ["post"],
    clock: ManualClock,
    staleTime: Duration = .seconds(10)
  ) -> Query<OperationState<String>> {
    .query(key, options: queryStoreOptions(clock, staleTime: staleTime)) { try await fetcher.fetch() }
  }

  @Test func aMissingValueIsFetchedAndAFreshOneReturnsWithoutAFetch() async throws {
    let clock = ManualClock()
    let fetcher = ValueFetcher()
    let store = SharedRegistry.current.queries
    #expect(try await store.fetch(query(fetcher, clock: clock)) == "fetch 1")
    clock.advance(by: .seconds(9))
    #expect(try await store.fetch(query(fetcher, clock: clock)) == "fetch 1")
    #expect(fetcher.fetches.count == 1)
  }

  @Test func aStaleOrInvalidatedValueIsFetchedAgain() async throws {
    let clock = ManualClock()
    let fetcher = ValueFetcher()
    let store = SharedRegistry.current.queries
    #expect(try await store.fetch(query(fetcher, clock: clock)) == "fetch 1")
    clock.advance(by: .seconds(10))  // staleTime: stale from here.
    #expect(try await store.fetch(query(fetcher, clock: clock)) == "fetch 2")
    store.invalidate(matching: ["post"])
    #expect(try await store.fetch(query(fetcher, clock: clock)) == "fetch 3")
    #expect(fetcher.fetches.count == 3)
  }

  @Test func servingStaleReturnsTheStaleValueAtOnceAndRefetchesInTheBackground() async throws {
    let clock = ManualClock()
    let fetcher = ValueFetcher()
    let store = SharedRegistry.current.queries
    #expect(try await store.fetch(query(fetcher, clock: clock), servingStale: true) == "fetch 1")  // Nothing cached.
    clock.advance(by: .seconds(11))
    let gate = fetcher.hold()
    #expect(try await store.fetch(query(fetcher, clock: clock), servingStale: true) == "fetch 1")
    await waitUntil { fetcher.fetches.count == 2 }  // The background refetch runs, held at the gate.
    gate.open()
    await waitUntil { store.cachedValue(for: ["post"], as: String.self) == "fetch 2" }
    #expect(try await store.fetch(query(fetcher, clock: clock)) == "fetch 2")  // Fresh now.
    #expect(fetcher.fetches.count == 2)
  }

  @Test func ensureValueReturnsACachedValueWhateverItsAgeAndFetchesOnlyAMissingOne() async throws {
    let clock = ManualClock()
    let fetcher = ValueFetcher()
    let store = SharedRegistry.current.queries
    #expect(try await store.ensureValue(query(fetcher, clock: clock)) == "fetch 1")
    clock.advance(by: .seconds(3_600))
    store.invalidate(matching: ["post"])
    #expect(try await store.ensureValue(query(fetcher, clock: clock)) == "fetch 1")
    #expect(fetcher.fetches.count == 1)
  }

  @Test func prefetchStartsAFetchOfAMissingOrStaleValueAndReturnsAtOnce() async throws {
    let clock = ManualClock()
    let fetcher = ValueFetcher()
    let store = SharedRegistry.current.queries
    let gate = fetcher.hold()
    store.prefetch(query(fetcher, clock: clock))  // Returns while the fetch is held.
    #expect(store.contains(["post"]))
    await waitUntil { fetcher.fetches.count == 1 }
    store.prefetch(query(fetcher, clock: clock))  // Joins the fetch under way.
    gate.open()
    #expect(try await store.fetch(query(fetcher, clock: clock)) == "fetch 1")  // Joins it too.
    store.prefetch(query(fetcher, clock: clock))  // Fresh: left alone.
    #expect(fetcher.fetches.count == 1)
    clock.advance(by: .seconds(10))
    store.prefetch(query(fetcher, clock: clock))
    await waitUntil { store.cachedValue(for: ["post"], as: String.self) == "fetch 2" }
    #expect(fetcher.fetches.count == 2)
  }

  @Test func cachedValuesAreReadByKeyAndByPrefixWithoutFetching() async throws {
    let clock = ManualClock()
    let fetcher = ValueFetcher()
    let store = SharedRegistry.current.queries
    #expect(store.cachedValue(for: ["posts", 1], as: String.self) == nil)
    _ = try await store.fetch(query(fetcher, key: ["posts", 1], clock: clock))
    _ = try await store.fetch(query(fetcher, key: ["posts", 2], clock: clock))
    _ = try await store.fetch(query(fetcher, key: ["users", 1], clock: clock))
    let gate = fetcher.hold()
    store.prefetch(query(fetcher, key: ["posts", 3], clock: clock))  // No value yet: left out.
    await waitUntil { fetcher.fetches.count == 4 }
    #expect(store.cachedValue(for: ["posts", 2], as: String.self) == "fetch 2")
    #expect(store.cachedValue(for: ["posts", 2], as: Int.self) == nil)  // Another type.
    let posts = store.cachedValues(matching: ["posts"], as: String.self).sorted { $0.value < $1.value }
    #expect(posts.map(\.key) == [["posts", 1], ["posts", 2]])
    #expect(posts.map(\.value) == ["fetch 1", "fetch 2"])
    #expect(store.cachedValues(matching: [], as: String.self).count == 3)
    #expect(fetcher.fetches.count == 4)
    gate.open()
  }

  @Test func aFailedFetchThrowsItsError() async throws {
    let clock = ManualClock()
    let fetcher = ValueFetcher()
    fetcher.fail()
    let store = SharedRegistry.current.queries
    await #expect(throws: ValueFetcher.Failure.self) { try await store.fetch(query(fetcher, clock: clock)) }
    #expect(store.cachedValue(for: ["post"], as: String.self) == nil)
  }

  @Test func aCancelledSoleCallerThrowsCancellationErrorAndCancelsTheFetch() async throws {
    let clock = ManualClock()
    let fetcher = ValueFetcher()
    let store = SharedRegistry.current.queries
    let query: Query<OperationState<String>> = .query(["post"], options: queryStoreOptions(clock)) {
      try await fetcher.hang(on: clock)
    }
    let caller = Task { try await store.fetch(query) }
    await waitUntil { fetcher.fetches.count == 1 }
    caller.cancel()
    await #expect(throws: CancellationError.self) { try await caller.value }
    await waitUntil { fetcher.cancellations.count == 1 }  // Nobody else needed it.
  }

  @Test func aCancelledCallerLeavesTheFetchToAHolderThatNeedsIt() async throws {
    let clock = ManualClock()
    let fetcher = ValueFetcher()
    let store = SharedRegistry.current.queries
    let gate = fetcher.hold()
    let cancelled = Task { try await store.fetch(query(fetcher, clock: clock)) }
    await waitUntil { fetcher.fetches.count == 1 }
    let holder = Shared(wrappedValue: OperationState<String>(), query(fetcher, clock: clock))  // Joins the fetch.
    cancelled.cancel()
    await #expect(throws: CancellationError.self) { try await cancelled.value }
    gate.open()
    await waitUntil { holder.wrappedValue.value == "fetch 1" }
    #expect(fetcher.fetches.count == 1)
  }

  @Test func aCallerAfterTheFetchWasCancelledGetsAFetchOfItsOwn() async throws {
    let clock = ManualClock()
    let fetcher = ValueFetcher()
    let store = SharedRegistry.current.queries
    let gate = fetcher.hold()  // The fetch ignores cancellation: it ends only when the gate opens.
    let cancelled = Task { try await store.fetch(query(fetcher, clock: clock)) }
    await waitUntil { fetcher.fetches.count == 1 }
    cancelled.cancel()
    await #expect(throws: CancellationError.self) { try await cancelled.value }
    let later = Task { try await store.fetch(query(fetcher, clock: clock)) }  // Waits for the cancelled one.
    gate.open()
    #expect(try await later.value == "fetch 2")
    #expect(fetcher.fetches.count == 2)
  }

  @Test func aHundredConcurrentCallersOfAColdKeyCauseOneFetch() async throws {
    let clock = ManualClock()
    let fetcher = ValueFetcher()
    let store = SharedRegistry.current.queries
    let gate = fetcher.hold()
    let values = try await withThrowingTaskGroup(of: String.self) { group in
      for _ in 0..<100 {
        group.addTask { try await store.fetch(self.query(fetcher, clock: clock)) }
      }
      await waitUntil { fetcher.fetches.count == 1 }
      gate.open()
      return try await group.reduce(into: [String]()) { $0.append($1) }
    }
    #expect(values == Array(repeating: "fetch 1", count: 100))
    #expect(fetcher.fetches.count == 1)
  }

  @Test func aQueryFetchedWithoutAHolderIsKeptWhileItFetchesThenCollectedAfterGCTime() async throws {
    let clock = ManualClock()
    let fetcher = ValueFetcher()
    let registry = SharedRegistry.current
    let gate = fetcher.hold()
    let caller = Task { try await registry.queries.fetch(query(fetcher, clock: clock)) }
    await waitUntil { fetcher.fetches.count == 1 }
    // Checks run every gcTime / 4 = 15 s: far more than a gcTime passes while the fetch runs.
    for _ in 0..<8 {
      await clock.waitForSleepers(1)
      clock.advance(by: .seconds(15))
    }
    await clock.waitForSleepers(1)
    #expect(registry.queries.contains(["post"]))
    gate.open()
    #expect(try await caller.value == "fetch 1")
    for _ in 0..<4 {
      await clock.waitForSleepers(1)
      clock.advance(by: .seconds(15))
    }
    await clock.waitForSleepers(1)
    #expect(registry.queries.contains(["post"]))  // Not before a whole gcTime unused.
    clock.advance(by: .seconds(15))
    await waitUntil { !registry.queries.contains(["post"]) }
    #expect(registry.count == 0)
  }

  @Test func aHolderSharesTheValueTheStoreFetched() async throws {
    let clock = ManualClock()
    let fetcher = ValueFetcher()
    let store = SharedRegistry.current.queries
    _ = try await store.fetch(query(fetcher, clock: clock))
    let holder = Shared(wrappedValue: OperationState<String>(), query(fetcher, clock: clock))
    #expect(holder.wrappedValue.value == "fetch 1")
    #expect(holder.wrappedValue.status == .success)
    #expect(fetcher.fetches.count == 1)
  }

  @Test func fetchValueOnAHolderReturnsItsQuerysValue() async throws {
    let clock = ManualClock()
    let fetcher = ValueFetcher()
    let holder = Shared(wrappedValue: OperationState<String>(), query(fetcher, clock: clock))
    #expect(try await holder.fetchValue() == "fetch 1")  // Joins the fetch the holder started.
    #expect(try await holder.fetchValue() == "fetch 1")  // Fresh.
    clock.advance(by: .seconds(10))
    #expect(try await holder.fetchValue(servingStale: true) == "fetch 1")
    await waitUntil { holder.wrappedValue.value == "fetch 2" && holder.wrappedValue.status == .success }
    #expect(fetcher.fetches.count == 2)
    let plain = Shared(wrappedValue: OperationState<String>(value: "plain"), .inMemory("plain"))
    #expect(try await plain.fetchValue() == nil)  // Not a query.
  }

  @Test func aValueResetByTheAppIsFetchedAgain() async throws {
    let clock = ManualClock()
    let fetcher = ValueFetcher()
    let store = SharedRegistry.current.queries
    _ = try await store.fetch(query(fetcher, clock: clock))
    store.update(["post"], as: OperationState<String>.self) { $0 = OperationState() }
    #expect(try await store.fetch(query(fetcher, clock: clock)) == "fetch 2")
  }

  @Test func aHolderStillGetsARefreshWhenTheCallerWhoAskedForItCancels() async throws {
    let clock = ManualClock()
    let calls = Counter()
    let gate = Gate()
    let options = QueryOptions(staleTime: .zero, gcTime: .seconds(60), operation: .retry(.none).clock(clock))
    let query: Query<OperationState<Int>> = .query(["held"], options: options) {
      let call = calls.increment()
      if call == 2 { await gate.wait() }
      return call
    }
    let holder = Shared(wrappedValue: OperationState<Int>(), query)
    await waitUntil { holder.wrappedValue.value == 1 && !holder.wrappedValue.isFetching }
    let caller = Task { try await holder.fetchValue() }  // Stale: a refresh, which the holder needs too.
    await waitUntil { calls.count == 2 }
    caller.cancel()
    await #expect(throws: CancellationError.self) { try await caller.value }
    gate.open()
    // The cancelled refresh ends (for a moment the value is not fetching), then the holder's starts and ends.
    await waitUntil { calls.count == 3 && !holder.wrappedValue.isFetching }
    // The caller's refresh was cancelled with it; the holder, which shows the stale value, gets another.
    #expect(holder.wrappedValue.value == 3)
    #expect(calls.count == 3)
  }
}
