/// What a task of the framework waits for when it sleeps on a clock: a ``ManualClock`` in a test tells its sleepers
/// apart by it (``ManualClock/sleepers``, ``ManualClock/waitForSleepers(_:waitingFor:)``).
///
/// ```swift
/// await clock.waitForSleepers(waitingFor: .retryBackoff)   // the fetch failed and waits for its retry
/// clock.advance(by: .seconds(1))
/// ```
public enum ClockWait: String, Sendable, CaseIterable {
  /// The store's garbage check: unused queries are collected after their `gcTime`.
  case garbageCheck
  /// A query's `refetchInterval`.
  case refetchInterval
  /// The wait before an operation's or a fetch's next attempt (``RetryPolicy``).
  case retryBackoff
  /// An attempt's timeout (``OperationOptions/timeout``).
  case attemptTimeout
  /// A debounced run's quiet period.
  case debounce
  /// The mutation queue's wait before it tries a refused entry again.
  case queueRetry
  /// The persisted query cache's throttle between writes.
  case cacheThrottle
  /// A file key's poll for changes made outside the program.
  case filePoll
  /// A key's delay before it saves (a save schedule).
  case saveDelay

  /// The wait of the calling task, while it sleeps through ``Clock/sleep(for:waitingFor:)``.
  @TaskLocal static var current: ClockWait?
}

extension Clock {
  /// Sleeps for `duration`, telling a ``ManualClock`` what the sleep waits for.
  func sleep(for duration: Duration, waitingFor wait: ClockWait) async throws {
    try await ClockWait.$current.withValue(wait) {
      try await sleep(until: now.advanced(by: duration), tolerance: nil)
    }
  }
}
