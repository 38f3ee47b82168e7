/// The coordination of ``OperationPolicy/debounce(_:)`` triggers: only a trigger no later trigger followed within
/// the quiet time runs.
///
/// A value type with one mutating method per event, each returning a named action; the caller holds the coordinator's
/// lock around the call. The waiting itself (a sleep on the run's clock) happens outside, never in the machine. A
/// trigger that runs becomes an ordinary run of ``ParallelStateMachine``, so an older run that ends after a newer one
/// never overwrites it.
struct DebounceStateMachine {
  enum State: Equatable {
    /// No trigger is waiting.
    case idle
    /// `trigger` is the latest trigger and waits for its quiet time.
    case waiting(trigger: UInt64)
  }

  private(set) var state = State.idle

  init() {}

  enum QuietAction: Equatable, Sendable {
    /// The quiet time passed with no later trigger: run.
    case run
    /// A later trigger followed: settle as cancelled, without touching the state.
    case coalesce
  }

  /// Trigger `trigger` arrives; it supersedes every earlier waiting trigger.
  mutating func trigger(_ trigger: UInt64) {
    state = .waiting(trigger: trigger)
  }

  /// Trigger `trigger` waited its quiet time.
  mutating func quiet(_ trigger: UInt64) -> QuietAction {
    guard state == .waiting(trigger: trigger) else { return .coalesce }
    state = .idle
    return .run
  }

  /// Whether trigger `trigger` is still the latest, waiting trigger (no later trigger followed it yet).
  func isWaiting(_ trigger: UInt64) -> Bool {
    state == .waiting(trigger: trigger)
  }

  /// Trigger `trigger` was cancelled while it waited.
  mutating func cancel(_ trigger: UInt64) {
    if state == .waiting(trigger: trigger) { state = .idle }
  }
}

extension RunCoordination {
  /// Debounce trigger `trigger` waited its quiet time, while the state showed `status`. If no later trigger followed,
  /// its run starts in the same step (the caller shows it pending), so a later trigger can never start first and
  /// end up older. Returns the run's number, or `nil` if the trigger was coalesced.
  mutating func startDebounced(_ trigger: UInt64, from status: OperationStatus) -> UInt64? {
    guard debounce.quiet(trigger) == .run else { return nil }
    return parallel.start(from: status)
  }
}

extension Shared where Value: OperationTrackable {
  /// Runs with ``OperationPolicy/debounce(_:)``: the run waits `interval` on the options' clock, and runs only if no
  /// later run followed within that time.
  @usableFromInline
  func runDebounced(
    _ attempts: RunAttempts<Value>,
    interval: Duration,
    optimistic: OptimisticUpdate<Value>?,
    isolation: isolated (any Actor)?,
    callbacks: RunCallbacks<Value.Success>
  ) -> OperationTask<Value.Success> {
    let coordinator = self.coordinator
    let trigger = coordinator.coordinate { coordination in
      let trigger = coordination.nextCaller()
      coordination.debounce.trigger(trigger)
      return trigger
    }
    let clock = attempts.options.clock
    let task = Task {
      _ = isolation
      var started: UInt64?
      do {
        try await clock.sleep(for: interval, waitingFor: .debounce)
        // A coalesced trigger (the common case in a burst) is told apart under the coordinator's lock alone; one still
        // waiting decides and starts in one step with the value's lock held.
        if coordinator.coordinate({ $0.debounce.isWaiting(trigger) }) {
          started =
            begin(optimistic, coordinator: coordinator) { coordination, status in
              (coordination.startDebounced(trigger, from: status), ())
            }.0
        }
      } catch {
        coordinator.coordinate { $0.debounce.cancel(trigger) }
      }
      guard let run = started else {
        return try callbacks.deliver(.cancelled)
      }
      let outcome = await attempts.run(run, coordinator: coordinator)
      settle(outcome, run: run, optimistic: optimistic, coordinator: coordinator)
      return try callbacks.deliver(outcome)
    }
    return OperationTask(task: task)
  }
}
