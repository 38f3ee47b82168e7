/// The coordination of the runs on one shared value: which run the state follows, and each policy's own decisions.
///
/// Every policy keeps its state machine here, under one lock, so runs of different policies on one value share the
/// state-following machine (``ParallelStateMachine``) and the run numbers. A transition that involves several
/// machines (a run superseding another, a dedupe execution completing, a serial run handing over to the next) is
/// one method here that returns one named action, so it is one step under the lock.
///
/// `Work` is the task of a `.cancelPrevious` run, `Execution` the task of a dedupe execution, `ExecutionWaiter` a
/// dedupe caller's continuation and `TurnWaiter` a queued serial run's continuation; tests use any values.
@usableFromInline
struct OperationCoordination<Success: Sendable, Work, Execution, ExecutionWaiter, TurnWaiter> {
  /// Which run the state shows; every run that may write the state goes through it.
  @usableFromInline var parallel = ParallelStateMachine<Success>()
  var cancelPrevious = CancelPreviousStateMachine<Work>()
  var dedupe = DedupeStateMachine<RunOutcome<Success>, ExecutionWaiter, Execution>()
  var serial = SerialStateMachine<TurnWaiter>()
  var debounce = DebounceStateMachine()
  /// The number of the last caller of a policy's machine (a trigger, a queued run, a dedupe caller).
  var lastCaller: UInt64 = 0

  @usableFromInline
  init() {}

  /// A new caller number.
  mutating func nextCaller() -> UInt64 {
    lastCaller += 1
    return lastCaller
  }

  // MARK: Ending a run

  /// What the caller writes when a run ends.
  @usableFromInline
  enum Settlement {
    /// Apply the successes in `earlier` in order, then write this run's own result.
    case showResult(applyingFirst: [ParallelStateMachine<Success>.Ending])
    /// Apply the successes in `earlier` in order, then write `held`, a result held back from an older run.
    case showHeld(ParallelStateMachine<Success>.Ending, applyingFirst: [ParallelStateMachine<Success>.Ending])
    /// Show this status: no run remains that could write.
    case restore(OperationStatus)
    /// Write nothing: a newer run decides the state.
    case nothing
  }

  /// Run `run` ended with `outcome`, as `ending` says it may write. Returns what to write.
  @inlinable
  mutating func end(_ run: UInt64, with outcome: RunOutcome<Success>, as ending: RunEnding) -> Settlement {
    switch (ending, outcome) {
    case (.alreadyLeft, _):
      return .nothing
    case (.withOutcome, .success(let success)):
      return Self.settlement(of: parallel.finish(run, with: .success(success)))
    case (.withOutcome, .failure(let error)):
      return Self.settlement(of: parallel.finish(run, with: .failure(error)))
    case (.withOutcome, .cancelled), (.withoutResult, _):
      return Self.settlement(of: parallel.cancel(run))
    }
  }

  @inlinable
  static func settlement(of action: ParallelStateMachine<Success>.FinishAction) -> Settlement {
    switch action {
    case .show(let earlier): return .showResult(applyingFirst: earlier)
    case .hide: return .nothing
    }
  }

  @inlinable
  static func settlement(of action: ParallelStateMachine<Success>.CancelAction) -> Settlement {
    switch action {
    case .keep: return .nothing
    case .show(let held, let earlier): return .showHeld(held, applyingFirst: earlier)
    case .restore(let status): return .restore(status)
    }
  }

  /// The status the state shows after `settlement` is written over `status`.
  static func status(after settlement: Settlement, from status: OperationStatus) -> OperationStatus {
    switch settlement {
    case .showResult: preconditionFailure("the status of a run's own result is its outcome's")
    case .showHeld(let held, _): return ParallelStateMachine<Success>.status(of: held)
    case .restore(let restored): return restored
    case .nothing: return status
    }
  }

  // MARK: cancelPrevious

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

  // MARK: dedupe

  /// What the caller does when a dedupe execution ends.
  struct DedupeCompletion {
    var settlement: Settlement
    /// Whether every caller had left: the execution writes no result.
    var isAbandoned: Bool
    /// Callers waiting for the result, to resume after the lock.
    var resuming: [ExecutionWaiter]
  }

  /// The dedupe execution started by `starter` as run `run` ended with `outcome`. It closes to new callers in the
  /// same step that decides what it writes; if every caller left, it writes no result.
  mutating func completeExecution(
    _ starter: UInt64, run: UInt64, with outcome: RunOutcome<Success>
  ) -> DedupeCompletion {
    switch dedupe.complete(starter, with: outcome) {
    case .resume(let waiters):
      return DedupeCompletion(
        settlement: end(run, with: outcome, as: .withOutcome), isAbandoned: false, resuming: waiters)
    case .abandoned:
      return DedupeCompletion(
        settlement: end(run, with: outcome, as: .withoutResult), isAbandoned: true, resuming: [])
    }
  }

  // MARK: debounce

  /// Debounce trigger `trigger` waited its quiet time, while the state showed `status`. If no later trigger followed,
  /// its run starts in the same step (the caller shows it pending), so a later trigger can never start first and
  /// end up older. Returns the run's number, or `nil` if the trigger was coalesced.
  mutating func startDebounced(_ trigger: UInt64, from status: OperationStatus) -> UInt64? {
    guard debounce.quiet(trigger) == .run else { return nil }
    return parallel.start(from: status)
  }

  // MARK: serial

  /// A serial run whose turn came at once inside `run` starts, showing `status` before it. Returns its run number.
  mutating func startTurn(_ ticket: UInt64, from status: OperationStatus) -> UInt64 {
    let run = parallel.start(from: status)
    guard case .none = serial.start(ticket, as: run) else {
      preconditionFailure("a serial run waited before its own run call returned")
    }
    return run
  }

  /// What the caller does when a serial run ends.
  struct SerialFinish {
    var settlement: Settlement
    /// The next queued run, which starts in the same step: the caller shows it pending and resumes its waiter (if
    /// it already waits) with its run number.
    var next: (run: UInt64, resuming: TurnWaiter?)?
  }

  /// Serial run `ticket`, run `run`, ended with `outcome` while the state showed `status`. The next queued run
  /// starts in the same step, so the state goes from this run's result straight to the next one's pending.
  mutating func finishTurn(
    _ ticket: UInt64, run: UInt64, with outcome: RunOutcome<Success>, from status: OperationStatus
  ) -> SerialFinish {
    let settlement = end(run, with: outcome, as: .withOutcome)
    guard case .start(let nextTicket) = serial.finish(ticket) else {
      return SerialFinish(settlement: settlement, next: nil)
    }
    let shown: OperationStatus
    switch (settlement, outcome) {
    case (.showResult, .success): shown = .success
    case (.showResult, _): shown = .error
    default: shown = Self.status(after: settlement, from: status)
    }
    let nextRun = parallel.start(from: shown)
    switch serial.start(nextTicket, as: nextRun) {
    case .resume(let waiter): return SerialFinish(settlement: settlement, next: (nextRun, waiter))
    case .none: return SerialFinish(settlement: settlement, next: (nextRun, nil))
    }
  }
}

/// How a run ends for the shared state, as its policy decides.
@usableFromInline
enum RunEnding: Sendable {
  /// The run ends with its outcome: a result to show, or cancelled.
  case withOutcome
  /// The run ends without a result, whatever its outcome (every caller of a dedupe execution left).
  case withoutResult
  /// The run already left the state when a newer run superseded it: only its optimistic update is rolled back.
  case alreadyLeft
}

extension OperationCoordination.Settlement: Sendable {}
extension OperationCoordination.SupersedingStart: Sendable where Work: Sendable {}
extension OperationCoordination.DedupeCompletion: Sendable where ExecutionWaiter: Sendable {}
extension OperationCoordination.SerialFinish: Sendable where TurnWaiter: Sendable {}
