import Reactive

/// One unit of work on a query (a refresh or a page fetch): the turn it waits for and the result its callers wait
/// for.
///
/// Its ``QueryRecordMachine`` decides when the turn comes; this object only carries the signal to the waiting task
/// and the result to everyone who joined.
final class QueryWork<Success: Sendable>: Sendable {
  private let state = Lock(State())

  private struct State: ~Copyable {
    var turn = Turn.waiting(nil)
    var result: Result<Success, any Error>?
    var waiters: [UnsafeContinuation<Result<Success, any Error>, Never>] = []
    var task: Task<Void, Never>?
    var isCancelled = false
  }

  private enum Turn {
    case waiting(UnsafeContinuation<Void, Never>?)
    case given
  }

  init() {}

  /// Lets the waiting task start.
  func giveTurn() {
    let waiter = state.withLock { state -> UnsafeContinuation<Void, Never>? in
      guard case .waiting(let waiter) = state.turn else { return nil }
      state.turn = .given
      return waiter
    }
    waiter?.resume()
  }

  /// Returns once ``giveTurn()`` was called.
  func waitForTurn() async {
    await withUnsafeContinuation { continuation in
      let given = state.withLock { state -> Bool in
        guard case .waiting = state.turn else { return true }
        state.turn = .waiting(continuation)
        return false
      }
      if given { continuation.resume() }
    }
  }

  /// The task that performs the work, cancelled by ``cancel()``.
  func attach(_ task: Task<Void, Never>) {
    let cancels = state.withLock { state -> Bool in
      state.task = task
      return state.isCancelled
    }
    if cancels { task.cancel() }
  }

  /// Cancels the work: one that waits for its turn settles as cancelled when the turn comes; a running fetch is
  /// cancelled.
  func cancel() {
    let task = state.withLock { state -> Task<Void, Never>? in
      state.isCancelled = true
      return state.task
    }
    task?.cancel()
  }

  /// Settles the work and resumes everyone waiting for it.
  func finish(_ result: Result<Success, any Error>) {
    let waiters = state.withLock { state in
      state.result = result
      state.task = nil
      defer { state.waiters = [] }
      return state.waiters
    }
    for waiter in waiters { waiter.resume(returning: result) }
  }

  /// Waits for the work's result.
  func result() async -> Result<Success, any Error> {
    await withUnsafeContinuation { continuation in
      let ready = state.withLock { state -> Result<Success, any Error>? in
        if let result = state.result { return result }
        state.waiters.append(continuation)
        return nil
      }
      if let ready { continuation.resume(returning: ready) }
    }
  }
}
