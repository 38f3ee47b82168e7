/// The coordination of the runs on one shared value: which run the state follows, and each policy's own decisions.
///
/// Every policy keeps its state machine here, under one lock, so runs of different policies on one value share the
/// state-following machine (``ParallelStateMachine``) and the run numbers. A transition that involves several
/// machines (a run superseding another, a dedupe execution completing, a serial run handing over to the next) is
/// one method that returns one named action, so it is one step under the lock; each such method lives in its
/// policy's file (`Policies/CancelPreviousPolicy.swift`, ...), as an extension of this type, beside the policy's
/// machine and the code that runs it.
///
/// `Work` is the task of a `.cancelPrevious` run or of a `.debounceCancellingPrevious` trigger, `Execution` the task
/// of a dedupe execution, `ExecutionWaiter` a dedupe caller's continuation and `TurnWaiter` a queued serial run's
/// continuation; tests use any values.
@usableFromInline
struct RunCoordination<Success: Sendable, Work, Execution, ExecutionWaiter, TurnWaiter> {
  /// Which run the state shows; every run that may write the state goes through it.
  @usableFromInline var parallel = ParallelStateMachine<Success>()
  var cancelPrevious = CancelPreviousStateMachine<Work>()
  var dedupe = DedupeStateMachine<RunOutcome<Success>, ExecutionWaiter, Execution>()
  var serial = SerialStateMachine<TurnWaiter>()
  var debounce = DebounceStateMachine()
  var debounceCancellingPrevious = DebounceCancellingPreviousStateMachine<Work>()
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
}

extension RunCoordination.Settlement: Sendable {}
