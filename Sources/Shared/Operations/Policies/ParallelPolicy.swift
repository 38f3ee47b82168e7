/// Which run the shared operation state shows: the most recently started run that was not cancelled.
///
/// This is the whole coordination of ``OperationPolicy/parallel`` runs, and every other policy feeds the runs it lets
/// write the state through it too, so that, whatever the policy, the state follows the most recently started run:
/// - a run that starts shows pending;
/// - a run that ends while a newer run may still write is held back, off the state;
/// - a run that is shown first applies, in start order, the successes held back from older runs, so a value whose
///   `applySuccess` accumulates loses none that ended before the shown run; the newest result is applied last;
/// - if every newer run is cancelled, the newest held-back result is shown after all (older ones applied first);
/// - a run that ends after a newer one was shown never writes;
/// - a cancelled run shows what the newest remaining run shows: pending while it runs, its result once it ended,
///   and when no run remains, the status the last shown run (or a reset) left.
///
/// A value type with one mutating method per event, each returning what the caller must write; the caller holds the
/// value's lock around the call and writes the value in the same critical section, so that the decision and the
/// write are one step for every holder. Results the machine stops holding are handed back in the action, to be
/// released after the lock.
@usableFromInline
struct ParallelStateMachine<Success> {
  /// How a run that ended with a result ended: a success or a failure (a cancelled run has no result).
  @usableFromInline
  typealias Ending = Result<Success, any Error>

  /// A run that ended while a newer one could still write: its result, applied when a newer run is shown, and shown
  /// itself if every newer run is cancelled.
  @usableFromInline
  struct Held {
    @usableFromInline var run: UInt64
    @usableFromInline var ending: Ending

    @inlinable
    init(run: UInt64, ending: Ending) {
      self.run = run
      self.ending = ending
    }
  }

  /// Runs under way.
  @usableFromInline
  struct Running {
    /// The runs that may still write, in start order; never empty.
    @usableFromInline var live: [UInt64]
    /// Results held back, in start order: each newer than every shown run and older than the newest live run.
    @usableFromInline var held: [Held]
    /// The status to show if every run is cancelled.
    @usableFromInline var settled: OperationStatus

    @inlinable
    init(live: [UInt64], held: [Held], settled: OperationStatus) {
      self.live = live
      self.held = held
      self.settled = settled
    }
  }

  @usableFromInline
  enum State {
    /// No run may write; the state shows `settled`.
    case quiet(settled: OperationStatus)
    /// Runs may write.
    case running(Running)
  }

  @usableFromInline var state = State.quiet(settled: .idle)
  /// The newest run whose result the state shows; runs older than it never write.
  @usableFromInline var shown: UInt64 = 0
  @usableFromInline var lastRun: UInt64 = 0
  /// The storage of the last `live` list, empty, kept while quiet so the next run to start does not allocate one.
  @usableFromInline var spareLive: [UInt64] = []

  @inlinable
  init() {}

  /// What the caller writes when a run ends with a result.
  @usableFromInline
  enum FinishAction {
    /// Apply the successes in `earlier` (held back from older runs, in start order), then write this run's result;
    /// release `earlier` after the lock.
    case show(applyingFirst: [Ending])
    /// Keep this run's result off the state (held back, or dropped because a newer run was shown).
    case hide
  }

  /// What the caller writes when a run is cancelled (or superseded, or abandoned).
  @usableFromInline
  enum CancelAction {
    /// Nothing: a newer run still decides the state.
    case keep
    /// Apply the successes in `earlier`, then show `ending`, held back while this newer run could write; release
    /// both after the lock.
    case show(Ending, applyingFirst: [Ending])
    /// No run remains that could write: show the status the last shown run (or a reset) left.
    case restore(OperationStatus)
  }

  /// What the caller writes when a run makes progress: begins another attempt, or yields a value.
  @usableFromInline
  enum ProgressAction: Equatable, Sendable {
    /// The state follows this run: write the attempt number, or apply the yielded value.
    case show
    /// The state follows a newer run (or this one ended): write nothing.
    case ignore
  }

  /// What ``endUnseen(_:with:)`` did.
  @usableFromInline
  enum UnseenEndAction {
    /// Ending the run writes the state: nothing was changed; end it with the value's lock held.
    case writes
    /// The run ended without anything to write.
    case ended
  }

  /// The status a result shows.
  @inlinable
  static func status(of ending: Ending) -> OperationStatus {
    switch ending {
    case .success: return .success
    case .failure: return .error
    }
  }

  /// A run starts; the caller shows pending. Returns the run's number.
  ///
  /// - Parameter status: The status the state shows now, kept to restore if this and every run beside it is
  ///   cancelled.
  @inlinable
  mutating func start(from status: OperationStatus) -> UInt64 {
    lastRun += 1
    switch state {
    case .quiet:
      var live = spareLive
      spareLive = []  // Leaves `live` the only reference, so the append reuses its storage.
      live.append(lastRun)
      state = .running(Running(live: live, held: [], settled: status))
    case .running(var running):
      state = .quiet(settled: .idle)  // Leaves `running` the only reference, so the append is in place.
      running.live.append(lastRun)
      state = .running(running)
    }
    return lastRun
  }

  /// Run `run` makes progress: it begins another attempt, or yields an intermediate value. The state shows it only
  /// while it follows this run: the run is the newest live one and no newer run was shown.
  @inlinable
  func progress(_ run: UInt64) -> ProgressAction {
    guard case .running(let running) = state else { return .ignore }
    return running.live.last == run && run > shown ? .show : .ignore
  }

  /// Run `run` ended with `ending`.
  @inlinable
  mutating func finish(_ run: UInt64, with ending: Ending) -> FinishAction {
    var running = takeRunning(ending: run)
    if run < shown {
      settle(running)
      return .hide
    }
    if (running.live.last.map { $0 > run } ?? false) || (running.held.last.map { $0.run > run } ?? false) {
      let index = running.held.firstIndex { $0.run > run } ?? running.held.endIndex
      running.held.insert(Held(run: run, ending: ending), at: index)
      settle(running)
      return .hide
    }
    let earlier = running.held.isEmpty ? [] : running.held.map(\.ending)
    shown = run
    running.held = []
    running.settled = Self.status(of: ending)
    settle(running)
    return .show(applyingFirst: earlier)
  }

  /// Run `run` ended without a result: cancelled, superseded or abandoned.
  @inlinable
  mutating func cancel(_ run: UInt64) -> CancelAction {
    var running = takeRunning(ending: run)
    let newestHeld = running.held.last
    let floor = max(shown, newestHeld?.run ?? 0)
    if run < shown || (running.live.last.map { $0 > floor } ?? false) {
      settle(running)
      return .keep
    }
    guard let newestHeld else {
      settle(running)
      return .restore(running.settled)
    }
    let earlier = running.held.dropLast().map(\.ending)
    shown = newestHeld.run
    running.held = []
    running.settled = Self.status(of: newestHeld.ending)
    settle(running)
    return .show(newestHeld.ending, applyingFirst: earlier)
  }

  /// Ends run `run` (with `ending`, or cancelled if `nil`) only if that writes nothing to the state: its result is
  /// held back or dropped, or a newer run still decides the state. Needs only the coordinator's lock, so a run with
  /// nothing to write takes no value lock and notifies nobody.
  @inlinable
  mutating func endUnseen(_ run: UInt64, with ending: Ending?) -> UnseenEndAction {
    guard case .running(let running) = state else { return .writes }
    let newerHeld = running.held.last.map { $0.run > run } ?? false
    if let ending {
      let newerLive = running.live.last.map { $0 > run } ?? false
      guard run < shown || newerLive || newerHeld else { return .writes }
      guard case .hide = finish(run, with: ending) else { preconditionFailure("a run kept off the state was shown") }
      return .ended
    }
    let floor = max(shown, running.held.last?.run ?? 0)
    let newestOther = running.live.last { $0 != run }
    guard run < shown || (newestOther.map { $0 > floor } ?? false) else { return .writes }
    guard case .keep = cancel(run) else { preconditionFailure("a run that writes nothing wrote") }
    return .ended
  }

  /// The state was reset to idle; runs under way still write when they end. Returns the results held back, dropped
  /// here, to release after the lock.
  @inlinable
  mutating func reset() -> [Ending] {
    guard case .running(var running) = state else {
      state = .quiet(settled: .idle)
      return []
    }
    let dropped = running.held.map(\.ending)
    running.held = []
    running.settled = .idle
    state = .running(running)
    return dropped
  }

  /// Whether no run may write the state any more. The interleaving tests check it once every run ended.
  var isQuiet: Bool {
    if case .quiet = state { return true }
    return false
  }

  /// Takes the runs under way out of the state, without run `run`, which ends.
  @inlinable
  mutating func takeRunning(ending run: UInt64) -> Running {
    guard case .running(var running) = state, let index = running.live.lastIndex(of: run) else {
      preconditionFailure("run \(run) ended twice or never started")
    }
    state = .quiet(settled: .idle)  // Leaves `running` the only reference, so the removal is in place.
    running.live.remove(at: index)
    return running
  }

  /// Puts the runs under way back, or settles quiet when none remains.
  @inlinable
  mutating func settle(_ running: Running) {
    assert(running.held.allSatisfy { $0.run > shown }, "a held result is older than the shown run")
    assert(
      running.held.last.map { held in running.live.last.map { $0 > held.run } ?? false } ?? true,
      "a result is held back with no newer run that could write")
    guard running.live.isEmpty else {
      state = .running(running)
      return
    }
    state = .quiet(settled: running.settled)
    spareLive = running.live
  }
}

extension ParallelStateMachine.Held: Sendable where Success: Sendable {}
extension ParallelStateMachine.Running: Sendable where Success: Sendable {}
extension ParallelStateMachine.FinishAction: Sendable where Success: Sendable {}
extension ParallelStateMachine.CancelAction: Sendable where Success: Sendable {}
extension ParallelStateMachine.UnseenEndAction: Sendable {}

extension Shared where Value: OperationTrackable {
  /// Runs with ``OperationPolicy/parallel``: the run starts at once, pending before `run` returns, and ends through
  /// ``ParallelStateMachine`` alone.
  @inlinable
  func runParallel(
    _ attempts: RunAttempts<Value>,
    optimistic: OptimisticUpdate<Value>?,
    isolation: isolated (any Actor)?,
    callbacks: RunCallbacks<Value.Success>
  ) -> OperationTask<Value.Success> {
    let coordinator = self.coordinator
    let run = begin(optimistic, coordinator: coordinator)
    let task = Task {
      _ = isolation
      let outcome = await attempts.run(run, coordinator: coordinator)
      settle(outcome, run: run, optimistic: optimistic, coordinator: coordinator)
      return try callbacks.deliver(outcome)
    }
    return OperationTask(task: task)
  }
}
