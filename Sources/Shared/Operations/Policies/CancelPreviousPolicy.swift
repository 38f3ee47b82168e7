/// The coordination of ``OperationPolicy/cancelPrevious`` runs: which run is the latest, and the work of the one a
/// new run supersedes.
///
/// A value type with one mutating method per event, each returning a named action; the caller holds the coordinator's
/// lock around the call and performs the action (cancelling a task) after releasing it. `Work` is the handle of a
/// run's work (a task); tests use any value.
struct CancelPreviousStateMachine<Work> {
  enum State {
    /// No run is under way.
    case idle
    /// `run` is the latest; `work` is its task once attached.
    case latest(run: UInt64, work: Work?)
  }

  private(set) var state = State.idle

  init() {}

  enum StartAction {
    /// Run `run` is superseded: it leaves the shared state at once, and its work (if attached) is cancelled.
    case supersede(run: UInt64, work: Work?)
    case none
  }

  enum AttachAction: Equatable, Sendable {
    /// The run is still the latest; its work is kept to cancel when it is superseded.
    case keep
    /// A newer run superseded this one before its work was attached: cancel the work.
    case cancel
  }

  enum FinishAction: Equatable, Sendable {
    /// The run was the latest: it writes the state and gets its own result.
    case latest
    /// A newer run superseded it: it left the state when it was superseded, and settles as cancelled.
    case superseded
  }

  /// Run `run` starts and becomes the latest.
  mutating func start(_ run: UInt64) -> StartAction {
    defer { state = .latest(run: run, work: nil) }
    if case .latest(let superseded, let work) = state { return .supersede(run: superseded, work: work) }
    return .none
  }

  /// The work of run `run` was created.
  mutating func attach(_ run: UInt64, work: Work) -> AttachAction {
    guard case .latest(run, _) = state else { return .cancel }
    state = .latest(run: run, work: work)
    return .keep
  }

  /// Whether a newer run superseded run `run`; once true, it stays true.
  func isSuperseded(_ run: UInt64) -> Bool {
    guard case .latest(let latest, _) = state else { return true }
    return latest != run
  }

  /// Run `run` ended.
  mutating func finish(_ run: UInt64) -> FinishAction {
    guard case .latest(run, _) = state else { return .superseded }
    state = .idle
    return .latest
  }
}

extension CancelPreviousStateMachine.StartAction: Sendable where Work: Sendable {}

extension RunCoordination {
  /// What the caller does when a `.cancelPrevious` run starts.
  struct SupersedingStart {
    /// The new run, which the caller shows pending.
    var run: UInt64
    /// The superseded run's work, to cancel after the lock (it already left the state).
    var cancelling: Work?
  }

  /// A `.cancelPrevious` run starts, showing `status` before it: it becomes the latest, and the run it supersedes
  /// leaves the state in the same step (the new run, newer and pending, decides it).
  mutating func startSuperseding(from status: OperationStatus) -> SupersedingStart {
    let run = parallel.start(from: status)
    guard case .supersede(let superseded, let work) = cancelPrevious.start(run) else {
      return SupersedingStart(run: run, cancelling: nil)
    }
    guard case .keep = parallel.cancel(superseded) else {
      preconditionFailure("a superseded run wrote the state while a newer run was pending")
    }
    return SupersedingStart(run: run, cancelling: work)
  }

  /// A `.cancelPrevious` run ended with `outcome`. Returns what to write, and whether the run was still the latest
  /// (a superseded run settles as cancelled).
  mutating func endSuperseding(_ run: UInt64, with outcome: RunOutcome<Success>) -> (Settlement, isLatest: Bool) {
    guard cancelPrevious.finish(run) == .latest else { return (.nothing, false) }
    return (end(run, with: outcome, as: .withOutcome), true)
  }
}

extension RunCoordination.SupersedingStart: Sendable where Work: Sendable {}

extension Shared where Value: OperationTrackable {
  /// Runs with ``OperationPolicy/cancelPrevious``: the new run supersedes the one before it, which leaves the state
  /// in the step that shows the new run pending, and whose task is cancelled.
  @usableFromInline
  func runCancellingPrevious(
    _ attempts: RunAttempts<Value>,
    optimistic: OptimisticUpdate<Value>?,
    isolation: isolated (any Actor)?,
    callbacks: RunCallbacks<Value.Success>
  ) -> OperationTask<Value.Success> {
    let coordinator = self.coordinator
    // The new run becomes the latest, and the one it supersedes leaves the state, in the step that shows it pending.
    let (started, superseded) = begin(optimistic, coordinator: coordinator) { coordination, status in
      let start = coordination.startSuperseding(from: status)
      return (start.run, start.cancelling)
    }
    let run = started!
    superseded?.cancel()
    let task = Task {
      _ = isolation
      let outcome = await attempts.run(run, coordinator: coordinator)
      // A superseded run already left the state; without an optimistic update it has nothing to write.
      if optimistic == nil && coordinator.coordinate({ $0.cancelPrevious.isSuperseded(run) }) {
        return try callbacks.deliver(.cancelled)
      }
      let isLatest = settle(outcome, optimistic: optimistic, coordinator: coordinator) { coordination, _ in
        let (settlement, isLatest) = coordination.endSuperseding(run, with: outcome)
        return (settlement, isLatest ? .withOutcome : .alreadyLeft, isLatest)
      }
      return try callbacks.deliver(isLatest ? outcome : .cancelled)
    }
    if coordinator.coordinate({ $0.cancelPrevious.attach(run, work: task) }) == .cancel { task.cancel() }
    return OperationTask(task: task)
  }
}
