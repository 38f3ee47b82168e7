import Synchronization

/// An attempt racing its timeout. The first to finish settles the attempt and cancels the other, without waiting
/// for it: an operation that ignores cancellation cannot hold a timed-out attempt.
final class TimeoutRace<Success: Sendable>: Sendable {
  private let state = Lock<State>(State())

  private struct State {
    var continuation: UnsafeContinuation<Success, any Error>?
    var result: Result<Success, any Error>?
    var tasks: [Task<Void, Never>] = []
  }

  func start(
    _ continuation: UnsafeContinuation<Success, any Error>,
    operation: Task<Void, Never>,
    timer: Task<Void, Never>
  ) {
    let settled = state.withLock { state -> Result<Success, any Error>? in
      if let result = state.result { return result }
      state.continuation = continuation
      state.tasks = [operation, timer]
      return nil
    }
    if let settled {
      operation.cancel()
      timer.cancel()
      continuation.resume(with: settled)
    }
  }

  func finish(_ result: Result<Success, any Error>) {
    let (continuation, tasks) = state.withLock {
      state -> (UnsafeContinuation<Success, any Error>?, [Task<Void, Never>]) in
      guard state.result == nil else { return (nil, []) }
      state.result = result
      defer {
        state.continuation = nil
        state.tasks = []
      }
      return (state.continuation, state.tasks)
    }
    for task in tasks { task.cancel() }
    continuation?.resume(with: result)
  }
}
