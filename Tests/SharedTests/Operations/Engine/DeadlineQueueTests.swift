import TestSupport
import Testing

@testable import SharedState

/// The timers of one system clock, served by one sleeping task: each is called once its deadline has passed, in
/// deadline order, unless cancelled. The deadlines here are short; no outcome depends on how long anything took.
@Suite struct DeadlineQueueTests {
  @Test func aTimerIsCalledOnceItsDeadlineHasPassed() async {
    let queue = DeadlineQueue(clock: ContinuousClock())
    let start = ContinuousClock.now
    let called = Gate()
    let at = Collector<ContinuousClock.Instant>()
    _ = queue.start(after: .milliseconds(1)) {
      at.append(.now)
      called.open()
    }
    await called.wait()
    #expect(at.elements.count == 1)
    #expect(at.elements.allSatisfy { start.duration(to: $0) >= .milliseconds(1) })
  }

  @Test func aCancelledTimerIsNeverCalledAndTheNextOneIs() async {
    let queue = DeadlineQueue(clock: ContinuousClock())
    let calls = Collector<String>()
    let later = Gate()
    let cancelled = queue.start(after: .milliseconds(1)) { calls.append("cancelled") }
    queue.cancel(cancelled)
    _ = queue.start(after: .milliseconds(2)) {
      calls.append("later")
      later.open()
    }
    await later.wait()
    // The cancelled deadline came first: had it not been cancelled, it would have been called before this one.
    #expect(calls.elements == ["later"])
  }

  @Test func anEarlierDeadlineThanTheOneSleptUntilIsNotLate() async {
    let queue = DeadlineQueue(clock: ContinuousClock())
    let calls = Collector<String>()
    let early = Gate()
    let hour = queue.start(after: .seconds(3_600)) { calls.append("hour") }
    _ = queue.start(after: .milliseconds(1)) {
      calls.append("early")
      early.open()
    }
    await early.wait()  // Would wait an hour if the queue still slept until the first deadline.
    queue.cancel(hour)
    #expect(calls.elements == ["early"])
  }

  @Test func timersAreCalledInDeadlineOrder() async {
    let queue = DeadlineQueue(clock: ContinuousClock())
    let calls = Collector<Int>()
    let last = Gate()
    for milliseconds in [3, 1, 2] {
      _ = queue.start(after: .milliseconds(milliseconds)) {
        calls.append(milliseconds)
        if milliseconds == 3 { last.open() }
      }
    }
    await last.wait()
    #expect(calls.elements == [1, 2, 3])
  }

  @Test func manyCancelledTimersLeaveTheLiveOnesCalled() async {
    let queue = DeadlineQueue(clock: ContinuousClock())
    let calls = Counter()
    let done = Gate()
    // Enough cancelled entries for the queue to drop them while the long timer sleeps at the top.
    let hour = queue.start(after: .seconds(3_600)) { calls.increment() }
    for _ in 0..<5_000 { queue.cancel(queue.start(after: .seconds(60)) { calls.increment() }) }
    _ = queue.start(after: .milliseconds(1)) {
      calls.increment()
      done.open()
    }
    await done.wait()
    queue.cancel(hour)
    #expect(calls.count == 1)
  }
}
