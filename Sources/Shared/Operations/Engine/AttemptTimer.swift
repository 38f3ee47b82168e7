/// An attempt's timeout, waiting on the options' clock: on the system clocks and on a ``ManualClock`` a timer with
/// no task of its own (``DeadlineQueue``, ``ManualClock/startTimer(after:waitingFor:_:)``), on any other clock a task
/// that sleeps.
enum AttemptTimer: Sendable {
  case queued(DeadlineQueue<ContinuousClock>, UInt64)
  case queuedSuspending(DeadlineQueue<SuspendingClock>, UInt64)
  case manual(ManualClock, UInt64)
  case sleeping(Task<Void, Never>)

  /// Calls `action` once `duration` has passed on `clock`, unless the timer is cancelled first.
  static func start(
    after duration: Duration,
    on clock: any Clock<Duration>,
    _ action: @escaping @Sendable () -> Void
  ) -> AttemptTimer {
    if clock is ContinuousClock {
      return .queued(continuousDeadlines, continuousDeadlines.start(after: duration, action))
    }
    if clock is SuspendingClock {
      return .queuedSuspending(suspendingDeadlines, suspendingDeadlines.start(after: duration, action))
    }
    if let clock = clock as? ManualClock {
      return .manual(clock, clock.startTimer(after: duration, waitingFor: .attemptTimeout, action))
    }
    return .sleeping(
      Task {
        do {
          try await clock.sleep(for: duration, waitingFor: .attemptTimeout)
          action()
        } catch {}
      })
  }

  /// Stops the timer: its action is not called, if it was not already.
  func cancel() {
    switch self {
    case .queued(let queue, let id): queue.cancel(id)
    case .queuedSuspending(let queue, let id): queue.cancel(id)
    case .manual(let clock, let id): clock.cancelTimer(id)
    case .sleeping(let task): task.cancel()
    }
  }
}

/// The timers of the attempts on the continuous clock (the options' default), made on first use.
private let continuousDeadlines = DeadlineQueue(clock: ContinuousClock())
/// The timers of the attempts on the suspending clock.
private let suspendingDeadlines = DeadlineQueue(clock: SuspendingClock())
