/// Which run the shared operation state shows: the most recently started run that was not cancelled.
///
/// This is the whole coordination of ``OperationPolicy/parallel`` runs, and every other policy feeds the runs it lets
/// write the state through it too, so that, whatever the policy, the state follows the most recently started run:
/// - a run that starts shows pending;
/// - a run that ends while a newer run may still write is kept off the state; if every newer run is then
///   cancelled, the newest such result is shown after all;
/// - a run that ends after a newer one was shown never writes;
/// - a cancelled run shows what the newest remaining run shows: pending while it runs, its result once it ended,
///   and when no run remains, the status the last shown run (or a reset) left.
///
/// A value type with one mutating method per event, each returning what the caller must write; the caller holds the
/// value's lock around the call and writes the value in the same critical section, so that the decision and the
/// write are one step for every holder. Results the machine stops holding are handed back in the action, to be
/// released after the lock.
@usableFromInline
struct ParallelStateMachine<Outcome> {
  /// A run that ended while a newer one could still write: its result, shown if every newer run is cancelled.
  @usableFromInline
  struct Held {
    @usableFromInline var run: UInt64
    @usableFromInline var outcome: Outcome
    @usableFromInline var status: OperationStatus

    @inlinable
    init(run: UInt64, outcome: Outcome, status: OperationStatus) {
      self.run = run
      self.outcome = outcome
      self.status = status
    }
  }

  @usableFromInline
  enum State {
    /// No run may write; the state shows `settled`.
    case quiet(settled: OperationStatus)
    /// Runs in ``live`` may write. `held` is newer than every shown run and older than the newest live one;
    /// `settled` is the status to show if every run is cancelled.
    case running(held: Held?, settled: OperationStatus)
  }

  @usableFromInline var state = State.quiet(settled: .idle)
  /// The runs that may still write, in start order; empty when quiet. Kept outside the state so that starting and
  /// ending a run changes it in place, without copying it.
  @usableFromInline var live: [UInt64] = []
  /// The newest run whose result the state shows; runs older than it never write.
  @usableFromInline var shown: UInt64 = 0
  @usableFromInline var lastRun: UInt64 = 0

  @inlinable
  init() {}

  /// What the caller writes when a run ends.
  @usableFromInline
  enum FinishAction {
    /// Write this run's result; release `released` after the lock.
    case show(releasing: Outcome?)
    /// Keep this run's result off the state; release `released` after the lock.
    case hide(releasing: Outcome?)
  }

  /// What the caller writes when a run is cancelled (or superseded, or abandoned).
  @usableFromInline
  enum CancelAction {
    /// Nothing: a newer run still decides the state.
    case keep
    /// Show a run's result that was held back while this newer run could write.
    case show(Outcome, status: OperationStatus)
    /// No run remains: show the status the last shown run (or a reset) left.
    case restore(OperationStatus)
  }

  /// What the caller writes when an attempt of a run begins.
  @usableFromInline
  enum RetryAction: Equatable, Sendable {
    case showAttempt
    case ignore
  }

  /// A run starts; the caller shows pending. Returns the run's number.
  ///
  /// - Parameter status: The status the state shows now, kept to restore if this and every run beside it is
  ///   cancelled.
  @inlinable
  mutating func start(from status: OperationStatus) -> UInt64 {
    lastRun += 1
    if case .quiet = state { state = .running(held: nil, settled: status) }
    live.append(lastRun)
    return lastRun
  }

  /// Run `run` begins another attempt.
  @inlinable
  func retry(_ run: UInt64) -> RetryAction {
    live.last == run && run > shown ? .showAttempt : .ignore
  }

  /// Run `run` ended with `outcome`, which shows `status` (success or error).
  @inlinable
  mutating func finish(_ run: UInt64, with outcome: Outcome, status: OperationStatus) -> FinishAction {
    guard case .running(let held, let settled) = state, let index = live.lastIndex(of: run) else {
      preconditionFailure("run \(run) ended twice or never started")
    }
    live.remove(at: index)
    if run < shown || (held.map { $0.run > run } ?? false) {
      if live.isEmpty && held == nil { state = .quiet(settled: settled) }
      return .hide(releasing: nil)
    }
    if let newest = live.last, newest > run {
      state = .running(held: Held(run: run, outcome: outcome, status: status), settled: settled)
      return .hide(releasing: held?.outcome)
    }
    shown = run
    state = live.isEmpty ? .quiet(settled: status) : .running(held: nil, settled: status)
    return .show(releasing: held?.outcome)
  }

  /// Run `run` ended without a result: cancelled, superseded or abandoned.
  @inlinable
  mutating func cancel(_ run: UInt64) -> CancelAction {
    guard case .running(let held, let settled) = state, let index = live.lastIndex(of: run) else {
      preconditionFailure("run \(run) ended twice or never started")
    }
    live.remove(at: index)
    let floor = max(shown, held?.run ?? 0)
    if run < floor {
      if live.isEmpty && held == nil { state = .quiet(settled: settled) }
      return .keep
    }
    if let newest = live.last, newest > floor {
      return .keep
    }
    if let held {
      shown = held.run
      state = live.isEmpty ? .quiet(settled: held.status) : .running(held: nil, settled: held.status)
      return .show(held.outcome, status: held.status)
    }
    state = live.isEmpty ? .quiet(settled: settled) : .running(held: nil, settled: settled)
    return .restore(settled)
  }

  /// What ``endUnseen(_:with:status:)`` did.
  @usableFromInline
  enum UnseenEndAction {
    /// Ending the run writes the state: nothing was changed; end it with the value's lock held.
    case writes
    /// The run ended without anything to write; release `released` after the lock.
    case ended(releasing: Outcome?)
  }

  /// Ends run `run` (with `outcome` showing `status`, or cancelled if `outcome` is `nil`) only if that writes
  /// nothing to the state: its result is kept off the state, or a newer run still decides it. Needs only the
  /// runner's lock, so a run with nothing to write takes no value lock and notifies nobody.
  @inlinable
  mutating func endUnseen(_ run: UInt64, with outcome: Outcome?, status: OperationStatus) -> UnseenEndAction {
    guard case .running(let held, _) = state else { return .writes }
    let newerLive = live.last.map { $0 > run } ?? false
    if let outcome {
      guard run < shown || (held.map { $0.run > run } ?? false) || newerLive else { return .writes }
      guard case .hide(let released) = finish(run, with: outcome, status: status) else {
        preconditionFailure("a run kept off the state was shown")
      }
      return .ended(releasing: released)
    }
    let floor = max(shown, held?.run ?? 0)
    let newestOther = live.last(where: { $0 != run })
    guard run < floor || (newestOther.map { $0 > floor } ?? false) else { return .writes }
    guard case .keep = cancel(run) else { preconditionFailure("a run that writes nothing wrote") }
    return .ended(releasing: nil)
  }

  /// The state was reset to idle; runs under way still write when they end. Returns a held result to release after
  /// the lock.
  @inlinable
  mutating func reset() -> Outcome? {
    guard case .running(let held, _) = state else {
      state = .quiet(settled: .idle)
      return nil
    }
    state = live.isEmpty ? .quiet(settled: .idle) : .running(held: nil, settled: .idle)
    return held?.outcome
  }

  /// Whether no run may write the state any more.
  @inlinable
  var isQuiet: Bool {
    if case .quiet = state { return true }
    return false
  }
}

extension ParallelStateMachine.Held: Sendable where Outcome: Sendable {}
extension ParallelStateMachine.FinishAction: Sendable where Outcome: Sendable {}
extension ParallelStateMachine.CancelAction: Sendable where Outcome: Sendable {}
extension ParallelStateMachine.UnseenEndAction: Sendable where Outcome: Sendable {}
