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
  /// passed, and a dedupe caller that joins never writes the state itself. A retry raises the attempt; a success stores the value (``OperationTrackable/applySuccess(_:)``)
  /// and clears the error; a failure stores the error and keeps the last value. When runs overlap, the state follows
  /// the most recently started run that was not cancelled: an older run's result is not shown while a newer run is
  /// pending, nor after a newer one was shown; an older success held back while a newer run was pending is applied
  /// just before the newer run's result (see ``OperationTrackable/applySuccess(_:)``). Whatever the library replaces
  /// in the value is released after its lock.
  ///
  /// Callbacks run on the caller's isolation: called from the main actor, they run on the main actor.
  ///
  /// > Important: `onAttempt` runs synchronously, before `run` returns. Then exactly one of `onSuccess` and
  /// > `onError` runs, or neither if the run was cancelled. `onSettled` always runs last, with the result;
  /// > a cancelled run settles with `CancellationError`.
  ///
  /// Cancelling the returned task cancels the operation. The state changes once the cancelled operation returns
  /// (an operation that ignores cancellation keeps the run pending until then): it then shows what the newest
  /// remaining run shows (pending while it runs, its result if it ended, otherwise what the last shown run or a reset
  /// left), the error is left as it was, and an optimistic update is rolled back. A ``OperationPolicy/cancelPrevious``
  /// run superseded by a newer one leaves the state at once, when the newer run starts. A queued serial run, a
  /// debounced run still waiting and a dedupe caller that joined never wrote the state: cancelling them changes
  /// nothing. A `CancellationError` the operation throws is never retried:
  /// it is cancellation when the run was cancelled, and otherwise a failure like any other.
  ///
  /// - Parameters:
  ///   - options: Retries, the timeout of each attempt, and the clock they wait on; see ``OperationOptions``.
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

  /// Starts a run of `body`; see ``run(_:policy:optimistic:isolation:_:onAttempt:onSuccess:onError:onSettled:)-(_,_,_,_,()->Value.Success,_,_,_,_)``.
  @inlinable
  func start(
    _ body: OperationBody<Value.Success>,
    options: OperationOptions,
    policy: OperationPolicy,
    optimistic: OptimisticUpdate<Value>?,
    isolation: isolated (any Actor)?,
    onAttempt: (() -> Void)?,
    onSuccess: ((Value.Success) -> Void)?,
    onError: ((any Error) -> Void)?,
    onSettled: ((Result<Value.Success, any Error>) -> Void)?
  ) -> OperationTask<Value.Success> {
    onAttempt?()
    let attempts = Attempts(shared: self, body: body, options: options)
    switch policy {
    case .parallel:
      let runner = self.runner
      let run = begin(optimistic, runner: runner)
      let task = Task {
        _ = isolation
        let outcome = await attempts.run(run, runner: runner)
        settle(outcome, run: run, optimistic: optimistic, runner: runner)
        return try Self.deliver(outcome, onSuccess: onSuccess, onError: onError, onSettled: onSettled)
      }
      return OperationTask(task: task)

    case .cancelPrevious, .dedupe, .serial, .debounce:
      return runCoordinated(
        policy: policy, attempts: attempts, optimistic: optimistic, isolation: isolation,
        onSuccess: onSuccess, onError: onError, onSettled: onSettled)
    }
  }

  /// The policies that coordinate runs through their own state machine besides the one every run goes through.
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
      preconditionFailure("parallel runs need no machine of their own")

    case .cancelPrevious:
      // The new run becomes the latest, and the one it supersedes leaves the state, in the step that shows it pending.
      let (started, superseded) = begin(optimistic, runner: runner) { coordination, status in
        let start = coordination.startSuperseding(from: status)
        return (start.run, start.cancelling)
      }
      let run = started!
      superseded?.cancel()
      let task = Task {
        _ = isolation
        let outcome = await attempts.run(run, runner: runner)
        // A superseded run already left the state; without an optimistic update it has nothing to write.
        if optimistic == nil && runner.coordinate({ $0.cancelPrevious.isSuperseded(run) }) {
          return try Self.deliver(.cancelled, onSuccess: onSuccess, onError: onError, onSettled: onSettled)
        }
        let isLatest = settle(outcome, optimistic: optimistic, runner: runner) { coordination, _ in
          let (settlement, isLatest) = coordination.endSuperseding(run, with: outcome)
          return (settlement, isLatest ? .withOutcome : .alreadyLeft, isLatest)
        }
        return try Self.deliver(
          isLatest ? outcome : .cancelled, onSuccess: onSuccess, onError: onError, onSettled: onSettled)
      }
      if runner.coordinate({ $0.cancelPrevious.attach(run, work: task) }) == .cancel { task.cancel() }
      return OperationTask(task: task)

    case .dedupe:
      // A caller joins the execution under way without touching the value; the caller that starts one shows it
      // pending right after (a caller that joins meanwhile shares it; if every caller leaves first, it is cancelled
      // as soon as its task is attached).
      let (caller, joined) = runner.coordinate { coordination in
        let caller = coordination.nextCaller()
        return (caller, coordination.dedupe.join(caller))
      }
      let started = joined == .start ? begin(optimistic, runner: runner) : nil
      if let run = started {
        let shared = self
        let execution = Task {
          let outcome = await attempts.run(run, runner: runner)
          // Closed to joiners in the same step that shows the result, so nobody joins a finished run.
          let waiters = shared.settle(outcome, optimistic: optimistic, runner: runner) { coordination, _ in
            let completion = coordination.completeExecution(caller, run: run, with: outcome)
            return (completion.settlement, completion.isAbandoned ? .withoutResult : .withOutcome, completion.resuming)
          }
          for waiter in waiters { waiter.resume(returning: outcome) }
        }
        if runner.coordinate({ $0.dedupe.attach(caller, work: execution) }) == .cancel { execution.cancel() }
      }
      let task = Task {
        _ = isolation
        let outcome = await Self.waitForExecution(caller, runner: runner)
        return try Self.deliver(outcome, onSuccess: onSuccess, onError: onError, onSettled: onSettled)
      }
      return OperationTask(task: task)

    case .debounce(let interval):
      let trigger = runner.coordinate { coordination in
        let trigger = coordination.nextCaller()
        coordination.debounce.trigger(trigger)
        return trigger
      }
      let clock = attempts.options.clock
      let task = Task {
        _ = isolation
        var started: UInt64?
        do {
          try await clock.sleep(for: interval)
          // A coalesced trigger (the common case in a burst) is told apart under the runner's lock alone; one still
          // waiting decides and starts in one step with the value's lock held.
          if runner.coordinate({ $0.debounce.isWaiting(trigger) }) {
            started =
              begin(optimistic, runner: runner) { coordination, status in
                (coordination.startDebounced(trigger, from: status), ())
              }.0
          }
        } catch {
          runner.coordinate { $0.debounce.cancel(trigger) }
        }
        guard let run = started else {
          return try Self.deliver(.cancelled, onSuccess: onSuccess, onError: onError, onSettled: onSettled)
        }
        let outcome = await attempts.run(run, runner: runner)
        settle(outcome, run: run, optimistic: optimistic, runner: runner)
        return try Self.deliver(outcome, onSuccess: onSuccess, onError: onError, onSettled: onSettled)
      }
      return OperationTask(task: task)

    case .serial:
      // Queued in call order inside `run` without touching the value; a run whose turn is at once shows pending
      // before `run` returns (otherwise it shows pending when the run ahead of it ends).
      let (ticket, place) = runner.coordinate { coordination in
        let ticket = coordination.nextCaller()
        return (ticket, coordination.serial.enqueue(ticket))
      }
      var started: UInt64?
      if place == .start {
        started =
          begin(nil, runner: runner) { coordination, status in
            (coordination.startTurn(ticket, from: status), ())
          }.0
      }
      let task = Task {
        _ = isolation
        var turn = started
        if turn == nil { turn = await Self.waitForTurn(ticket, runner: runner) }
        guard let run = turn else {
          return try Self.deliver(.cancelled, onSuccess: onSuccess, onError: onError, onSettled: onSettled)
        }
        if let optimistic { withLockReleasingReplaced { optimistic.apply(&$0) } }
        let outcome = await attempts.run(run, runner: runner)
        // The next run starts, pending, in the same step that shows this run's result.
        let next = settle(outcome, optimistic: optimistic, runner: runner) { coordination, status in
          let finish = coordination.finishTurn(ticket, run: run, with: outcome, from: status)
          return (finish.settlement, .withOutcome, finish.next)
        } afterwards: { value, next in
          if next != nil { Self.showPending(in: &value) }
          return next
        }
        if let (nextRun, waiter) = next { waiter?.resume(returning: nextRun) }
        return try Self.deliver(outcome, onSuccess: onSuccess, onError: onError, onSettled: onSettled)
      }
      return OperationTask(task: task)
    }
  }

  /// Waits for the result of the dedupe execution `caller` joined; leaves at once with `.cancelled` if the calling
  /// task is cancelled first.
  static func waitForExecution(
    _ caller: UInt64, runner: OperationRunner<Value>
  ) async -> RunOutcome<Value.Success> {
    await withTaskCancellationHandler {
      await withUnsafeContinuation { continuation in
        switch runner.coordinate({ $0.dedupe.wait(caller, waiter: continuation) }) {
        case .resume(let outcome): continuation.resume(returning: outcome)
        case .suspend: break
        case .cancelled: continuation.resume(returning: .cancelled)
        }
      }
    } onCancel: {
      if case .leave(let waiter, let work) = runner.coordinate({ $0.dedupe.leave(caller) }) {
        waiter?.resume(returning: .cancelled)
        work?.cancel()
      }
    }
  }

  /// Waits for the turn of serial run `ticket`; returns its run number, or `nil` if it left the queue, cancelled,
  /// first.
  static func waitForTurn(_ ticket: UInt64, runner: OperationRunner<Value>) async -> UInt64? {
    await withTaskCancellationHandler {
      await withUnsafeContinuation { (continuation: UnsafeContinuation<UInt64?, Never>) in
        switch runner.coordinate({ $0.serial.wait(ticket, waiter: continuation) }) {
        case .proceed(let run): continuation.resume(returning: run)
        case .suspend: break
        case .cancelled: continuation.resume(returning: nil)
        }
      }
    } onCancel: {
      if case .resumeCancelled(let waiter) = runner.coordinate({ $0.serial.leave(ticket) }) {
        waiter.resume(returning: nil)
      }
    }
  }

  /// Runs an operation, like ``run(_:policy:optimistic:isolation:_:onAttempt:onSuccess:onError:onSettled:)-(_,_,_,_,()->Value.Success,_,_,_,_)``,
  /// and waits for it: returns its value or throws its error.
  ///
  /// ```swift
  /// let post = try await $post.perform { try await api.post(1) }
  /// ```
  ///
  /// Cancelling the calling task cancels the operation.
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
  /// let feed = try await $feed.perform { context in
  ///   if let cached = cache.feed { context.yield(cached) }
  ///   return try await api.feed()
  /// }
  /// ```
  ///
  /// Cancelling the calling task cancels the operation.
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
  func perform(
    _ body: OperationBody<Value.Success>,
    options: OperationOptions,
    policy: OperationPolicy,
    optimistic: OptimisticUpdate<Value>?,
    isolation: isolated (any Actor)?
  ) async throws -> Value.Success {
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
    let runner = self.runner
    _ = withLockReleasingReplaced { value -> [ParallelStateMachine<Value.Success>.Ending] in
      value.operation.reset()
      return runner.coordinate { $0.parallel.reset() }
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

  /// Starts a run that may write the state: shows it pending and applies its optimistic update; returns its number.
  @inlinable
  func begin(_ optimistic: OptimisticUpdate<Value>?, runner: OperationRunner<Value>) -> UInt64 {
    begin(optimistic, runner: runner) { coordination, status in (coordination.parallel.start(from: status), ()) }.0!
  }

  /// Asks `decide`, in one step with the value's lock held, whether a run starts (it calls
  /// `coordination.parallel.start` if so); if one does, shows it pending and applies its optimistic update. What
  /// the update replaces is released after the lock.
  @inlinable
  func begin<Extra: Sendable>(
    _ optimistic: OptimisticUpdate<Value>?,
    runner: OperationRunner<Value>,
    deciding decide: (inout OperationRunner<Value>.Coordination, OperationStatus) -> (UInt64?, Extra)
  ) -> (UInt64?, Extra) {
    func start(_ value: inout Value) -> (UInt64?, Extra) {
      let status = value.operation.status
      let decision = runner.coordinate { decide(&$0, status) }
      guard decision.0 != nil else { return decision }
      Self.showPending(in: &value)
      optimistic?.apply(&value)
      return decision
    }
    if optimistic == nil { return withLock(start) }
    return withLockReleasingReplaced(start)
  }

  /// Writes how run `run` ended, for a run that writes the state when it ends.
  @inlinable
  func settle(
    _ outcome: RunOutcome<Value.Success>,
    run: UInt64,
    optimistic: OptimisticUpdate<Value>?,
    runner: OperationRunner<Value>
  ) {
    if optimistic == nil {
      // A run whose end writes nothing ends under the runner's lock alone: no write, nobody notified.
      let unseen = runner.coordinate { coordination in
        switch outcome {
        case .success(let success): return coordination.parallel.endUnseen(run, with: .success(success))
        case .failure(let error): return coordination.parallel.endUnseen(run, with: .failure(error))
        case .cancelled: return coordination.parallel.endUnseen(run, with: nil)
        }
      }
      if case .ended = unseen { return }
    }
    settle(outcome, optimistic: optimistic, runner: runner) { coordination, _ in
      (coordination.end(run, with: outcome, as: .withOutcome), .withOutcome, ())
    }
  }

  /// Writes how a run ended, as `decide` says in one step under the value's lock (given the status shown): the
  /// settlement to write, whether the run may write at all (a superseded or abandoned run only rolls back), and
  /// anything else the policy needs. Rolls back the optimistic update of a run that did not succeed or may not
  /// write. Everything replaced is released after the value's lock.
  @inlinable
  func settle<Extra: Sendable>(
    _ outcome: RunOutcome<Value.Success>,
    optimistic: OptimisticUpdate<Value>?,
    runner: OperationRunner<Value>,
    deciding decide: (inout OperationRunner<Value>.Coordination, OperationStatus) -> (
      OperationRunner<Value>.Coordination.Settlement, RunEnding, Extra
    )
  ) -> Extra {
    settle(outcome, optimistic: optimistic, runner: runner, deciding: decide) { _, extra in extra }
  }

  /// ``settle(_:optimistic:runner:deciding:)``, then `afterwards` with the value and what `decide` returned,
  /// still under the value's lock (a serial run shows the next one pending there).
  @inlinable
  func settle<Extra: Sendable, After: Sendable>(
    _ outcome: RunOutcome<Value.Success>,
    optimistic: OptimisticUpdate<Value>?,
    runner: OperationRunner<Value>,
    deciding decide: (inout OperationRunner<Value>.Coordination, OperationStatus) -> (
      OperationRunner<Value>.Coordination.Settlement, RunEnding, Extra
    ),
    afterwards: (inout Value, Extra) -> After
  ) -> After {
    let (after, released) = withLockReleasingReplaced {
      value -> (After, [ParallelStateMachine<Value.Success>.Ending]) in
      let status = value.operation.status
      let (settlement, ending, extra) = runner.coordinate { decide(&$0, status) }
      if case .success = outcome, ending == .withOutcome {} else { optimistic?.rollback(&value) }
      let released = Self.write(settlement, of: outcome, in: &value)
      return (afterwards(&value, extra), released)
    }
    withExtendedLifetime(released) {}  // Results the machine stopped holding go here, after the lock.
    return after
  }

  /// Writes what ``ParallelStateMachine`` decided when a run ended with `outcome`: held-back successes first, in
  /// start order, then the result shown. Returns the results applied, to release after the lock.
  @inlinable
  static func write(
    _ settlement: OperationRunner<Value>.Coordination.Settlement,
    of outcome: RunOutcome<Value.Success>,
    in value: inout Value
  ) -> [ParallelStateMachine<Value.Success>.Ending] {
    switch settlement {
    case .showResult(let earlier):
      applySuccesses(earlier, in: &value)
      show(outcome, in: &value)
      return earlier
    case .showHeld(let held, let earlier):
      applySuccesses(earlier, in: &value)
      show(RunOutcome(held), in: &value)
      return earlier + [held]
    case .restore(let status):
      value.operation.restore(status)
      return []
    case .nothing:
      return []
    }
  }

  /// Applies the successes among `results`, in order: results held back from older runs, applied before a newer
  /// run's result is shown.
  @inlinable
  static func applySuccesses(_ results: [ParallelStateMachine<Value.Success>.Ending], in value: inout Value) {
    for case .success(let success) in results { value.applySuccess(success) }
  }

  /// Shows a run that starts: pending, at its first attempt.
  @inlinable
  static func showPending(in value: inout Value) {
    value.operation.begin()
  }

  /// Writes a run's result into the value: a success stores its value and clears the error; a failure stores the
  /// error and keeps the last value.
  @inlinable
  static func show(_ outcome: RunOutcome<Value.Success>, in value: inout Value) {
    switch outcome {
    case .success(let success):
      value.applySuccess(success)
      value.operation.succeed()
    case .failure(let error):
      value.operation.fail(error)
    case .cancelled:
      preconditionFailure("a cancelled run has no result to show")
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
