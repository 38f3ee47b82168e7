import Foundation
import Synchronization
import TestSupport
import Testing

@testable import SharedState

@Suite(.freshRegistry) struct AttemptLoopTests {
  @Test func retriesUntilSuccessWithTheAttemptInTheState() async throws {
    let clock = ManualClock()
    let post = Shared(value: OperationState<Int>())
    let calls = Counter()
    let attempts = Collector<Int>()
    let token = post.observe { attempts.append($0.attempt) }
    let events = Collector<String>()
    let task = post.run(.retry(.constant(retries: 3, delay: .seconds(1))).clock(clock)) {
      if calls.increment() < 3 { throw TestFailure() }
      return 3
    } onSuccess: { _ in
      events.append("success")
    } onError: { _ in
      events.append("error")
    }
    await clock.waitForSleepers()
    #expect(calls.count == 1)
    clock.advance(by: .seconds(1))
    await waitUntil { calls.count == 2 }
    await clock.waitForSleepers()
    clock.advance(by: .seconds(1))
    #expect(try await task.value == 3)
    #expect(calls.count == 3)
    #expect(events.elements == ["success"])
    #expect(post.wrappedValue.attempt == 3)
    #expect(attempts.elements.contains(2))
    token.cancel()
  }

  @Test func aRunShowsEachFailureWhileItWaitsToRetryAndStaysPending() async throws {
    let clock = ManualClock()
    let post = Shared(value: OperationState<Int>())
    let calls = Counter()
    let task = post.run(.retry(.constant(retries: 1, delay: .seconds(1))).clock(clock)) {
      if calls.increment() < 2 { throw TestFailure() }
      return 2
    }
    await clock.waitForSleepers()
    // A run keeps its semantics: pending while it runs, and fetching exactly then; the failure shows beside it.
    #expect(post.wrappedValue.status == .pending && post.wrappedValue.isFetching)
    #expect(post.wrappedValue.failureCount == 1 && post.wrappedValue.failureReason is TestFailure)
    #expect(post.wrappedValue.error == nil)
    clock.advance(by: .seconds(1))
    #expect(try await task.value == 2)
    #expect(post.wrappedValue.status == .success && !post.wrappedValue.isFetching)
    #expect(post.wrappedValue.failureCount == 0 && post.wrappedValue.failureReason == nil)
  }

  @Test func exhaustedRetriesFailOnce() async {
    let clock = ManualClock()
    let post = Shared(value: OperationState<Int>())
    let calls = Counter()
    let errors = Counter()
    let task = post.run(.retry(.constant(retries: 2, delay: .zero)).clock(clock)) {
      calls.increment()
      throw TestFailure()
    } onError: { _ in
      errors.increment()
    }
    _ = await task.result
    #expect(calls.count == 3)
    #expect(errors.count == 1)
    #expect(post.wrappedValue.attempt == 3)
    #expect(post.wrappedValue.status == .error)
    #expect(post.wrappedValue.failureCount == 3)  // Every failed attempt, the last one included.
  }

  @Test func theRetryWaitUsesTheInjectedClock() async throws {
    let clock = ManualClock()
    let post = Shared(value: OperationState<Int>())
    let calls = Counter()
    let task = post.run(.retry(.exponential(retries: 2, initial: .seconds(2))).clock(clock)) {
      if calls.increment() == 1 { throw TestFailure() }
      return 1
    }
    await clock.waitForSleepers()
    clock.advance(by: .milliseconds(1_999))
    #expect(calls.count == 1)
    clock.advance(by: .milliseconds(1))
    #expect(try await task.value == 1)
  }

  @Test func aTimedOutAttemptFailsWithANamedError() async {
    let clock = ManualClock()
    let post = Shared(value: OperationState<Int>())
    let gate = Gate()
    let task = post.run(.timeout(.seconds(5)).clock(clock)) {
      await gate.wait()
      return 1
    }
    await clock.waitForSleepers()
    clock.advance(by: .seconds(5))
    await #expect(throws: OperationTimeoutError(timeout: .seconds(5))) { try await task.value }
    #expect(post.wrappedValue.error is OperationTimeoutError)
    gate.open()
  }

  @Test func anAttemptsTimeoutIsRunningBeforeItsWorkStarts() async throws {
    let clock = ManualClock()
    let post = Shared(value: OperationState<Int>())
    let timersSeen = Collector<Int>()
    let task = post.run(.timeout(.seconds(5)).clock(clock)) {
      timersSeen.append(clock.sleepers.count { $0.wait == .attemptTimeout })
      return 1
    }
    #expect(try await task.value == 1)
    #expect(timersSeen.elements == [1])
    #expect(clock.sleeperCount == 0)  // The timer of an attempt that ended is gone.
  }

  @Test func aTimeoutOnTheContinuousClockFailsAnAttemptThatIgnoresCancellation() async {
    let post = Shared(value: OperationState<Int>())
    let gate = Gate()
    let task = post.run(.timeout(.milliseconds(1))) {
      await gate.wait()
      return 1
    }
    await #expect(throws: OperationTimeoutError(timeout: .milliseconds(1))) { try await task.value }
    gate.open()
  }

  @Test func aTimeoutOnAClockOfTheAppsOwnFailsTheAttempt() async {
    let manual = ManualClock()
    let clock = AppClock(manual: manual)
    let post = Shared(value: OperationState<Int>())
    let gate = Gate()
    let task = post.run(.timeout(.seconds(5)).clock(clock)) {
      await gate.wait()
      return 1
    }
    await manual.waitForSleepers(waitingFor: .attemptTimeout)
    manual.advance(by: .seconds(5))
    await #expect(throws: OperationTimeoutError(timeout: .seconds(5))) { try await task.value }
    gate.open()
  }

  @Test func anAttemptThatEndsFirstStopsItsTimerOnAClockOfTheAppsOwn() async throws {
    let manual = ManualClock()
    let post = Shared(value: OperationState<Int>())
    let task = post.run(.timeout(.seconds(5)).clock(AppClock(manual: manual))) { 1 }
    #expect(try await task.value == 1)
    await waitUntil { manual.sleeperCount == 0 }  // The timer's sleep is cancelled.
  }
}

/// A clock the framework knows nothing of (its timeouts sleep in a task), moved by a ``ManualClock``.
private struct AppClock: Clock {
  let manual: ManualClock

  var now: ManualClock.Instant { manual.now }
  var minimumResolution: Duration { .zero }

  func sleep(until deadline: ManualClock.Instant, tolerance: Duration?) async throws {
    try await manual.sleep(until: deadline, tolerance: tolerance)
  }
}
