/// Runs the attempts of one operation run: the attempt loop, with the attempt number and the yielded values written
/// into the state only while the state follows the run.
@usableFromInline
struct RunAttempts<Value: OperationTrackable>: Sendable {
  @usableFromInline let shared: Shared<Value>
  @usableFromInline let body: OperationBody<Value.Success>
  @usableFromInline let options: OperationOptions
  /// Work done after the attempts succeeded and before the run settles (a mutation awaiting the refetches it set
  /// off): the run stays under way until it returns. It cannot fail the run, and cancelling the run only cuts it
  /// short: the run still succeeds.
  @usableFromInline let afterSuccess: (@Sendable (Value.Success) async -> Void)?
  /// The network the run follows, if any: it then waits, paused, while the device is offline (see
  /// ``NetworkMode``).
  @usableFromInline let network: RunNetwork?

  @inlinable
  init(
    shared: Shared<Value>,
    body: OperationBody<Value.Success>,
    options: OperationOptions,
    afterSuccess: (@Sendable (Value.Success) async -> Void)? = nil,
    network: RunNetwork? = nil
  ) {
    self.shared = shared
    self.body = body
    self.options = options
    self.afterSuccess = afterSuccess
    self.network = network
  }

  /// Runs the attempts of run `run`, then the work after a success, if any; a retry shows its attempt number, and a
  /// yielded value shows, only while the state follows this run.
  @inlinable
  func run(_ run: UInt64, coordinator: RunCoordinator<Value>) async -> RunOutcome<Value.Success> {
    let outcome = await attempts(run, coordinator: coordinator)
    guard let afterSuccess, case .success(let value) = outcome else { return outcome }
    await afterSuccess(value)
    return outcome
  }

  /// Runs the attempts of run `run`, without the work after a success.
  ///
  /// A `CancellationError` thrown by the operation is never retried: it is cancellation when this run's task is
  /// cancelled, and otherwise a failure like any other error (`onError`, the stored error).
  @inlinable
  func attempts(_ run: UInt64, coordinator: RunCoordinator<Value>) async -> RunOutcome<Value.Success> {
    // The common case, one attempt of an operation that takes no context, with no timeout and no modifiers, that
    // need not wait for the network (none followed, or the device online), stays small enough to specialize in the
    // caller and builds no context.
    if case .plain(let operation) = body, options.retry.retries == 0, options.timeout == nil,
      options.modifiers.isEmpty, network?.startsWithoutWaiting ?? true
    {
      if Task.isCancelled { return .cancelled }
      do {
        let value = try await operation()
        // A run cancelled while its operation finished anyway counts as cancelled, as it would with a timeout.
        return Task.isCancelled ? .cancelled : .success(value)
      } catch {
        return Task.isCancelled ? .cancelled : .failure(error)
      }
    }
    return await runAttempts(run: run, coordinator: coordinator)
  }

  @usableFromInline
  func runAttempts(run: UInt64, coordinator: RunCoordinator<Value>) async -> RunOutcome<Value.Success> {
    let shared = self.shared
    // Only work that can see a context (the operation's own, or a modifier's) can yield.
    var yield: (@Sendable (Value.Success, YieldGate) -> Void)?
    if body.takesContext || !options.modifiers.isEmpty {
      yield = { value, attempt in
        // A value of a run the state does not follow, or of an attempt that ended, is dropped without taking the
        // value's lock.
        guard attempt.isOpen, coordinator.coordinate({ $0.parallel.progress(run) }) == .show else { return }
        shared.withLockReleasingReplaced { state in
          guard attempt.isOpen, coordinator.coordinate({ $0.parallel.progress(run) }) == .show else { return }
          state.applySuccess(value)
          state.operation.noteChange()
        }
      }
    }
    // A pause (or its end) shows only while the state follows this run, as a retry does.
    let network = self.network.map { network in
      NetworkRun(gate: network.gate, mode: network.mode) { networkRun in
        guard coordinator.coordinate({ $0.parallel.progress(run) }) == .show else { return }
        shared.withLock { state in
          guard coordinator.coordinate({ $0.parallel.progress(run) }) == .show else { return }
          state.operation.showPaused(networkRun.isPaused)
        }
      }
    }
    return await AttemptLoop.run(
      body, options: options, network: network, yield: yield,
      onFailure: { error, failureCount in
        // A failure of a run the state does not follow writes nothing, as its retry does not.
        guard coordinator.coordinate({ $0.parallel.progress(run) }) == .show else { return }
        shared.withLock { state in
          guard coordinator.coordinate({ $0.parallel.progress(run) }) == .show else { return }
          state.operation.noteFailure(error, failureCount: failureCount)
        }
      },
      onRetry: { attempt in
        // A retry of a run the state does not follow writes nothing: it takes no value lock.
        guard coordinator.coordinate({ $0.parallel.progress(run) }) == .show else { return }
        shared.withLock { state in
          guard coordinator.coordinate({ $0.parallel.progress(run) }) == .show else { return }
          state.operation.retry(attempt)
        }
      })
  }
}
