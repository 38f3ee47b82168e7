/// The steps every run goes through, whatever its policy: finding the value's coordinator, starting (pending, the
/// optimistic update), settling (the decision and the write in one step under the value's lock), and writing a result.
extension Shared where Value: OperationTrackable {
  /// The coordinator of runs on this value (per root and path to this value).
  @inlinable
  var coordinator: RunCoordinator<Value> {
    // The value itself (the common case) keeps its coordinator directly in its box; values inside another go through
    // the root's table of coordinators by path.
    switch reference {
    case .box(let box):
      return box.attachment(RunCoordinator<Value>.self, make: RunCoordinator.init)
    case .root(let root):
      return root.box.attachment(RunCoordinator<Value>.self, make: RunCoordinator.init)
    case .derived(let derived):
      return derived.root.attachment(RunCoordinatorTable.self, make: RunCoordinatorTable.init)
        .coordinator(for: derived.path, as: Value.self)
    }
  }

  /// Starts a run that may write the state: shows it pending and applies its optimistic update; returns its number.
  @inlinable
  func begin(_ optimistic: OptimisticUpdate<Value>?, coordinator: RunCoordinator<Value>) -> UInt64 {
    begin(optimistic, coordinator: coordinator) { coordination, status in
      (coordination.parallel.start(from: status), ())
    }.0!
  }

  /// Asks `decide`, in one step with the value's lock held, whether a run starts (it calls
  /// `coordination.parallel.start` if so); if one does, shows it as `display` says (pending by default) and applies
  /// its optimistic update. What the update replaces is released after the lock.
  @inlinable
  func begin<Extra: Sendable>(
    _ optimistic: OptimisticUpdate<Value>?,
    coordinator: RunCoordinator<Value>,
    showing display: RunDisplay = .pending,
    deciding decide: (inout RunCoordinator<Value>.Coordination, OperationStatus) -> (UInt64?, Extra)
  ) -> (UInt64?, Extra) {
    func start(_ value: inout Value) -> (UInt64?, Extra) {
      let status = value.operation.status
      let decision = coordinator.coordinate { decide(&$0, status) }
      guard decision.0 != nil else { return decision }
      switch display {
      case .pending: Self.showPending(in: &value)
      case .fetching: value.operation.beginFetch()
      }
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
    coordinator: RunCoordinator<Value>
  ) {
    if optimistic == nil {
      // A run whose end writes nothing ends under the coordinator's lock alone: no write, nobody notified.
      let unseen = coordinator.coordinate { coordination in
        switch outcome {
        case .success(let success): return coordination.parallel.endUnseen(run, with: .success(success))
        case .failure(let error): return coordination.parallel.endUnseen(run, with: .failure(error))
        case .cancelled: return coordination.parallel.endUnseen(run, with: nil)
        }
      }
      if case .ended = unseen { return }
    }
    settle(outcome, optimistic: optimistic, coordinator: coordinator) { coordination, _ in
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
    coordinator: RunCoordinator<Value>,
    deciding decide: (inout RunCoordinator<Value>.Coordination, OperationStatus) -> (
      RunCoordinator<Value>.Coordination.Settlement, RunEnding, Extra
    )
  ) -> Extra {
    settle(outcome, optimistic: optimistic, coordinator: coordinator, deciding: decide) { _, extra in extra }
  }

  /// ``settle(_:optimistic:coordinator:deciding:)``, then `afterwards` with the value and what `decide` returned,
  /// still under the value's lock (a serial run shows the next one pending there).
  @inlinable
  func settle<Extra: Sendable, After: Sendable>(
    _ outcome: RunOutcome<Value.Success>,
    optimistic: OptimisticUpdate<Value>?,
    coordinator: RunCoordinator<Value>,
    deciding decide: (inout RunCoordinator<Value>.Coordination, OperationStatus) -> (
      RunCoordinator<Value>.Coordination.Settlement, RunEnding, Extra
    ),
    afterwards: (inout Value, Extra) -> After
  ) -> After {
    let (after, released) = withLockReleasingReplaced {
      value -> (After, [ParallelStateMachine<Value.Success>.Ending]) in
      let status = value.operation.status
      let (settlement, ending, extra) = coordinator.coordinate { decide(&$0, status) }
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
    _ settlement: RunCoordinator<Value>.Coordination.Settlement,
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
}
