/// The coordination of ``OperationPolicy/debounceCancellingPrevious(_:)`` runs: only a trigger no later trigger
/// followed within the quiet time runs, and the run it starts supersedes the one in flight.
///
/// A value type with one mutating method per event, each returning a named action; the caller holds the coordinator's
/// lock around the call and performs the action (cancelling a task) after releasing it. The waiting itself (a sleep
/// on the run's clock) happens outside, never in the machine. `Work` is the handle of a trigger's task, which becomes
/// its run's task; tests use any value.
///
/// A trigger's task is attached once `run` made it, which may be after the task already woke (a quiet time of zero,
/// a clock moved at once), or after a later trigger superseded it: whatever it became by then, a task that no longer
/// waits or runs as the latest is cancelled.
struct DebounceCancellingPreviousStateMachine<Work> {
  /// The trigger waiting for its quiet time, and its task once attached.
  struct Waiting {
    var trigger: UInt64
    var work: Work?
  }

  /// The run in flight: the latest to start. `trigger` is the trigger it started from.
  struct InFlight {
    var trigger: UInt64
    var run: UInt64
    var work: Work?
  }

  enum State {
    /// No trigger waits and no run is in flight.
    case idle
    /// A trigger waits for its quiet time; the run in flight, if any, goes on meanwhile.
    case waiting(Waiting, inFlight: InFlight?)
    /// A run is in flight and no trigger waits.
    case running(InFlight)
  }

  private(set) var state = State.idle

  init() {}

  enum TriggerAction {
    /// The trigger that waited was coalesced: cancel its task (if attached), which settles it as cancelled at once.
    case coalesce(Work?)
    case none
  }

  enum AttachAction: Equatable, Sendable {
    /// The trigger still waits, or its run is still the latest: its task is kept to cancel later.
    case keep
    /// The trigger was coalesced, or its run superseded, before its task was attached: cancel the task.
    case cancel
  }

  enum QuietAction {
    /// The quiet time passed with no later trigger: the trigger runs, and supersedes the run in flight (if any):
    /// that run leaves the shared state in this step, and its task (if attached) is cancelled after the lock.
    case run(superseding: InFlight?)
    /// A later trigger followed: settle as cancelled, without touching the state.
    case coalesce
  }

  enum FinishAction: Equatable, Sendable {
    /// The run was still the latest: it writes the state and gets its own result.
    case latest
    /// A newer run superseded it: it left the state when it was superseded, and settles as cancelled.
    case superseded
  }

  /// Trigger `trigger` arrives; it supersedes the trigger that waited, if any. The run in flight goes on.
  mutating func trigger(_ trigger: UInt64) -> TriggerAction {
    let waiting = Waiting(trigger: trigger, work: nil)
    switch state {
    case .idle:
      state = .waiting(waiting, inFlight: nil)
      return .none
    case .waiting(let coalesced, let inFlight):
      state = .waiting(waiting, inFlight: inFlight)
      return .coalesce(coalesced.work)
    case .running(let inFlight):
      state = .waiting(waiting, inFlight: inFlight)
      return .none
    }
  }

  /// The task of trigger `trigger` was made.
  mutating func attach(_ trigger: UInt64, work: Work) -> AttachAction {
    switch state {
    case .waiting(var waiting, let inFlight) where waiting.trigger == trigger:
      waiting.work = work
      state = .waiting(waiting, inFlight: inFlight)
      return .keep
    case .waiting(let waiting, var inFlight?) where inFlight.trigger == trigger:
      inFlight.work = work
      state = .waiting(waiting, inFlight: inFlight)
      return .keep
    case .running(var inFlight) where inFlight.trigger == trigger:
      inFlight.work = work
      state = .running(inFlight)
      return .keep
    case .idle, .waiting, .running:
      return .cancel
    }
  }

  /// Whether trigger `trigger` is still the latest, waiting trigger (no later trigger followed it yet).
  func isWaiting(_ trigger: UInt64) -> Bool {
    guard case .waiting(let waiting, _) = state else { return false }
    return waiting.trigger == trigger
  }

  /// Trigger `trigger` waited its quiet time. If no later trigger followed, it runs as run `run`, which becomes the
  /// latest; the caller numbers the run only once ``isWaiting(_:)`` said so, in the same step.
  mutating func quiet(_ trigger: UInt64, as run: UInt64) -> QuietAction {
    guard case .waiting(let waiting, let inFlight) = state, waiting.trigger == trigger else { return .coalesce }
    state = .running(InFlight(trigger: trigger, run: run, work: waiting.work))
    return .run(superseding: inFlight)
  }

  /// Trigger `trigger` was cancelled while it waited: the run in flight, if any, stays the latest.
  mutating func cancel(_ trigger: UInt64) {
    guard case .waiting(let waiting, let inFlight) = state, waiting.trigger == trigger else { return }
    state = inFlight.map(State.running) ?? .idle
  }

  /// Whether no trigger waits and no run is in flight. The interleaving tests check it once everything ended.
  var isIdle: Bool {
    if case .idle = state { return true }
    return false
  }

  /// Whether a newer run superseded run `run`; once true, it stays true.
  func isSuperseded(_ run: UInt64) -> Bool {
    switch state {
    case .idle, .waiting(_, inFlight: nil): return true
    case .waiting(_, let inFlight?), .running(let inFlight): return inFlight.run != run
    }
  }

  /// Run `run` ended. A trigger waiting meanwhile keeps waiting.
  mutating func finish(_ run: UInt64) -> FinishAction {
    switch state {
    case .running(let inFlight) where inFlight.run == run:
      state = .idle
      return .latest
    case .waiting(let waiting, let inFlight?) where inFlight.run == run:
      state = .waiting(waiting, inFlight: nil)
      return .latest
    case .idle, .waiting, .running:
      return .superseded
    }
  }
}

extension DebounceCancellingPreviousStateMachine.TriggerAction: Sendable where Work: Sendable {}
extension DebounceCancellingPreviousStateMachine.InFlight: Sendable where Work: Sendable {}
extension DebounceCancellingPreviousStateMachine.QuietAction: Sendable where Work: Sendable {}

extension RunCoordination {
  /// Trigger `trigger` of a `.debounceCancellingPrevious` run waited its quiet time while the state showed `status`.
  /// If no later trigger followed, its run starts in the same step (the caller shows it fetching), becomes the latest,
  /// and the run it supersedes leaves the state in this step too (the new run, newer and under way, decides it).
  /// Returns the new run and the superseded run's work to cancel after the lock, or `nil` if the trigger was
  /// coalesced.
  mutating func startDebouncedSuperseding(_ trigger: UInt64, from status: OperationStatus) -> SupersedingStart? {
    guard debounceCancellingPrevious.isWaiting(trigger) else { return nil }
    let run = parallel.start(from: status)
    guard case .run(let superseded) = debounceCancellingPrevious.quiet(trigger, as: run) else {
      preconditionFailure("a waiting trigger was coalesced in the step that found it waiting")
    }
    guard let superseded else { return SupersedingStart(run: run, cancelling: nil) }
    guard case .keep = parallel.cancel(superseded.run) else {
      preconditionFailure("a superseded run wrote the state while a newer run was under way")
    }
    return SupersedingStart(run: run, cancelling: superseded.work)
  }

  /// A `.debounceCancellingPrevious` run ended with `outcome`. Returns what to write, and whether the run was still
  /// the latest (a superseded run settles as cancelled).
  mutating func endDebouncedSuperseding(
    _ run: UInt64, with outcome: RunOutcome<Success>
  ) -> (Settlement, isLatest: Bool) {
    guard debounceCancellingPrevious.finish(run) == .latest else { return (.nothing, false) }
    return (end(run, with: outcome, as: .withOutcome), true)
  }
}

extension Shared where Value: OperationTrackable {
  /// Runs with ``OperationPolicy/debounceCancellingPrevious(_:)``: the run waits `interval` on the options' clock
  /// and runs only if no later run followed within that time; the run that starts supersedes the one in flight,
  /// which leaves the state in the step that shows the new run fetching, and whose task is cancelled. A run that a
  /// later one follows is cancelled at once.
  @usableFromInline
  func runDebouncedCancellingPrevious(
    _ attempts: RunAttempts<Value>,
    interval: Duration,
    optimistic: OptimisticUpdate<Value>?,
    isolation: isolated (any Actor)?,
    callbacks: RunCallbacks<Value.Success>
  ) -> OperationTask<Value.Success> {
    let coordinator = self.coordinator
    let (trigger, coalesced) = coordinator.coordinate { coordination in
      let trigger = coordination.nextCaller()
      return (trigger, coordination.debounceCancellingPrevious.trigger(trigger))
    }
    // The trigger this one follows stops waiting at once: its sleep ends, and it settles as cancelled.
    if case .coalesce(let work) = coalesced { work?.cancel() }
    let clock = attempts.options.clock
    let task = Task {
      _ = isolation
      var started: UInt64?
      do {
        try await clock.sleep(for: interval, waitingFor: .debounce)
        // A trigger a later one followed is told apart under the coordinator's lock alone; one still waiting
        // decides, starts and supersedes the run in flight in one step with the value's lock held.
        if coordinator.coordinate({ $0.debounceCancellingPrevious.isWaiting(trigger) }) {
          let (run, superseded) = begin(optimistic, coordinator: coordinator, showing: .fetching) {
            coordination, status in
            let start = coordination.startDebouncedSuperseding(trigger, from: status)
            return (start?.run, start?.cancelling)
          }
          started = run
          superseded?.cancel()
        }
      } catch {
        coordinator.coordinate { $0.debounceCancellingPrevious.cancel(trigger) }
      }
      guard let run = started else {
        return try callbacks.deliver(.cancelled)
      }
      let outcome = await attempts.run(run, coordinator: coordinator)
      // A superseded run already left the state; without an optimistic update it has nothing to write.
      if optimistic == nil && coordinator.coordinate({ $0.debounceCancellingPrevious.isSuperseded(run) }) {
        return try callbacks.deliver(.cancelled)
      }
      let isLatest = settle(outcome, optimistic: optimistic, coordinator: coordinator) { coordination, _ in
        let (settlement, isLatest) = coordination.endDebouncedSuperseding(run, with: outcome)
        return (settlement, isLatest ? .withOutcome : .alreadyLeft, isLatest)
      }
      return try callbacks.deliver(isLatest ? outcome : .cancelled)
    }
    if coordinator.coordinate({ $0.debounceCancellingPrevious.attach(trigger, work: task) }) == .cancel {
      task.cancel()
    }
    return OperationTask(task: task)
  }
}
