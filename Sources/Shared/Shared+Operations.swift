public import Foundation

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
  /// `idle → pending → success` (or `error`): before `run` returns the status is ``OperationStatus/pending`` and
  /// the attempt 1; a retry raises the attempt; a success stores the value (``OperationTrackable/applySuccess(_:)``)
  /// and clears the error; a failure stores the error and keeps the last value.
  ///
  /// Callbacks run on the caller's isolation: called from the main actor, they run on the main actor.
  ///
  /// > Important: `onAttempt` runs synchronously, before `run` returns. Then exactly one of `onSuccess` and
  /// > `onError` runs, or neither if the run was cancelled. `onSettled` always runs last, with the result;
  /// > a cancelled run settles with `CancellationError`.
  ///
  /// Cancelling the returned task cancels the operation: the status stays pending while other runs may still write
  /// it and otherwise returns to what the last settled run (or a reset) left, the error is left as it was, and an
  /// optimistic update is rolled back.
  ///
  /// - Parameters:
  ///   - policy: What to do when another run is under way on this value; see ``OperationPolicy``.
  ///   - retry: How often to try again after a failure, and how long to wait first.
  ///   - timeout: How long each attempt may take before it fails with ``OperationTimeoutError``.
  ///   - clock: The clock for retry waits and timeouts; pass a ``ManualClock`` in tests.
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
    policy: OperationPolicy = .parallel,
    retry: RetryPolicy = .none,
    timeout: Duration? = nil,
    clock: any Clock<Duration> = ContinuousClock(),
    optimistic: OptimisticUpdate<Value>? = nil,
    isolation: isolated (any Actor)? = #isolation,
    _ operation: @escaping @Sendable () async throws -> Value.Success,
    onAttempt: (() -> Void)? = nil,
    onSuccess: ((Value.Success) -> Void)? = nil,
    onError: ((any Error) -> Void)? = nil,
    onSettled: ((Result<Value.Success, any Error>) -> Void)? = nil
  ) -> OperationTask<Value.Success> {
    precondition(timeout.map { $0 > .zero } ?? true, "An operation timeout must be positive, not \(timeout!)")
    onAttempt?()
    let attempts = Attempts(shared: self, operation: operation, retry: retry, timeout: timeout, clock: clock)
    switch policy {
    case .parallel:
      let runner = self.runner
      let before = begin(optimistic, runner: runner)
      let task = Task {
        _ = isolation
        let outcome = await attempts.run()
        settle(outcome, before: before, optimistic: optimistic, runner: runner, writesState: true)
        return try Self.deliver(outcome, onSuccess: onSuccess, onError: onError, onSettled: onSettled)
      }
      return OperationTask(task: task)

    case .cancelPrevious, .dedupe, .serial, .debounce:
      return runCoordinated(
        policy: policy, attempts: attempts, optimistic: optimistic, isolation: isolation,
        onSuccess: onSuccess, onError: onError, onSettled: onSettled)
    }
  }

  /// The policies that coordinate runs through the value's ``OperationRunner`` beyond counting them.
  @usableFromInline
  func runCoordinated(
    policy: OperationPolicy,
    attempts: Attempts<Value>,
    optimistic: OptimisticUpdate<Value>?,
    isolation: isolated (any Actor)?,
    onSuccess: ((Value.Success) -> Void)?,
    onError: ((any Error) -> Void)?,
    onSettled: ((Result<Value.Success, any Error>) -> Void)?
  ) -> OperationTask<Value.Success> {
    let runner = self.runner
    switch policy {
    case .parallel:
      preconditionFailure("parallel runs are not coordinated")

    case .cancelPrevious:
      let (id, superseded) = runner.claimLatest()
      superseded?.cancel()
      let before = begin(optimistic, runner: runner)
      let task = Task {
        _ = isolation
        let outcome = await attempts.run()
        let isLatest = runner.finishLatest(id: id)
        settle(outcome, before: before, optimistic: optimistic, runner: runner, writesState: isLatest)
        return try Self.deliver(
          isLatest ? outcome : .cancelled, onSuccess: onSuccess, onError: onError, onSettled: onSettled)
      }
      if !runner.registerLatest(id: id, task: task) { task.cancel() }
      return OperationTask(task: task)

    case .dedupe:
      let caller = runner.nextID()
      let (execution, starts) = runner.joinOrStart(caller: caller)
      if starts {
        let before = begin(optimistic, runner: runner)
        let shared = self
        execution.attach(
          Task {
            let outcome = await attempts.run()
            // Closed to joiners before the state shows the result, so nobody joins a finished run.
            let isCurrent = runner.finish(execution)
            shared.settle(outcome, before: before, optimistic: optimistic, runner: runner, writesState: isCurrent)
            execution.complete(with: outcome)
          })
      }
      let task = Task {
        _ = isolation
        let outcome = await execution.wait(caller: caller)
        return try Self.deliver(outcome, onSuccess: onSuccess, onError: onError, onSettled: onSettled)
      }
      return OperationTask(task: task)

    case .debounce(let interval):
      let id = runner.claimTrigger()
      let clock = attempts.clock
      let task = Task {
        _ = isolation
        let quiet: Bool
        do {
          try await clock.sleep(for: interval)
          quiet = runner.isLatestTrigger(id)
        } catch {
          quiet = false
        }
        guard quiet else {
          return try Self.deliver(.cancelled, onSuccess: onSuccess, onError: onError, onSettled: onSettled)
        }
        let before = begin(optimistic, runner: runner)
        let outcome = await attempts.run()
        settle(outcome, before: before, optimistic: optimistic, runner: runner, writesState: true)
        return try Self.deliver(outcome, onSuccess: onSuccess, onError: onError, onSettled: onSettled)
      }
      return OperationTask(task: task)

    case .serial:
      // Pending from the moment the run is queued; the optimistic update is applied when it starts.
      let before = begin(nil, runner: runner)
      return OperationTask(
        task: runner.enqueue { previous in
          Task {
            _ = isolation
            guard await waitUnlessCancelled(for: previous) else {
              settle(.cancelled, before: before, optimistic: nil, runner: runner, writesState: true)
              return try Self.deliver(.cancelled, onSuccess: onSuccess, onError: onError, onSettled: onSettled)
            }
            if let optimistic { withLock { optimistic.apply(&$0) } }
            let outcome = await attempts.run()
            settle(outcome, before: before, optimistic: optimistic, runner: runner, writesState: true)
            return try Self.deliver(outcome, onSuccess: onSuccess, onError: onError, onSettled: onSettled)
          }
        })
    }
  }

  /// Runs an operation, like ``run(policy:retry:timeout:clock:optimistic:isolation:_:onAttempt:onSuccess:onError:onSettled:)``,
  /// and waits for it: returns its value or throws its error.
  ///
  /// ```swift
  /// let post = try await $post.perform { try await api.post(1) }
  /// ```
  ///
  /// Cancelling the calling task cancels the operation.
  ///
  /// - Parameters:
  ///   - policy: What to do when another run is under way on this value.
  ///   - retry: How often to try again after a failure.
  ///   - timeout: How long each attempt may take.
  ///   - clock: The clock for retry waits and timeouts.
  ///   - optimistic: A change applied when the run starts and rolled back if it does not succeed.
  ///   - isolation: The caller's isolation.
  ///   - operation: The work.
  /// - Returns: The operation's value.
  /// - Throws: The operation's error, ``OperationTimeoutError``, or `CancellationError`.
  @discardableResult
  public func perform(
    policy: OperationPolicy = .parallel,
    retry: RetryPolicy = .none,
    timeout: Duration? = nil,
    clock: any Clock<Duration> = ContinuousClock(),
    optimistic: OptimisticUpdate<Value>? = nil,
    isolation: isolated (any Actor)? = #isolation,
    _ operation: @escaping @Sendable () async throws -> Value.Success
  ) async throws -> Value.Success {
    let task = run(
      policy: policy, retry: retry, timeout: timeout, clock: clock, optimistic: optimistic, isolation: isolation,
      operation)
    return try await withTaskCancellationHandler {
      try await task.value
    } onCancel: {
      task.cancel()
    }
  }

  /// Clears the error and sets the status back to ``OperationStatus/idle``; the last value stays.
  ///
  /// A run that is under way is not cancelled: when it settles, it writes its result as usual.
  @inlinable
  public func reset() {
    let runner = self.runner
    withLock { value in
      value.operationStatus = .idle
      value.error = nil
      value.operationAttempt = 0
      value.operationUpdatedAt = Date()
      runner.status.didReset()
    }
  }

  // MARK: Steps of a run

  /// The coordination of runs on this value (per root and path to this value).
  @inlinable
  var runner: OperationRunner<Value> {
    // The value itself (the common case) keeps its runner directly in its box; values inside another go through
    // the root's table of runners by path.
    switch reference {
    case .box(let box):
      return box.attachment(OperationRunner<Value>.self, make: OperationRunner.init)
    case .root(let root):
      return root.box.attachment(OperationRunner<Value>.self, make: OperationRunner.init)
    case .derived(let derived):
      return derived.projection.root.attachment(OperationRunners.self, make: OperationRunners.init)
        .runner(for: derived.projection.path, as: Value.self)
    }
  }

  /// Marks the start of a run and applies its optimistic update; returns the status before it.
  @inlinable
  func begin(_ optimistic: OptimisticUpdate<Value>?, runner: OperationRunner<Value>) -> OperationStatus {
    withLock { value in
      let before = value.operationStatus
      runner.status.beginWriting(from: before)
      value.operationStatus = .pending
      value.operationAttempt = 1
      value.operationUpdatedAt = Date()
      optimistic?.apply(&value)
      return before
    }
  }

  /// Writes how a run ended: its result, or (when cancelled) pending while other runs may still write, else the
  /// status the last settled run left. Rolls back the optimistic update of a run that did not succeed, or that may
  /// not write (a superseded or abandoned one), which only rolls back.
  @inlinable
  func settle(
    _ outcome: RunOutcome<Value.Success>,
    before: OperationStatus,
    optimistic: OptimisticUpdate<Value>?,
    runner: OperationRunner<Value>,
    writesState: Bool
  ) {
    withLock { value in
      guard writesState else {
        optimistic?.rollback(&value)
        let status = runner.status.finishWriting(settledOn: nil)
        if value.operationStatus == .pending && status != .pending { value.operationStatus = status }
        return
      }
      switch outcome {
      case .success(let success):
        _ = runner.status.finishWriting(settledOn: .success)
        value.operationStatus = .success
        value.applySuccess(success)
        value.error = nil
      case .failure(let error):
        optimistic?.rollback(&value)
        _ = runner.status.finishWriting(settledOn: .error)
        value.operationStatus = .error
        value.error = error
      case .cancelled:
        optimistic?.rollback(&value)
        value.operationStatus = runner.status.finishWriting(settledOn: nil)
      }
      value.operationUpdatedAt = Date()
    }
  }

  /// Calls the callbacks for `outcome` in order and returns its value or throws its error.
  @inlinable
  static func deliver(
    _ outcome: RunOutcome<Value.Success>,
    onSuccess: ((Value.Success) -> Void)?,
    onError: ((any Error) -> Void)?,
    onSettled: ((Result<Value.Success, any Error>) -> Void)?
  ) throws -> Value.Success {
    switch outcome {
    case .success(let value): onSuccess?(value)
    case .failure(let error): onError?(error)
    case .cancelled: break
    }
    onSettled?(outcome.result)
    return try outcome.result.get()
  }
}
