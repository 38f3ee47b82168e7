/// Time since a moment, on some clock.
///
/// One object per record (the clock and the start instant together), whose identity tells one start from another.
@usableFromInline
struct Stopwatch: Sendable {
  /// A class, not a protocol: a reference of one word, kept by every cached query.
  private let start: StopwatchStart

  init(_ clock: any Clock<Duration>) {
    // The continuous clock, every query's default, is read without generic code: an awaited fresh value reads it.
    if type(of: clock) == ContinuousClock.self {
      self.start = ContinuousStart(instant: .now)
      return
    }
    func start<C: Clock<Duration>>(_ clock: C) -> StopwatchStart {
      ClockStart(clock: clock, instant: clock.now)
    }
    self.start = start(clock)
  }

  /// The time since the start; reads the clock (the caller's code: outside any lock).
  func elapsed() -> Duration {
    start.elapsed()
  }

  /// Whether both measure from the same start.
  func isSame(as other: Stopwatch) -> Bool {
    start === other.start
  }
}

/// A start instant on some clock. Its subclasses are immutable, so it is sendable.
private class StopwatchStart: @unchecked Sendable {
  /// The time since the start.
  func elapsed() -> Duration {
    preconditionFailure("a subclass measures the time")
  }
}

private final class ClockStart<C: Clock<Duration>>: StopwatchStart, @unchecked Sendable {
  let clock: C
  let instant: C.Instant

  init(clock: C, instant: C.Instant) {
    self.clock = clock
    self.instant = instant
  }

  override func elapsed() -> Duration {
    instant.duration(to: clock.now)
  }
}

private final class ContinuousStart: StopwatchStart, @unchecked Sendable {
  let instant: ContinuousClock.Instant

  init(instant: ContinuousClock.Instant) {
    self.instant = instant
  }

  override func elapsed() -> Duration {
    instant.duration(to: .now)
  }
}
