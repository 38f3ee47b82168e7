import TestSupport
import Testing

@testable import SharedState

/// The clock tests hand to the framework: time moves only when the test moves it.
@Suite struct ManualClockTests {
  @Test func timeMovesOnlyWhenAdvanced() {
    let clock = ManualClock()
    let start = clock.now
    #expect(clock.now == start)
    clock.advance(by: .seconds(3))
    #expect(start.duration(to: clock.now) == .seconds(3))
    clock.advance(to: start)  // an instant that has passed: nothing moves
    #expect(start.duration(to: clock.now) == .seconds(3))
  }

  @Test func aTimerIsASleeperThatCallsItsActionWhenItsDeadlineComes() {
    let clock = ManualClock()
    let calls = Counter()
    _ = clock.startTimer(after: .seconds(2), waitingFor: .attemptTimeout) { calls.increment() }
    #expect(clock.sleepers.map(\.wait) == [.attemptTimeout])
    clock.advance(by: .seconds(1))
    #expect(calls.count == 0)
    clock.advance(by: .seconds(1))
    #expect(calls.count == 1)
    #expect(clock.sleeperCount == 0)
  }

  @Test func aCancelledTimerIsNeverCalled() {
    let clock = ManualClock()
    let calls = Counter()
    let timer = clock.startTimer(after: .seconds(2), waitingFor: .attemptTimeout) { calls.increment() }
    clock.cancelTimer(timer)
    #expect(clock.sleeperCount == 0)
    clock.advance(by: .seconds(5))
    #expect(calls.count == 0)
  }

  @Test func aTimerSatisfiesTheWaitersForSleepers() async {
    let clock = ManualClock()
    let waiter = Task { await clock.waitForSleepers(waitingFor: .attemptTimeout) }
    _ = clock.startTimer(after: .seconds(1), waitingFor: .attemptTimeout) {}
    await waiter.value
    #expect(clock.sleeperCount == 1)
  }

  @Test func aSleeperWakesWhenItsDeadlineComesAndNotBefore() async throws {
    let clock = ManualClock()
    let woke = Counter()
    let sleeper = Task {
      try await clock.sleep(for: .seconds(2))
      _ = woke.increment()
    }
    await clock.waitForSleepers(1)
    clock.advance(by: .seconds(1))
    #expect(clock.sleeperCount == 1)
    #expect(woke.count == 0)
    clock.advance(by: .seconds(1))
    try await sleeper.value
    #expect(woke.count == 1)
    #expect(clock.sleeperCount == 0)
  }

  @Test func oneAdvancePastSeveralDeadlinesWakesEverySleeperDue() async throws {
    let clock = ManualClock()
    let order = Collector<Int>()
    let late = Task {
      try await clock.sleep(for: .seconds(5))
      order.append(5)
    }
    await clock.waitForSleepers(1)
    let early = Task {
      try await clock.sleep(for: .seconds(1))
      order.append(1)
    }
    await clock.waitForSleepers(2)
    clock.advance(by: .seconds(10))
    try await early.value
    try await late.value
    #expect(Set(order.elements) == [1, 5])
    #expect(clock.sleeperCount == 0)
  }

  @Test func aCancelledSleeperThrowsAndLeavesTheClock() async {
    let clock = ManualClock()
    let sleeper = Task { try await clock.sleep(for: .seconds(1)) }
    await clock.waitForSleepers(1)
    sleeper.cancel()
    await #expect(throws: CancellationError.self) { try await sleeper.value }
    #expect(clock.sleeperCount == 0)
  }

  @Test func aDeadlineThatHasPassedReturnsAtOnce() async throws {
    let clock = ManualClock()
    clock.advance(by: .seconds(5))
    try await clock.sleep(until: clock.now.advanced(by: .seconds(-1)))
    #expect(clock.sleeperCount == 0)
  }

  /// A sleeper the framework makes says what it waits for, and a test can wait for that one alone: here a program's
  /// own sleep (no wait named) sleeps first, and only the second sleeper, a debounce, ends the wait for a debounce.
  @Test func aTestWaitsForTheSleeperOfTheKindItNames() async throws {
    let clock = ManualClock()
    let own = Task { try await clock.sleep(until: clock.now.advanced(by: .seconds(5))) }
    await clock.waitForSleepers()
    let debounce = Task { try await clock.sleep(for: .seconds(1), waitingFor: .debounce) }
    await clock.waitForSleepers(waitingFor: .debounce)
    #expect(clock.sleepers.map(\.wait) == [.debounce, nil])  // Earliest first.
    #expect(clock.sleepers.map(\.deadline.offset) == [.seconds(1), .seconds(5)])
    clock.advance(by: .seconds(5))
    try await debounce.value
    try await own.value
    #expect(clock.sleepers.isEmpty)
  }
}
