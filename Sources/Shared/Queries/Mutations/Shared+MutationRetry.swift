extension Shared {
  /// Runs the latest mutation again, with the arguments, work, options, policy, scope and invalidations it was
  /// started with (awaiting their refetches if it did): a "Try again" button after a failure.
  ///
  /// ```swift
  /// func retryRename(_ rename: Shared<MutationState<String, Post>>) async throws {
  ///   guard let task = rename.retryLatest() else { return }  // Nothing ran yet.
  ///   let post = try await task.value
  ///   print(post.title)
  /// }
  /// ```
  ///
  /// The latest run is the last one in ``MutationState/history``, whatever its status: a failed run is retried, a
  /// successful one runs again, and one still running gets another run beside it, as its policy says. The retry is
  /// a new run: it is recorded in the history with the same arguments, retries its attempts as its options say,
  /// and invalidates the same queries after a success. Callbacks are not kept from the latest run (they belong to
  /// its caller); pass the ones this run needs. Any holder of the state may retry, since the state keeps how its
  /// latest run was started (a state reset to `MutationState()` has no latest run).
  ///
  /// - Parameters:
  ///   - isolation: Where the callbacks run; the caller's isolation by default.
  ///   - onAttempt: Called when the run starts, before `retryLatest` returns.
  ///   - onSuccess: Called with the result when the run succeeds.
  ///   - onError: Called with the error when the run fails.
  ///   - onSettled: Called last, with the result.
  /// - Returns: A handle to cancel the run or await its result; `nil` when the mutation has no latest run.
  @discardableResult
  public func retryLatest<Arguments: Sendable, Result: Sendable>(
    isolation: isolated (any Actor)? = #isolation,
    onAttempt: (() -> Void)? = nil,
    onSuccess: ((Result) -> Void)? = nil,
    onError: ((any Error) -> Void)? = nil,
    onSettled: ((Swift.Result<Result, any Error>) -> Void)? = nil
  ) -> OperationTask<Result>? where Value == MutationState<Arguments, Result> {
    guard let latest = wrappedValue.latestRun else { return nil }
    return mutate(
      latest.arguments, latest.body, options: latest.options, policy: latest.policy, scope: latest.scope,
      invalidates: latest.invalidates, awaitsRefetches: latest.awaitsRefetches, isolation: isolation,
      onAttempt: onAttempt, onSuccess: onSuccess, onError: onError, onSettled: onSettled)
  }
}
