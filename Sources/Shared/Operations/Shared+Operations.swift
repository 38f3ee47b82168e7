extension Shared where Value: OperationTrackable {
  /// Starts an operation whose progress, result and error every holder of this value sees, and returns at once.
  ///
  /// ```swift
  /// $post.run {
  ///   try await api.post(1)
  /// } onAttempt: {
  ///   haptics.tap()
  /// } onSuccess: { post in
  ///   navigate(to: post)
  /// } onError: { error in
  ///   toast(error)
  /// } onSettled: { result in
  ///   form.isEnabled = true
  /// }
  /// ```
  ///
  /// The state changes through ``withLock(_:)``, so every holder's `values` show
  /// `idle → pending → success` (or `error`). The run shows ``OperationStatus/pending`` and the attempt 1 when it
  /// starts: before `run` returns for ``OperationPolicy/parallel`` and ``OperationPolicy/cancelPrevious``, for a
  /// ``OperationPolicy/serial`` run whose turn is at once, and for the ``OperationPolicy/dedupe`` caller that starts
  /// the execution; a queued serial run starts when the run ahead of it ends, a debounced run once its quiet time
  /// passed, and a dedupe caller that joins never writes the state itself. A
  /// ``OperationPolicy/debounceCancellingPrevious(_:)`` run shows fetching and keeps the status, as a query's
  /// refetch does (pending only when the state was idle). A retry raises the attempt; a success
  /// stores the value (``OperationTrackable/applySuccess(_:)``) and clears the error; a failure stores the error and keeps the last value. When runs overlap, the state follows
  /// the most recently started run that was not cancelled: an older run's result is not shown while a newer run is
  /// pending, nor after a newer one was shown; an older success held back while a newer run was pending is applied
  /// just before the newer run's result (see ``OperationTrackable/applySuccess(_:)``). Whatever the library replaces
  /// in the value is released after its lock.
  ///
  /// Callbacks run on the caller's isolation: called from the main actor, they run on the main actor.
  ///
  /// `options` says how each attempt runs: retries around everything, a timeout per attempt, and modifiers of your
  /// own around the operation (see ``OperationModifier`` for the order):
  ///
  /// ```swift
  /// $post.run(.retry(.exponential(retries: 3)).timeout(.seconds(10))) { try await api.post(1) }
  /// ```
  ///
  /// An operation that needs its attempt number, the clock, or to show a value before its final one takes an
  /// ``OperationContext``: see ``run(_:policy:optimistic:isolation:_:onAttempt:onSuccess:onError:onSettled:)-(_,_,_,_,(OperationContext<Value.Success>)->Value.Success,_,_,_,_)``.
  ///
  /// > Important: `onAttempt` runs synchronously, before `run` returns. Then exactly one of `onSuccess` and
  /// > `onError` runs, or neither if the run was cancelled. `onSettled` always runs last, with the result;
  /// > a cancelled run settles with `CancellationError`.
  ///
  /// Cancelling the returned task cancels the operation. The state changes once the cancelled operation returns
  /// (an operation that ignores cancellation keeps the run pending until then): it then shows what the newest
  /// remaining run shows (pending while it runs, its result if it ended, otherwise what the last shown run or a reset
  /// left), the error is left as it was, and an optimistic update is rolled back. A ``OperationPolicy/cancelPrevious``
  /// run superseded by a newer one leaves the state at once, when the newer run starts (so does a
  /// ``OperationPolicy/debounceCancellingPrevious(_:)`` run). A queued serial run, a debounced run still waiting
  /// and a dedupe caller that joined never wrote the state: cancelling them changes nothing. A `CancellationError` the operation throws is never retried:
  /// it is cancellation when the run was cancelled, and otherwise a failure like any other.
  ///
  /// - Parameters:
  ///   - options: Retries, the timeout of each attempt, the clock, and modifiers; see ``OperationOptions``.
  ///   - policy: What to do when another run is under way on this value; see ``OperationPolicy``.
  ///   - optimistic: A change applied when the run starts and rolled back if it does not succeed.
  ///   - isolation: Where the callbacks run; the caller's isolation by default.
  ///   - operation: The work.
  ///   - onAttempt: Called when the run starts, before `run` returns.
  ///   - onSuccess: Called with the value when the run succeeds.
  ///   - onError: Called with the error when the run fails.
  ///   - onSettled: Called last, with the result.
  /// - Returns: A handle to cancel the run or await its value.
  @inlinable
  @discardableResult
  public func run(
    _ options: OperationOptions = OperationOptions(),
    policy: OperationPolicy = .parallel,
    optimistic: OptimisticUpdate<Value>? = nil,
    isolation: isolated (any Actor)? = #isolation,
    _ operation: @escaping @Sendable () async throws -> Value.Success,
    onAttempt: (() -> Void)? = nil,
    onSuccess: ((Value.Success) -> Void)? = nil,
    onError: ((any Error) -> Void)? = nil,
    onSettled: ((Result<Value.Success, any Error>) -> Void)? = nil
  ) -> OperationTask<Value.Success> {
    start(
      .plain(operation), options: options, policy: policy, optimistic: optimistic, isolation: isolation,
      onAttempt: onAttempt, onSuccess: onSuccess, onError: onError, onSettled: onSettled)
  }

  /// Starts an operation that receives its attempt's context, like the operation of
  /// ``run(_:policy:optimistic:isolation:_:onAttempt:onSuccess:onError:onSettled:)-(_,_,_,_,()->Value.Success,_,_,_,_)``;
  /// returns at once.
  ///
  /// ```swift
  /// $feed.run { context in
  ///   if let cached = cache.feed { context.yield(cached) }  // shown at once; the run stays pending
  ///   return try await api.feed()
  /// }
  /// ```
  ///
  /// The context gives the attempt number (from 1), the options' clock, and ``OperationContext/yield(_:)``, which
  /// shows an intermediate value while the state follows this run. Everything else (the status, the callbacks and
  /// their order, policies, retries, cancellation) is as for an operation without a context.
  ///
  /// - Parameters:
  ///   - options: Retries, the timeout of each attempt, the clock, and modifiers; see ``OperationOptions``.
  ///   - policy: What to do when another run is under way on this value; see ``OperationPolicy``.
  ///   - optimistic: A change applied when the run starts and rolled back if it does not succeed.
  ///   - isolation: Where the callbacks run; the caller's isolation by default.
  ///   - operation: The work, given its attempt's context.
  ///   - onAttempt: Called when the run starts, before `run` returns.
  ///   - onSuccess: Called with the value when the run succeeds.
  ///   - onError: Called with the error when the run fails.
  ///   - onSettled: Called last, with the result.
  /// - Returns: A handle to cancel the run or await its value.
  @inlinable
  @discardableResult
  public func run(
    _ options: OperationOptions = OperationOptions(),
    policy: OperationPolicy = .parallel,
    optimistic: OptimisticUpdate<Value>? = nil,
    isolation: isolated (any Actor)? = #isolation,
    _ operation: @escaping @Sendable (OperationContext<Value.Success>) async throws -> Value.Success,
    onAttempt: (() -> Void)? = nil,
    onSuccess: ((Value.Success) -> Void)? = nil,
    onError: ((any Error) -> Void)? = nil,
    onSettled: ((Result<Value.Success, any Error>) -> Void)? = nil
  ) -> OperationTask<Value.Success> {
    start(
      .contextual(operation), options: options, policy: policy, optimistic: optimistic, isolation: isolation,
      onAttempt: onAttempt, onSuccess: onSuccess, onError: onError, onSettled: onSettled)
  }

  /// Starts a run of `body`: calls `onAttempt`, then hands the run to its policy. `afterSuccess` runs after the
  /// attempts succeeded, before the run settles (see ``RunAttempts``). The run follows `network` (a mutation's), or
  /// the network its options name.
  @inlinable
  func start(
    _ body: OperationBody<Value.Success>,
    options: OperationOptions,
    policy: OperationPolicy,
    optimistic: OptimisticUpdate<Value>?,
    afterSuccess: (@Sendable (Value.Success) async -> Void)? = nil,
    network: RunNetwork? = nil,
    isolation: isolated (any Actor)?,
    onAttempt: (() -> Void)?,
    onSuccess: ((Value.Success) -> Void)?,
    onError: ((any Error) -> Void)?,
    onSettled: ((Result<Value.Success, any Error>) -> Void)?,
    onJoined: (@Sendable () -> Void)? = nil
  ) -> OperationTask<Value.Success> {
    onAttempt?()
    let attempts = RunAttempts(
      shared: self, body: body, options: options, afterSuccess: afterSuccess,
      network: network ?? RunNetwork(plainRun: options))
    let callbacks = RunCallbacks(onSuccess: onSuccess, onError: onError, onSettled: onSettled, onJoined: onJoined)
    switch policy {
    case .parallel:
      return runParallel(attempts, optimistic: optimistic, isolation: isolation, callbacks: callbacks)
    case .cancelPrevious:
      return runCancellingPrevious(attempts, optimistic: optimistic, isolation: isolation, callbacks: callbacks)
    case .dedupe:
      return runDeduplicated(attempts, optimistic: optimistic, isolation: isolation, callbacks: callbacks)
    case .serial:
      return runSerially(attempts, optimistic: optimistic, isolation: isolation, callbacks: callbacks)
    case .debounce(let interval):
      return runDebounced(
        attempts, interval: interval, optimistic: optimistic, isolation: isolation, callbacks: callbacks)
    case .debounceCancellingPrevious(let interval):
      return runDebouncedCancellingPrevious(
        attempts, interval: interval, optimistic: optimistic, isolation: isolation, callbacks: callbacks)
    }
  }

  /// Runs an operation, like ``run(_:policy:optimistic:isolation:_:onAttempt:onSuccess:onError:onSettled:)-(_,_,_,_,()->Value.Success,_,_,_,_)``,
  /// and waits for it: returns its value or throws its error.
  ///
  /// ```swift
  /// let loaded = try await $post.perform { try await api.post(1) }
  /// ```
  ///
  /// Cancelling the calling task cancels the operation. With the default ``OperationPolicy/parallel`` policy the run
  /// goes on in the calling task, with no task of its own, and a caller already cancelled gets a `CancellationError`
  /// at once: the operation never starts and the state does not change.
  ///
  /// - Parameters:
  ///   - options: Retries, the timeout of each attempt, the clock, and modifiers; see ``OperationOptions``.
  ///   - policy: What to do when another run is under way on this value.
  ///   - optimistic: A change applied when the run starts and rolled back if it does not succeed.
  ///   - isolation: The caller's isolation.
  ///   - operation: The work.
  /// - Returns: The operation's value.
  /// - Throws: The operation's error, ``OperationTimeoutError``, or `CancellationError`.
  @discardableResult
  @inlinable
  public func perform(
    _ options: OperationOptions = OperationOptions(),
    policy: OperationPolicy = .parallel,
    optimistic: OptimisticUpdate<Value>? = nil,
    isolation: isolated (any Actor)? = #isolation,
    _ operation: @escaping @Sendable () async throws -> Value.Success
  ) async throws -> Value.Success {
    try await perform(.plain(operation), options: options, policy: policy, optimistic: optimistic, isolation: isolation)
  }

  /// Runs an operation that receives its attempt's context and waits for it: returns its value or throws its error.
  ///
  /// ```swift
  /// let items = try await $feed.perform { context in
  ///   if let cached = cache.feed { context.yield(cached) }
  ///   return try await api.feed()
  /// }
  /// ```
  ///
  /// Cancelling the calling task cancels the operation. With the default ``OperationPolicy/parallel`` policy the run
  /// goes on in the calling task, with no task of its own, and a caller already cancelled gets a `CancellationError`
  /// at once: the operation never starts and the state does not change.
  ///
  /// - Parameters:
  ///   - options: Retries, the timeout of each attempt, the clock, and modifiers; see ``OperationOptions``.
  ///   - policy: What to do when another run is under way on this value.
  ///   - optimistic: A change applied when the run starts and rolled back if it does not succeed.
  ///   - isolation: The caller's isolation.
  ///   - operation: The work, given its attempt's context.
  /// - Returns: The operation's value.
  /// - Throws: The operation's error, ``OperationTimeoutError``, or `CancellationError`.
  @discardableResult
  @inlinable
  public func perform(
    _ options: OperationOptions = OperationOptions(),
    policy: OperationPolicy = .parallel,
    optimistic: OptimisticUpdate<Value>? = nil,
    isolation: isolated (any Actor)? = #isolation,
    _ operation: @escaping @Sendable (OperationContext<Value.Success>) async throws -> Value.Success
  ) async throws -> Value.Success {
    try await perform(
      .contextual(operation), options: options, policy: policy, optimistic: optimistic, isolation: isolation)
  }

  /// Starts a run of `body` with no callbacks and waits for it; cancelling the calling task cancels the run.
  @inlinable
  func perform(
    _ body: OperationBody<Value.Success>,
    options: OperationOptions,
    policy: OperationPolicy,
    optimistic: OptimisticUpdate<Value>?,
    isolation: isolated (any Actor)?
  ) async throws -> Value.Success {
    if case .parallel = policy {
      // Nothing else ever cancels a parallel run, so it needs no task of its own: it runs in the caller's, whose
      // cancellation is the run's, as the steps of `runParallel` do in the task that `run` starts. A caller
      // cancelled already leaves the state as it is: no pending flash, no optimistic update applied and undone.
      try Task.checkCancellation()
      let coordinator = self.coordinator
      let attempts = RunAttempts(shared: self, body: body, options: options, network: RunNetwork(plainRun: options))
      let run = begin(optimistic, coordinator: coordinator)
      let outcome = await attempts.run(run, coordinator: coordinator)
      settle(outcome, run: run, optimistic: optimistic, coordinator: coordinator)
      return try RunCallbacks(onSuccess: nil, onError: nil, onSettled: nil).deliver(outcome)
    }
    let task = start(
      body, options: options, policy: policy, optimistic: optimistic, isolation: isolation,
      onAttempt: nil, onSuccess: nil, onError: nil, onSettled: nil)
    return try await withTaskCancellationHandler {
      try await task.value
    } onCancel: {
      task.cancel()
    }
  }

  /// Clears the error and sets the status back to ``OperationStatus/idle``; the last value stays.
  ///
  /// A run that is under way is not cancelled: when it settles, it writes its result as usual. A result held back
  /// while a newer run was pending is dropped. The error cleared here is released after the value's lock.
  @inlinable
  public func reset() {
    let coordinator = self.coordinator
    _ = withLockReleasingReplaced { value -> [ParallelStateMachine<Value.Success>.Ending] in
      value.operation.reset()
      return coordinator.coordinate { $0.parallel.reset() }
    }
  }
}
