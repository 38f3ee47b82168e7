/// Hooks a ``QueryStore`` calls for every fetch of its queries and every mutation run: for logging and metrics.
///
/// ```swift
/// let store = SharedRegistry.current.queries
/// store.hooks = QueryHooks(
///   onError: { subject, error in log("\(subject) failed: \(error)") },
///   onSettled: { _, _ in metrics.increment("requests") })
/// ```
///
/// Each fetch or run calls `onSuccess` or `onError` (never both), then `onSettled`, once, after its retries; a
/// cancelled fetch or run calls only `onSettled`, with a `CancellationError`. Hooks are synchronous and are called
/// outside every lock of the library:
/// - for a query, on the fetch's own task, after the callers awaiting the fetch were resumed, so a slow hook delays
///   no caller and no other query (keep it short anyway: it holds a thread of the cooperative pool);
/// - for a mutation, where the run's own callbacks run (the caller's isolation), just before `onSuccess`/`onError`
///   and `onSettled` of the run.
///
/// A hook cannot throw, and nothing it does (writing a shared value, asking the store) can break the store.
public struct QueryHooks: Sendable {
  /// Called with the value when a fetch or a run succeeds.
  public var onSuccess: (@Sendable (QueryHookSubject, any Sendable) -> Void)?
  /// Called with the error when a fetch or a run fails, after its retries.
  public var onError: (@Sendable (QueryHookSubject, any Error) -> Void)?
  /// Called last for every fetch or run, with its result: the value, the error, or a `CancellationError`.
  public var onSettled: (@Sendable (QueryHookSubject, Result<any Sendable, any Error>) -> Void)?

  /// Hooks; pass only those you need.
  ///
  /// ```swift
  /// let hooks = QueryHooks(onError: { subject, error in log("\(subject) failed: \(error)") })
  /// ```
  ///
  /// - Parameters:
  ///   - onSuccess: Called with the value when a fetch or a run succeeds.
  ///   - onError: Called with the error when a fetch or a run fails.
  ///   - onSettled: Called last, with the result.
  public init(
    onSuccess: (@Sendable (QueryHookSubject, any Sendable) -> Void)? = nil,
    onError: (@Sendable (QueryHookSubject, any Error) -> Void)? = nil,
    onSettled: (@Sendable (QueryHookSubject, Result<any Sendable, any Error>) -> Void)? = nil
  ) {
    self.onSuccess = onSuccess
    self.onError = onError
    self.onSettled = onSettled
  }
}
