import Synchronization
import TestSupport
import Testing

@testable import SharedState

/// The one way to say retries: how many, the wait before each (any function of the retry number), and which
/// failures are worth it (seeing how many there were).
@Suite(.freshRegistry) struct RetryPolicyTests {
  @Test func exponentialBackoffGrowsUpToTheCap() {
    let policy = RetryPolicy.exponential(
      retries: 6, initial: .milliseconds(100), multiplier: 2, maxDelay: .milliseconds(500))
    let delays = (1...5).map { policy.backoff($0) }
    #expect(
      delays == [.milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(500), .milliseconds(500)])
  }

  @Test func jitterRemovesAtMostItsFractionDrawnFromTheRandomSource() {
    func policy(random: Double) -> RetryPolicy {
      .exponential(
        retries: 3, initial: .seconds(1), multiplier: 2, maxDelay: .seconds(30), jitter: 0.5, random: { random })
    }
    #expect(policy(random: 0).backoff(1) == .seconds(1))
    #expect(policy(random: 0.5).backoff(1) == .milliseconds(750))
    #expect(policy(random: 0.5).backoff(2) == .milliseconds(1_500))
    #expect(policy(random: 0.999).backoff(1) > .milliseconds(500))
    #expect(policy(random: 0.999).backoff(1) < .milliseconds(501))
  }

  @Test func thePublicJitterStaysWithinItsFraction() {
    let policy = RetryPolicy.exponential(retries: 3, initial: .seconds(1), jitter: 0.5)
    for _ in 0..<100 {
      let delay = policy.backoff(1)
      #expect(delay > .milliseconds(500) && delay <= .seconds(1))
    }
  }

  @Test func constantAndNone() {
    #expect(RetryPolicy.none.retries == 0)
    let policy = RetryPolicy.constant(retries: 2, delay: .seconds(3))
    #expect(policy.retries == 2)
    #expect((1...4).map { policy.backoff($0) } == Array(repeating: .seconds(3), count: 4))
    #expect(policy.shouldRetry(TestFailure(), 1))
  }

  @Test func aCustomBackoffFunctionSetsEveryWait() async throws {
    let clock = ManualClock()
    let post = Shared(value: OperationState<Int>())
    let calls = Counter()
    let asked = Collector<Int>()
    let policy = RetryPolicy(
      retries: 3,
      backoff: { retry in
        asked.append(retry)
        return .seconds(retry * 10)
      })
    let task = post.run(.retry(policy).clock(clock)) {
      if calls.increment() < 4 { throw TestFailure() }
      return 4
    }
    for (retry, wait) in [(1, 10), (2, 20), (3, 30)] {
      await clock.waitForSleepers()
      #expect(calls.count == retry)
      clock.advance(by: .seconds(wait - 1))
      #expect(calls.count == retry)  // Not a second early.
      clock.advance(by: .seconds(1))
      await waitUntil { calls.count == retry + 1 }
    }
    #expect(try await task.value == 4)
    #expect(asked.elements == [1, 2, 3])
  }

  @Test func shouldRetrySeesEachFailureWithItsCount() async {
    let post = Shared(value: OperationState<Int>())
    let seen = Collector<Int>()
    let calls = Counter()
    // Retries allow up to 5; the decision stops after the third failure.
    let policy = RetryPolicy(
      retries: 5,
      shouldRetry: { error, failureCount in
        seen.append(failureCount)
        return error is TestFailure && failureCount < 3
      })
    let task = post.run(.retry(policy)) {
      calls.increment()
      throw TestFailure()
    }
    await #expect(throws: TestFailure.self) { try await task.value }
    #expect(seen.elements == [1, 2, 3])
    #expect(calls.count == 3)
    #expect(post.wrappedValue.attempt == 3)
  }

  @Test func shouldRetryIsNotAskedOnceTheRetriesAreUsedUp() async {
    let post = Shared(value: OperationState<Int>())
    let seen = Collector<Int>()
    let task = post.run(
      .retry(
        RetryPolicy(
          retries: 2,
          shouldRetry: { _, failureCount in
            seen.append(failureCount)
            return true
          }))
    ) {
      throw TestFailure()
    }
    _ = await task.result
    #expect(seen.elements == [1, 2])
  }

  @Test func anErrorShouldRetryRefusesEndsTheRunAtOnce() async {
    let post = Shared(value: OperationState<Int>())
    let calls = Counter()
    let policy = RetryPolicy(retries: 3, shouldRetry: { error, _ in !(error is TestFailure) })
    let task = post.run(.retry(policy)) {
      calls.increment()
      throw TestFailure(code: 9)
    }
    await #expect(throws: TestFailure(code: 9)) { try await task.value }
    #expect(calls.count == 1)
    #expect(post.wrappedValue.status == .error)
  }
}
