import Synchronization

/// A deadline passed before the operation it bounded finished.
struct DeadlinePassed: Error {}

/// Runs `operation` in a task of its own and returns what it returns, or throws ``DeadlinePassed`` when it has not
/// finished within `limit`. The operation is then cancelled and left behind, not awaited: a statement on a half-open
/// connection never ends (closing the connection is what ends it), and postgres-nio does not end a request sent on a
/// closed connection. A cancellation of the caller cancels the operation and throws `CancellationError` at once.
func withDeadline<Value: Sendable>(
  _ limit: Duration, _ operation: @escaping @Sendable () async throws -> Value
) async throws -> Value {
  let race = DeadlineRace<Value>()
  return try await withTaskCancellationHandler {
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
      race.start(continuation, limit: limit, operation)
    }
  } onCancel: {
    race.finish(.failure(CancellationError()))
  }
}

/// The race of an operation against its deadline (and its caller's cancellation): the first outcome resumes the
/// caller, once; the others are dropped. Decided under the lock, acted on after it.
private final class DeadlineRace<Value: Sendable>: Sendable {
  private enum State {
    /// Not started; an outcome that comes first (a cancellation) is kept for the start.
    case idle(early: Result<Value, any Error>?)
    /// The caller waits; the tasks are attached once made.
    case running(CheckedContinuation<Value, any Error>, tasks: [Task<Void, Never>])
    case finished
  }

  private let state = Mutex(State.idle(early: nil))

  func start(
    _ continuation: CheckedContinuation<Value, any Error>, limit: Duration,
    _ operation: @escaping @Sendable () async throws -> Value
  ) {
    let early = state.withLock { state -> Result<Value, any Error>? in
      guard case .idle(let early) = state else { return nil }
      if let early {
        state = .finished
        return early
      }
      state = .running(continuation, tasks: [])
      return nil
    }
    if let early { return continuation.resume(with: early) }
    let work = Task {
      do {
        self.finish(.success(try await operation()))
      } catch {
        self.finish(.failure(error))
      }
    }
    let timer = Task {
      // Ends early when cancelled: the outcome is decided by then.
      try? await Task.sleep(for: limit)
      self.finish(.failure(DeadlinePassed()))
    }
    let attached = state.withLock { state -> Bool in
      guard case .running(let continuation, let tasks) = state else { return false }
      state = .running(continuation, tasks: tasks + [work, timer])
      return true
    }
    if !attached {
      work.cancel()
      timer.cancel()
    }
  }

  /// The first outcome resumes the caller and cancels both tasks; later ones do nothing.
  func finish(_ outcome: Result<Value, any Error>) {
    let action = state.withLock { state -> (CheckedContinuation<Value, any Error>, [Task<Void, Never>])? in
      switch state {
      case .idle:
        state = .idle(early: outcome)
        return nil
      case .running(let continuation, let tasks):
        state = .finished
        return (continuation, tasks)
      case .finished:
        return nil
      }
    }
    guard let (continuation, tasks) = action else { return }
    continuation.resume(with: outcome)
    for task in tasks { task.cancel() }
  }
}
