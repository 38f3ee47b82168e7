import TestSupport
import Testing

@testable import SharedState

/// A query's fetches run with the same operation options as a run: retries, and a timeout for each attempt.
@Suite(.freshRegistry) struct QueryOptionsTests {
  @Test func aFetchThatOutlivesItsTimeoutFailsWithTheNamedError() async {
    let clock = ManualClock()
    let gate = Gate()
    let options = QueryOptions(gcTime: .seconds(60), operation: .timeout(.seconds(5)).clock(clock))
    let held = Shared(
      wrappedValue: OperationState<Int>(),
      .query(["slow"], options: options) {
        await gate.wait()
        return 1
      })
    #expect(held.wrappedValue.status == .pending)
    await clock.waitForSleepers(2)  // The garbage check and the fetch's timeout.
    clock.advance(by: .seconds(4))
    #expect(held.wrappedValue.status == .pending)
    clock.advance(by: .seconds(1))
    await waitUntil { held.wrappedValue.status == .error }
    #expect(held.wrappedValue.error as? OperationTimeoutError == OperationTimeoutError(timeout: .seconds(5)))
    #expect(held.wrappedValue.value == nil)
    gate.open()
  }

  @Test func aTimedOutAttemptIsRetriedLikeAnyFailure() async {
    let clock = ManualClock()
    let gate = Gate()
    let calls = Counter()
    let options = QueryOptions(
      gcTime: .seconds(60), operation: .timeout(.seconds(5)).retry(.constant(retries: 1, delay: .zero)).clock(clock))
    let held = Shared(
      wrappedValue: OperationState<Int>(),
      .query(["slow-then-fast"], options: options) {
        if calls.increment() == 1 { await gate.wait() }
        return 7
      })
    await clock.waitForSleepers(2)  // The garbage check and the first attempt's timeout.
    clock.advance(by: .seconds(5))
    await waitUntil { held.wrappedValue.status == .success }
    #expect(held.wrappedValue.value == 7)
    #expect(held.wrappedValue.attempt == 2)
    #expect(calls.count == 2)
    gate.open()
  }

  @Test func theDefaultOperationRetriesThreeTimesAndKeepsItsRetriesWhenATimeoutIsAdded() {
    #expect(QueryOptions().operation.retry.retries == 3)
    let options = QueryOptions(operation: QueryOptions.defaultOperation.timeout(.seconds(10)))
    #expect(options.operation.retry.retries == 3)
    #expect(options.operation.timeout == .seconds(10))
  }
}
