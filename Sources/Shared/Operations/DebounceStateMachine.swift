/// The coordination of ``OperationPolicy/debounce(_:)`` triggers: only a trigger no later trigger followed within
/// the quiet time runs.
///
/// A value type with one mutating method per event, each returning a named action; the caller holds the runner's
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
