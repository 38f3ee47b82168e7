extension Shared where Value: OperationTrackable {
  /// Starts a run of `body` once its turn in `scope` comes: every mutation called before it in the scope has
  /// settled. `onAttempt` runs now, before this returns; the others when the run settles, or with
  /// `CancellationError` if the calling task is cancelled before the turn comes (the run then never starts). The
  /// turn passes to the next mutation in line once this one settled. The run follows `network`.
  func start(
    _ body: OperationBody<Value.Success>,
    in scope: MutationScope,
    of scopes: MutationScopes,
    options: OperationOptions,
    policy: OperationPolicy,
    afterSuccess: (@Sendable (Value.Success) async -> Void)?,
    network: RunNetwork?,
    isolation: isolated (any Actor)?,
    onAttempt: (() -> Void)?,
    onSuccess: ((Value.Success) -> Void)?,
    onError: ((any Error) -> Void)?,
    onSettled: ((Result<Value.Success, any Error>) -> Void)?,
    onJoined: (@Sendable () -> Void)? = nil
  ) -> OperationTask<Value.Success> {
    onAttempt?()
    // The place in line is taken inside `mutate`, so the line's order is the call order. A mutation whose turn is
    // now starts now, as one with no scope does.
    let (ticket, proceeds) = scopes.enqueue(scope)
    let shared = self
    let started =
      proceeds
      ? start(
        body, options: options, policy: policy, optimistic: nil, afterSuccess: afterSuccess, network: network,
        isolation: isolation, onAttempt: nil, onSuccess: onSuccess, onError: onError, onSettled: onSettled,
        onJoined: onJoined) : nil
    let task = Task {
      _ = isolation
      let run: OperationTask<Value.Success>
      if let started {
        run = started
      } else {
        guard await scopes.waitForTurn(scope, ticket: ticket) else {
          // Left the line before its turn: it never ran.
          return try RunCallbacks(onSuccess: onSuccess, onError: onError, onSettled: onSettled).deliver(.cancelled)
        }
        if Task.isCancelled {
          scopes.finish(scope, ticket: ticket)
          return try RunCallbacks(onSuccess: onSuccess, onError: onError, onSettled: onSettled).deliver(.cancelled)
        }
        run = shared.start(
          body, options: options, policy: policy, optimistic: nil, afterSuccess: afterSuccess, network: network,
          isolation: isolation, onAttempt: nil, onSuccess: onSuccess, onError: onError, onSettled: onSettled,
          onJoined: onJoined)
      }
      let result = await withTaskCancellationHandler {
        await run.result
      } onCancel: {
        run.cancel()
      }
      scopes.finish(scope, ticket: ticket)
      return try result.get()
    }
    return OperationTask(task: task)
  }
}
