import Synchronization

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

/// The lock around the coordination of runs on one shared value.
///
/// Decisions are made synchronously inside `run`, under this lock, so runs are coordinated in the order `run` was
/// called; waiting happens afterwards, on tasks and continuations, never under the lock. When a decision goes with a
/// write of the value (a run starts, ends or retries), the caller takes the value's lock first and this one inside
/// it, never the other way round. Whatever the machines hand back (tasks to cancel, waiters to resume, results they
/// stop holding) is acted on or released after the lock.
@usableFromInline
final class OperationRunner<Value: OperationTrackable>: Sendable {
  @usableFromInline let coordination = Lock(OperationCoordination<Value.Success>())

  @usableFromInline
  init() {}

  /// Runs `body` with the coordination, under the lock.
  @inlinable
  func coordinate<Result>(_ body: (inout OperationCoordination<Value.Success>) -> sending Result) -> sending Result {
    coordination.withLock { body(&$0) }
  }
}

/// The runners of one root value, one per path to an operation state inside it, so runs on `$screen.posts` and on
/// `$screen.drafts`, or on `$list[0]` and `$list[1]`, are coordinated separately even when both hold the same type.
@usableFromInline
final class OperationRunners: Sendable {
  /// A path by key-path identity: equal key paths (with equal subscript arguments) are the same path.
  private struct Path: Hashable, Sendable {
    let keyPaths: [any AnyKeyPath & Sendable]
    let runner: ObjectIdentifier

    static func == (lhs: Path, rhs: Path) -> Bool {
      lhs.runner == rhs.runner && lhs.keyPaths.map { $0 as AnyKeyPath } == rhs.keyPaths.map { $0 as AnyKeyPath }
    }

    func hash(into hasher: inout Hasher) {
      hasher.combine(runner)
      for keyPath in keyPaths { hasher.combine(keyPath as AnyKeyPath) }
    }
  }

  private let runners = Lock<[Path: AnyObject]>([:])

  @usableFromInline
  init() {}

  @usableFromInline
  func runner<Value: OperationTrackable>(for path: [AnyKeyPath], as _: Value.Type) -> OperationRunner<Value> {
    // A projection's key paths were all handed in as `Sendable` (`Shared.subscript(dynamicMember:)` takes
    // `any WritableKeyPath & Sendable`; an unwrapped optional's is a literal without captures) and were erased to
    // `AnyKeyPath` on the way; this gives them back the `Sendable` they had. The two types are one class reference.
    let sendable = path.map { unsafeBitCast($0, to: (any AnyKeyPath & Sendable).self) }
    let key = Path(keyPaths: sendable, runner: ObjectIdentifier(OperationRunner<Value>.self))
    return runners.withLock { runners in
      if let existing = runners[key] as? OperationRunner<Value> { return existing }
      let made = OperationRunner<Value>()
      runners[key] = made
      return made
    }
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
