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

  @inlinable
  init(
    onSuccess: ((Success) -> Void)?,
    onError: ((any Error) -> Void)?,
    onSettled: ((Result<Success, any Error>) -> Void)?
  ) {
    self.onSuccess = onSuccess
    self.onError = onError
    self.onSettled = onSettled
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
