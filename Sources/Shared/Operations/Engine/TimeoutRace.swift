import Synchronization

/// An attempt racing its timeout. The first to finish settles the attempt and cancels the other, without waiting
/// for it: an operation that ignores cancellation cannot hold a timed-out attempt.
///
/// The work runs in a task of its own; the timer is an ``AttemptTimer`` (no task on the system clocks or a
/// ``ManualClock``), so an attempt with a timeout makes one task, and one without none.
final class TimeoutRace<Success: Sendable>: Sendable {
  private let state = Lock<State>(State())

  private struct State {
    var continuation: UnsafeContinuation<Success, any Error>?
    var result: Result<Success, any Error>?
    var work: Task<Void, Never>?
    var timer: AttemptTimer?
  }

  /// Starts the race once the caller waits on `continuation`: the timer first, then the work (an attempt whose
  /// timer is already there when its work starts cannot miss it). A race settled before (the caller cancelled)
  /// resumes at once and starts nothing.
  func start(
    _ continuation: UnsafeContinuation<Success, any Error>,
    timeout: Duration,
    on clock: any Clock<Duration>,
    work: @escaping @Sendable () async throws -> Success
  ) {
    let settled = state.withLock { state -> Result<Success, any Error>? in
      if let result = state.result { return result }
      state.continuation = continuation
      return nil
    }
    if let settled {
      continuation.resume(with: settled)
      return
    }
    let timer = AttemptTimer.start(after: timeout, on: clock) { [self] in
      finish(.failure(OperationTimeoutError(timeout: timeout)))
    }
    let task = Task {
      do {
        finish(.success(try await work()))
      } catch {
        finish(.failure(error))
      }
    }
    // The race may have settled meanwhile (the timer, the work, the caller's cancellation): then whatever is left
    // running is stopped here, since `finish` found nothing to stop.
    let running = state.withLock { state -> Bool in
      guard state.result == nil else { return false }
      state.work = task
      state.timer = timer
      return true
    }
    if !running {
      task.cancel()
      timer.cancel()
    }
  }

  /// Settles the race with `result`, if nothing settled it before: resumes the caller and stops the work and the
  /// timer.
  func finish(_ result: Result<Success, any Error>) {
    let (continuation, work, timer) = state.withLock {
      state -> (UnsafeContinuation<Success, any Error>?, Task<Void, Never>?, AttemptTimer?) in
      guard state.result == nil else { return (nil, nil, nil) }
      state.result = result
      defer {
        state.continuation = nil
        state.work = nil
        state.timer = nil
      }
      return (state.continuation, state.work, state.timer)
    }
    work?.cancel()
    timer?.cancel()
    continuation?.resume(with: result)
  }
}
