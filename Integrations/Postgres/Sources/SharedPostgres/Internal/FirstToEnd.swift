import Synchronization

/// Resumes one waiter with the outcome of whichever of two tasks ends first (some work, or a timer), exactly once.
final class FirstToEnd: Sendable {
  private struct State {
    var waiter: CheckedContinuation<Bool, Never>?
    var timer: Task<Void, Never>?
  }

  private let state = Mutex(State())

  /// The waiter to resume.
  func start(_ waiter: CheckedContinuation<Bool, Never>) {
    state.withLock { $0.waiter = waiter }
  }

  /// The timer task, cancelled by ``cancelTimer()``.
  func timer(_ task: Task<Void, Never>) {
    state.withLock { $0.timer = task }
  }

  /// Resumes the waiter with `outcome`, unless it was resumed already.
  func end(returning outcome: Bool) {
    let waiter = state.withLock { $0.waiter.take() }
    waiter?.resume(returning: outcome)
  }

  /// Stops the timer (the work ended first).
  func cancelTimer() {
    let timer = state.withLock { $0.timer.take() }
    timer?.cancel()
  }
}
