import Synchronization

/// One fetch or run that follows the network: asks its store's ``NetworkGate`` before its first attempt and at each
/// retry, and waits, paused, while the gate says so.
///
/// Made only for work whose mode needs the network while a source is followed (see ``NetworkGate/mode(for:)``);
/// other work has none and asks nothing.
///
/// ## Showing the pause
///
/// The gate marks the run paused or not under its lock (``isPaused``), and whoever decided then writes the mark into
/// the state the run shows (``showPause()``): the run after it pauses, the gate after it resumes it. Each write reads
/// the mark under the value's lock, so whichever of two writes lands last writes the newest decision, and the state
/// never shows a run paused that goes on (or the reverse).
final class NetworkRun: Sendable {
  let gate: NetworkGate
  let mode: NetworkMode
  /// The run's number at its gate.
  let number: UInt64
  /// Writes ``isPaused`` into the state the run shows (reading it under the value's lock), if the state shows this
  /// run.
  private let show: @Sendable (NetworkRun) -> Void
  private let paused = Atomic<Bool>(false)
  private let starting = Atomic<UInt8>(Start.undecided.rawValue)
  private let signals = Lock(Signal.idle)

  private enum Start: UInt8 {
    case undecided
    case attempts
    case waits
  }

  /// What the run's task finds when it waits.
  private enum Signal {
    /// Nothing yet.
    case idle
    /// The task waits.
    case waiting(UnsafeContinuation<Bool, Never>)
    /// The gate answered before the task waited: go on (`true`) or end as cancelled.
    case answered(Bool)
  }

  /// A run of `mode` at `gate`, showing its pauses through `show`.
  init(gate: NetworkGate, mode: NetworkMode, show: @escaping @Sendable (NetworkRun) -> Void) {
    self.gate = gate
    self.mode = mode
    self.number = gate.nextRunNumber()
    self.show = show
  }

  /// Whether the gate last marked the run paused; read it under the lock of the value that shows it.
  var isPaused: Bool { paused.load(ordering: .acquiring) }

  /// Marks the run paused or not; the gate calls it under its lock.
  func markPaused(_ isPaused: Bool) {
    paused.store(isPaused, ordering: .releasing)
  }

  /// Writes the mark into the state the run shows.
  func showPause() {
    show(self)
  }

  // MARK: Steps of the run

  /// Decides, once, whether the first attempt waits for the network; returns `true` if it does. The caller writes
  /// the pause into the state (reading ``isPaused`` under the value's lock), as the fetch of a query does when it
  /// shows itself starting.
  func startsPaused() -> Bool {
    let (exchanged, current) = starting.compareExchange(
      expected: Start.undecided.rawValue, desired: Start.attempts.rawValue, ordering: .acquiringAndReleasing)
    guard exchanged else { return current == Start.waits.rawValue }
    // Online (the common case), or a first attempt that runs whatever the status: no lock.
    if mode != .online || gate.isOnlineNow { return false }
    guard gate.start(self) == .pause else { return false }
    starting.store(Start.waits.rawValue, ordering: .releasing)
    return true
  }

  /// Before the first attempt: waits for the network if the run starts paused (showing it, unless its starter did).
  /// Returns `false` if the run was cancelled meanwhile.
  func waitToStart() async -> Bool {
    let decided = starting.load(ordering: .acquiring) != Start.undecided.rawValue
    guard startsPaused() else { return true }
    if !decided { showPause() }
    return await waitForNetwork()
  }

  /// An attempt failed with a retry due: returns `true` if the retry waits for the network now, in place of its
  /// backoff (the pause is shown).
  func attemptFailed() -> Bool {
    guard gate.attemptFailed(self) == .pause else { return false }
    showPause()
    return true
  }

  /// The retry's backoff ended: returns `true` if the retry waits for the network (the pause is shown).
  func backoffEnded() -> Bool {
    guard gate.backoffEnded(self) == .pause else { return false }
    showPause()
    return true
  }

  /// Waits until the gate lets the paused run go on (`true`), or the run's task is cancelled (`false`, at once).
  func waitForNetwork() async -> Bool {
    await withTaskCancellationHandler {
      await withUnsafeContinuation { continuation in
        let answer = signals.withLock { signal -> Bool? in
          switch signal {
          case .answered(let proceeds):
            signal = .idle
            return proceeds
          case .idle:
            signal = .waiting(continuation)
            gate.suspendedRuns.add(1, ordering: .relaxed)
            return nil
          case .waiting:
            preconditionFailure("a run waits for the network twice at once")
          }
        }
        if let answer {
          continuation.resume(returning: answer)
        } else {
          gate.instruments?.record(.paused)
        }
      }
    } onCancel: {
      gate.cancel(self)
    }
  }

  /// The gate's answer to the paused run: go on, or end as cancelled. Called once per pause.
  func signal(proceed: Bool) {
    let waiter = signals.withLock { signal -> UnsafeContinuation<Bool, Never>? in
      switch signal {
      case .waiting(let continuation):
        signal = .idle
        gate.suspendedRuns.subtract(1, ordering: .relaxed)
        return continuation
      case .idle:
        signal = .answered(proceed)
        return nil
      case .answered:
        preconditionFailure("a paused run was answered twice")
      }
    }
    waiter?.resume(returning: proceed)
  }
}
