/// The coordination of ``OperationPolicy/cancelPrevious`` runs: which run is the latest, and the work of the one a
/// new run supersedes.
///
/// A value type with one mutating method per event, each returning a named action; the caller holds the runner's
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
