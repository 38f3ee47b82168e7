/// The callbacks of one run, called on the caller's isolation once the run settles: `onSuccess` or `onError` (neither
/// when it was cancelled), then `onSettled`. (`onAttempt` runs inside `run`, before it returns.)
///
/// Not `Sendable`: it holds the caller's closures, and travels only into the run's task, which runs on the caller's
/// isolation.
@usableFromInline
struct RunCallbacks<Success: Sendable> {
  @usableFromInline let onSuccess: ((Success) -> Void)?
  @usableFromInline let onError: ((any Error) -> Void)?
  @usableFromInline let onSettled: ((Result<Success, any Error>) -> Void)?
  /// Called, before `run` returns, when the call joins a run under way (``OperationPolicy/dedupe``) instead of
  /// running its own body: a mutation drops its optimistic changes there, since its arguments never reach the server.
  @usableFromInline let onJoined: (@Sendable () -> Void)?

  @inlinable
  init(
    onSuccess: ((Success) -> Void)?,
    onError: ((any Error) -> Void)?,
    onSettled: ((Result<Success, any Error>) -> Void)?,
    onJoined: (@Sendable () -> Void)? = nil
  ) {
    self.onSuccess = onSuccess
    self.onError = onError
    self.onSettled = onSettled
    self.onJoined = onJoined
  }

  /// Calls the callbacks for `outcome` in order and returns its value or throws its error.
  @inlinable
  func deliver(_ outcome: RunOutcome<Success>) throws -> Success {
    switch outcome {
    case .success(let value): onSuccess?(value)
    case .failure(let error): onError?(error)
    case .cancelled: break
    }
    onSettled?(outcome.result)
    return try outcome.result.get()
  }
}
