import Foundation
import Synchronization
import TestSupport
import Testing

@testable import SharedState

/// A fetcher that records the attempt number of every fetch and fails until a given attempt.
private final class FlakyFetcher: Sendable {
  struct Failure: Error, Equatable {
    let attempt: Int
  }

  let attempts = Collector<Int>()
  /// The first attempt that succeeds; `nil`: every attempt fails.
  private let succeedsFrom = Lock<Int?>(nil)

  /// Makes the fetches that start from now on succeed from attempt `attempt` on (`nil`: never).
  func succeed(from attempt: Int?) {
    succeedsFrom.withLock { $0 = attempt }
  }

  func fetch(_ context: OperationContext<String>) async throws -> String {
    attempts.append(context.attempt)
    if let from = succeedsFrom.withLock({ $0 }), context.attempt >= from { return "attempt \(context.attempt)" }
    throw Failure(attempt: context.attempt)
  }
}

/// Retries of queries: they stop when nobody holds the query or awaits it, the state shows each failure as it
/// happens, and a retry policy's decision and backoff see the failure count. Time moves only on a `ManualClock`.
extension QueryFetchExecutorTests {
  /// A query named `key` of `fetcher`, retried by `retry` on `clock`, collected after `gcTime` unused (the garbage
  /// check sleeps on `clock` too, a quarter of `gcTime` at a time: by default 150 s, never due in these tests).
  private func query(
    _ fetcher: FlakyFetcher,
    key: QueryKey = ["post"],
    retry: RetryPolicy = .constant(retries: 3, delay: .seconds(30)),
    gcTime: Duration = .seconds(600),
    clock: ManualClock
  ) -> Query<OperationState<String>> {
    let options = QueryOptions(
      staleTime: .seconds(60), gcTime: gcTime, operation: OperationOptions(retry: retry, clock: clock))
    return .query(key, options: options) { context in try await fetcher.fetch(context) }
  }

  /// Waits until the fetch sleeps in a retry's backoff (one sleeper besides the garbage check).
  private func waitForBackoff(_ clock: ManualClock) async {
    await clock.waitForSleepers(waitingFor: .retryBackoff)
    await clock.waitForSleepers(waitingFor: .garbageCheck)
  }

  /// Moves `clock` on one second at a time until the store collected `key`, for at most `seconds`; returns whether
  /// it did. The store collects only a record with no fetch under way, so a collected query is one whose fetch
  /// ended (a query still retrying is never collected).
  private func advanceUntilCollected(
    _ key: QueryKey,
    store: QueryStore,
    clock: ManualClock,
    seconds: Int = 20
  ) async -> Bool {
    for _ in 0..<seconds {
      await waitUntil { !store.contains(key) || clock.sleeperCount >= 1 }
      if !store.contains(key) { return true }
      clock.advance(by: .seconds(1))
    }
    return !store.contains(key)
  }

  @Test func aQueryWhoseHolderLeavesDuringTheBackoffDoesNotFetchAgain() async {
    let clock = ManualClock()
    let fetcher = FlakyFetcher()
    let store = SharedRegistry.current.queries
    let query = self.query(fetcher, gcTime: .seconds(4), clock: clock)  // Garbage checks every second.
    var holder: Shared<OperationState<String>>? = Shared(wrappedValue: OperationState<String>(), query)
    await waitForBackoff(clock)
    #expect(holder?.wrappedValue.failureCount == 1)
    holder = nil  // The last holder leaves while the retry waits.
    clock.advance(by: .seconds(30))  // The backoff ends: nobody needs the retry.
    // Ended (not retrying, which a record that is never collected would be), after one fetch only.
    #expect(await advanceUntilCollected(["post"], store: store, clock: clock))
    #expect(fetcher.attempts.elements == [1])
  }

  @Test func aQueryNobodyHoldsStopsRetryingAtItsFirstFailure() async {
    let clock = ManualClock()
    let fetcher = FlakyFetcher()
    let store = SharedRegistry.current.queries
    store.prefetch(self.query(fetcher, gcTime: .seconds(4), clock: clock))  // No holder, and no caller awaits it.
    await waitUntil { fetcher.attempts.elements.count == 1 }
    // Ended without waiting a backoff of 30 s (the test moves time 20 s at most), after one fetch only.
    #expect(await advanceUntilCollected(["post"], store: store, clock: clock))
    #expect(fetcher.attempts.elements == [1])
  }

  @Test func aQueryWithAHolderRetriesAndShowsEachFailureMeanwhile() async throws {
    let clock = ManualClock()
    let fetcher = FlakyFetcher()
    fetcher.succeed(from: 2)
    let query = self.query(fetcher, clock: clock)
    let holder = Shared(wrappedValue: OperationState<String>(), query)
    await waitForBackoff(clock)
    // A first load that failed once and waits to retry: still loading, with the failure shown.
    #expect(holder.wrappedValue.status == .pending)
    #expect(holder.wrappedValue.isFetching)
    #expect(holder.wrappedValue.failureCount == 1)
    #expect(holder.wrappedValue.failureReason as? FlakyFetcher.Failure == FlakyFetcher.Failure(attempt: 1))
    #expect(holder.wrappedValue.error == nil)  // Not failed for good.
    clock.advance(by: .seconds(30))
    var values = holder.values.makeAsyncIterator()
    while let state = await values.next(), !state.status.isSuccess || state.isFetching {}
    #expect(fetcher.attempts.elements == [1, 2])
    #expect(holder.wrappedValue.value == "attempt 2")
    #expect(holder.wrappedValue.failureCount == 0)  // A success resets the failures.
    #expect(holder.wrappedValue.failureReason == nil)
  }

  @Test func anAwaitingCallerKeepsRetriesGoingWithoutAHolder() async throws {
    let clock = ManualClock()
    let fetcher = FlakyFetcher()
    fetcher.succeed(from: 3)
    let query = self.query(fetcher, clock: clock)
    let store = SharedRegistry.current.queries
    let caller = Task { try await store.fetch(query) }
    for retry in 1...2 {
      await waitForBackoff(clock)
      #expect(fetcher.attempts.elements.count == retry)
      clock.advance(by: .seconds(30))
    }
    #expect(try await caller.value == "attempt 3")
    #expect(fetcher.attempts.elements == [1, 2, 3])
  }

  @Test func aBackgroundRefetchThatRetriesKeepsTheValueAndItsStatus() async throws {
    let clock = ManualClock()
    let fetcher = FlakyFetcher()
    fetcher.succeed(from: 1)
    let query = self.query(fetcher, clock: clock)
    let holder = Shared(wrappedValue: OperationState<String>(), query)
    var values = holder.values.makeAsyncIterator()
    while let state = await values.next(), !state.status.isSuccess || state.isFetching {}
    fetcher.succeed(from: 2)
    holder.refetch()
    await waitForBackoff(clock)
    // A refetch is not a load: the value and its status stay while it retries; the failure shows beside them.
    #expect(holder.wrappedValue.value == "attempt 1")
    #expect(holder.wrappedValue.status == .success)
    #expect(holder.wrappedValue.isFetching)
    #expect(holder.wrappedValue.failureCount == 1)
    clock.advance(by: .seconds(30))
    while let state = await values.next(), state.value != "attempt 2" || state.isFetching {}
    #expect(holder.wrappedValue.status == .success)
    #expect(holder.wrappedValue.failureCount == 0)
  }

  @Test func theRetryDecisionSeesTheFailureCountAndTheBackoffIsTheQueryOwn() async throws {
    let clock = ManualClock()
    let fetcher = FlakyFetcher()
    let decisions = Collector<Int>()
    let policy = RetryPolicy(
      retries: 5,
      backoff: { retry in .seconds(10 * retry) },  // 10 s, then 20 s.
      shouldRetry: { _, failureCount in
        decisions.append(failureCount)
        return failureCount < 3
      })
    let query = self.query(fetcher, retry: policy, clock: clock)
    let holder = Shared(wrappedValue: OperationState<String>(), query)
    await waitForBackoff(clock)
    clock.advance(by: .seconds(9))
    #expect(clock.sleepers.map(\.wait) == [.retryBackoff, .garbageCheck])  // 9 s of a 10 s backoff: still waiting.
    #expect(fetcher.attempts.elements == [1])
    clock.advance(by: .seconds(1))
    await waitUntil { fetcher.attempts.elements.count == 2 }
    await waitForBackoff(clock)
    clock.advance(by: .seconds(19))
    #expect(clock.sleepers.map(\.wait) == [.retryBackoff, .garbageCheck])  // 19 s of a 20 s backoff.
    #expect(fetcher.attempts.elements == [1, 2])
    clock.advance(by: .seconds(1))
    var values = holder.values.makeAsyncIterator()
    while let state = await values.next(), !state.status.isError || state.isFetching {}
    // The third failure is not retried: the policy saw counts 1, 2 and 3.
    #expect(decisions.elements == [1, 2, 3])
    #expect(fetcher.attempts.elements == [1, 2, 3])
    #expect(holder.wrappedValue.failureCount == 3)
    #expect(holder.wrappedValue.error as? FlakyFetcher.Failure == FlakyFetcher.Failure(attempt: 3))
    #expect(holder.wrappedValue.failureReason as? FlakyFetcher.Failure == FlakyFetcher.Failure(attempt: 3))
  }

  @Test func aFailedFetchIsRetriedShowingEachAttemptAndAThrownCancellationIsAFailureNotRetried() async {
    let clock = ManualClock()
    let attempts = Counter()
    let retry = RetryPolicy.exponential(retries: 2, initial: .seconds(1), multiplier: 2, maxDelay: .seconds(4))
    let options = QueryOptions(
      staleTime: .seconds(600), gcTime: .seconds(60), operation: OperationOptions(retry: retry, clock: clock))
    let query: Query<OperationState<String>> = .query(["retried"], options: options) {
      if attempts.increment() < 3 { throw TestFailure() }
      return "ok"
    }
    let held = Shared(wrappedValue: OperationState<String>(), query)
    for attempt in 1...2 {
      await clock.waitForSleepers(waitingFor: .retryBackoff)
      await clock.waitForSleepers(waitingFor: .garbageCheck)
      #expect(attempts.count == attempt)
      #expect(clock.sleepers.map(\.wait) == [.retryBackoff, .garbageCheck])
      #expect(held.wrappedValue.attempt == attempt)
      #expect(held.wrappedValue.status == .pending)
      clock.advance(by: .seconds(4))
    }
    await waitForSettledSuccess(held)
    #expect(held.wrappedValue.value == "ok")
    #expect(held.wrappedValue.attempt == 3)
    let cancels = Counter()
    let cancelling: Query<OperationState<String>> = .query(["cancelling"], options: options) {
      cancels.increment()
      throw CancellationError()
    }
    let other = Shared(wrappedValue: OperationState<String>(), cancelling)
    await waitUntil { cancels.count == 1 && other.wrappedValue.status != .pending }
    #expect(clock.sleepers.map(\.wait) == [.garbageCheck])  // The store's one garbage check; no retry wait.
    #expect(cancels.count == 1)
    // Not cancelled by anyone: a failure like any other error, as for operation runs.
    #expect(other.wrappedValue.status == .error)
    #expect(other.wrappedValue.error is CancellationError)
  }
}
