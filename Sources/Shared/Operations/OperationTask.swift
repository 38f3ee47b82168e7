/// A running operation started by ``Shared/run(_:policy:optimistic:isolation:_:onAttempt:onSuccess:onError:onSettled:)-(_,_,_,_,()->Value.Success,_,_,_,_)``.
///
/// ```swift
/// let task = $post.run { try await api.post(1) }
/// task.cancel()                      // stops it; the state follows the other runs once it returns
/// let loaded = try await task.value  // or waits for it
/// ```
public struct OperationTask<Success: Sendable>: Sendable {
  @usableFromInline let task: Task<Success, any Error>

  @inlinable
  init(task: Task<Success, any Error>) {
    self.task = task
  }

  /// Cancels the operation. Once the operation returns (at once if it honours cancellation; an operation that
  /// ignores it keeps its run pending until it returns), the state shows what the newest remaining run on the value
  /// shows: pending while it runs, its result if it already ended, and otherwise the status the last shown run (or a
  /// reset) left. A run that never wrote the state (queued serial, debounced and still waiting, a dedupe joiner)
  /// changes nothing. Its
  /// callbacks get `CancellationError` in `onSettled` and neither `onSuccess` nor `onError`, even if the operation
  /// finished anyway.
  public func cancel() {
    task.cancel()
  }

  /// Whether ``cancel()`` was called.
  public var isCancelled: Bool {
    task.isCancelled
  }

  /// Waits for the operation and returns its value.
  ///
  /// - Throws: The operation's error, ``OperationTimeoutError``, or `CancellationError`.
  public var value: Success {
    get async throws { try await task.value }
  }

  /// Waits for the operation and returns its result.
  public var result: Result<Success, any Error> {
    get async { await task.result }
  }
}
