/// The coordination of the runs on one shared value: which run the state follows, and each policy's own decisions.
///
/// Every policy keeps its state machine here, under one lock, so runs of different policies on one value share the
/// state-following machine (``ParallelStateMachine``) and the run numbers.
@usableFromInline
struct OperationCoordination<Success: Sendable> {
  /// Which run the state shows; every run that may write the state goes through it.
  @usableFromInline var parallel = ParallelStateMachine<RunOutcome<Success>>()
  var cancelPrevious = CancelPreviousStateMachine<Task<Success, any Error>>()
  var dedupe = DedupeStateMachine<
    RunOutcome<Success>, UnsafeContinuation<RunOutcome<Success>, Never>, Task<Void, Never>
  >()
  var serial = SerialStateMachine<UnsafeContinuation<UInt64?, Never>>()
  var debounce = DebounceStateMachine()
  /// The number of the last caller of a policy's machine (a trigger, a queued run, a dedupe caller).
  var lastCaller: UInt64 = 0

  init() {}

  /// A new caller number.
  mutating func nextCaller() -> UInt64 {
    lastCaller += 1
    return lastCaller
  }
}

/// What ``ParallelStateMachine`` decided when a run ended: as a run with a result, or as a run without one.
@usableFromInline
enum RunSettlement<Success: Sendable>: Sendable {
  case finished(ParallelStateMachine<RunOutcome<Success>>.FinishAction)
  case cancelled(ParallelStateMachine<RunOutcome<Success>>.CancelAction)
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
