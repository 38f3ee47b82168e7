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
  /// and clears the error; a failure stores the error and keeps the last value. When runs overlap, the state follows
  /// the most recently started run that was not cancelled: an older run's result is not shown while a newer run is
  /// pending, nor after a newer one was shown. Whatever the library replaces in the value is released after its
  /// lock.
  ///
  /// Callbacks run on the caller's isolation: called from the main actor, they run on the main actor.
  ///
  /// > Important: `onAttempt` runs synchronously, before `run` returns. Then exactly one of `onSuccess` and
  /// > `onError` runs, or neither if the run was cancelled. `onSettled` always runs last, with the result;
  /// > a cancelled run settles with `CancellationError`.
  ///
  /// Cancelling the returned task cancels the operation: the state shows what the newest remaining run shows (pending
  /// while it runs, its result if it ended, otherwise what the last shown run or a reset left), the error is left as
  /// it was, and an optimistic update is rolled back. A `CancellationError` the operation throws is never retried:
  /// it is cancellation when the run was cancelled, and otherwise a failure like any other.
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
      // The new run becomes the latest in the same step that shows it pending.
      let (started, superseded) = begin(optimistic, runner: runner) {
        coordination, status -> (UInt64?, Task<Value.Success, any Error>?) in
        let run = coordination.parallel.start(from: status)
        guard case .supersede(let superseded, let work) = coordination.cancelPrevious.start(run) else {
          return (run, nil)
        }
        // The superseded run leaves the state now; the new run, newer and pending, decides it.
        _ = coordination.parallel.cancel(superseded)
        return (run, work)
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
        let isLatest = settle(outcome, run: run, optimistic: optimistic, runner: runner) { coordination in
          let isLatest = coordination.cancelPrevious.finish(run) == .latest
          return (isLatest ? .withOutcome : .alreadyLeft, isLatest)
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
          let waiters = shared.settle(outcome, run: run, optimistic: optimistic, runner: runner) { coordination in
            switch coordination.dedupe.complete(caller, with: outcome) {
            case .resume(let waiters): return (.withOutcome, waiters)
            case .abandoned: return (.withoutResult, [])
            }
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
      let clock = attempts.clock
      let task = Task {
        _ = isolation
        let quiet: Bool
        do {
          try await clock.sleep(for: interval)
          quiet = runner.coordinate { $0.debounce.quiet(trigger) } == .run
        } catch {
          runner.coordinate { $0.debounce.cancel(trigger) }
          quiet = false
        }
        guard quiet else {
          return try Self.deliver(.cancelled, onSuccess: onSuccess, onError: onError, onSettled: onSettled)
        }
        let run = begin(optimistic, runner: runner)
        let outcome = await attempts.run(run, runner: runner)
        settle(outcome, run: run, optimistic: optimistic, runner: runner)
        return try Self.deliver(outcome, onSuccess: onSuccess, onError: onError, onSettled: onSettled)
      }
      return OperationTask(task: task)

    case .serial:
      // Queued in call order inside `run` without touching the value; a run whose turn is at once shows pending
      // before `run` returns (otherwise the run ahead shows pending).
      let (ticket, place) = runner.coordinate { coordination in
        let ticket = coordination.nextCaller()
        return (ticket, coordination.serial.enqueue(ticket))
      }
      var started: UInt64?
      if place == .start {
        started =
          begin(nil, runner: runner) { coordination, status -> (UInt64?, Void) in
            let run = coordination.parallel.start(from: status)
            _ = coordination.serial.start(ticket, as: run)
            return (run, ())
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
        let next = settle(outcome, run: run, optimistic: optimistic, runner: runner) { coordination in
          (.withOutcome, coordination.serial.finish(ticket))
        } afterwards: { value, finished -> (UnsafeContinuation<UInt64?, Never>, UInt64)? in
          guard case .start(let nextTicket) = finished else { return nil }
          let status = value.operationStatus
          let (nextRun, started) = runner.coordinate { coordination in
            let nextRun = coordination.parallel.start(from: status)
            return (nextRun, coordination.serial.start(nextTicket, as: nextRun))
          }
          Self.showPending(in: &value)
          guard case .resume(let waiter) = started else { return nil }
          return (waiter, nextRun)
        }
        if let (waiter, nextRun) = next { waiter.resume(returning: nextRun) }
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
  /// A run that is under way is not cancelled: when it settles, it writes its result as usual. A result held back
  /// while a newer run was pending is dropped. The error cleared here is released after the value's lock.
  @inlinable
  public func reset() {
    let runner = self.runner
    _ = withLockReleasingReplaced { value -> RunOutcome<Value.Success>? in
      value.operationStatus = .idle
      value.error = nil
      value.operationAttempt = 0
      value.operationUpdatedAt = Date()
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
    deciding decide: (inout OperationCoordination<Value.Success>, OperationStatus) -> (UInt64?, Extra)
  ) -> (UInt64?, Extra) {
    func start(_ value: inout Value) -> (UInt64?, Extra) {
      let status = value.operationStatus
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
        case .success: return coordination.parallel.endUnseen(run, with: outcome, status: .success)
        case .failure: return coordination.parallel.endUnseen(run, with: outcome, status: .error)
        case .cancelled: return coordination.parallel.endUnseen(run, with: nil, status: .idle)
        }
      }
      if case .ended = unseen { return }
    }
    settle(outcome, run: run, optimistic: optimistic, runner: runner) { _ in (.withOutcome, ()) }
  }

  /// Writes how run `run` ended, as ``ParallelStateMachine`` decides: its result if the state follows it, nothing
  /// if a newer run decides the state, and for a cancelled run what the newest remaining run shows. `decide` runs in
  /// the same step and says whether the run may write at all (a superseded or abandoned run only rolls back). Rolls
  /// back the optimistic update of a run that did not succeed or may not write. Everything replaced is released
  /// after the value's lock.
  @inlinable
  func settle<Extra: Sendable>(
    _ outcome: RunOutcome<Value.Success>,
    run: UInt64,
    optimistic: OptimisticUpdate<Value>?,
    runner: OperationRunner<Value>,
    deciding decide: (inout OperationCoordination<Value.Success>) -> (RunEnding, Extra)
  ) -> Extra {
    settle(outcome, run: run, optimistic: optimistic, runner: runner, deciding: decide) { _, extra in extra }
  }

  /// ``settle(_:run:optimistic:runner:deciding:)``, then `afterwards` with the value and what `decide` returned,
  /// still under the value's lock (a serial run starts the next one there).
  @inlinable
  func settle<Extra: Sendable, After: Sendable>(
    _ outcome: RunOutcome<Value.Success>,
    run: UInt64,
    optimistic: OptimisticUpdate<Value>?,
    runner: OperationRunner<Value>,
    deciding decide: (inout OperationCoordination<Value.Success>) -> (RunEnding, Extra),
    afterwards: (inout Value, Extra) -> After
  ) -> After {
    let (after, released) = withLockReleasingReplaced { value -> (After, RunOutcome<Value.Success>?) in
      let (extra, released) = settleUnderLock(
        outcome, run: run, optimistic: optimistic, runner: runner, value: &value, deciding: decide)
      return (afterwards(&value, extra), released)
    }
    withExtendedLifetime(released) {}  // A result the machine stopped holding goes here, after the lock.
    return after
  }

  /// The part of settling done under the value's lock; returns what `decide` returned and a result to release
  /// after the lock.
  @inlinable
  func settleUnderLock<Extra: Sendable>(
    _ outcome: RunOutcome<Value.Success>,
    run: UInt64,
    optimistic: OptimisticUpdate<Value>?,
    runner: OperationRunner<Value>,
    value: inout Value,
    deciding decide: (inout OperationCoordination<Value.Success>) -> (RunEnding, Extra)
  ) -> (Extra, RunOutcome<Value.Success>?) {
    let (ending, extra, settlement) = runner.coordinate { coordination in
      let (ending, extra) = decide(&coordination)
      let settlement: RunSettlement<Value.Success>?
      switch (ending, outcome) {
      case (.alreadyLeft, _):
        settlement = nil
      case (.withOutcome, .success):
        settlement = .finished(coordination.parallel.finish(run, with: outcome, status: .success))
      case (.withOutcome, .failure):
        settlement = .finished(coordination.parallel.finish(run, with: outcome, status: .error))
      case (.withOutcome, .cancelled), (.withoutResult, _):
        settlement = .cancelled(coordination.parallel.cancel(run))
      }
      return (ending, extra, settlement)
    }
    if case .success = outcome, ending == .withOutcome {} else { optimistic?.rollback(&value) }
    guard let settlement else { return (extra, nil) }
    switch settlement {
    case .finished(.show(let dropped)):
      Self.show(outcome, in: &value)
      return (extra, dropped)
    case .finished(.hide(let dropped)):
      return (extra, dropped)
    case .cancelled(.keep):
      return (extra, nil)
    case .cancelled(.show(let held, _)):
      Self.show(held, in: &value)
      return (extra, held)
    case .cancelled(.restore(let status)):
      value.operationStatus = status
      value.operationUpdatedAt = Date()
      return (extra, nil)
    }
  }

  /// Shows a run that starts: pending, at its first attempt.
  @inlinable
  static func showPending(in value: inout Value) {
    value.operationStatus = .pending
    value.operationAttempt = 1
    value.operationUpdatedAt = Date()
  }

  /// Writes a run's result into the value: a success stores its value and clears the error; a failure stores the
  /// error and keeps the last value.
  @inlinable
  static func show(_ outcome: RunOutcome<Value.Success>, in value: inout Value) {
    switch outcome {
    case .success(let success):
      value.operationStatus = .success
      value.applySuccess(success)
      value.error = nil
    case .failure(let error):
      value.operationStatus = .error
      value.error = error
    case .cancelled:
      preconditionFailure("a cancelled run has no result to show")
    }
    value.operationUpdatedAt = Date()
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
