/// The decisions of a store's network gate: whether an attempt may start now, which runs wait for the network and in
/// what order, and when they go on.
///
/// A value type with one mutating method per event, each returning a named action; the ``NetworkGate`` holds its lock
/// around the call and acts after releasing it (writes the states, resumes the waiting runs). `Waiter` is what a
/// paused run waits on (a ``NetworkRun``); tests use any value.
///
/// The rules:
/// - A run of ``NetworkMode/online`` starts its first attempt only while online; offline, it pauses.
///   ``NetworkMode/offlineFirst`` always starts it. (``NetworkMode/always`` never asks.)
/// - An attempt that fails offline with a retry due pauses at once, in place of its backoff; online, the run backs
///   off. A backoff that ends offline pauses.
/// - Going online resumes every paused run, in the order they paused, in one step, and is a reconnect (the store's
///   queries refetch as their `refetchOnReconnect` says); going offline stops nothing that runs (its next retry
///   pauses). The status a source starts with is no reconnect unless the one before it said offline.
/// - A status report older than the one applied (by its ``StatusVersion``) is ignored, so reports that arrive out of
///   order end on the newest.
/// - A paused run that is cancelled leaves at once, resumed as cancelled; a run that is not paused is not waited
///   on, and its own cancellation ends it.
struct NetworkPauseStateMachine<Waiter> {
  /// Which report of the online status a change is: the source followed (each new source a new generation) and
  /// the change's number in it.
  struct StatusVersion: Comparable, Sendable {
    var generation: UInt64
    var sequence: UInt64

    static func < (lhs: StatusVersion, rhs: StatusVersion) -> Bool {
      (lhs.generation, lhs.sequence) < (rhs.generation, rhs.sequence)
    }
  }

  /// A run that waits for the network.
  struct Paused {
    var run: UInt64
    var waiter: Waiter
  }

  /// Whether the device counts as online: with no report yet, it does.
  private(set) var isOnline = true
  /// The report applied last.
  private(set) var version = StatusVersion(generation: 0, sequence: 0)
  /// The runs that wait for the network, in the order they paused.
  private(set) var paused: [Paused] = []

  init() {}

  // MARK: Events of a run

  /// What a run does next: attempt now, or wait for the network.
  enum StartAction: Equatable, Sendable {
    /// Start the attempt now.
    case attempt
    /// Show the run paused and wait on its waiter, which going online resumes.
    case pause
  }

  /// What a run does after an attempt failed with a retry due.
  enum FailureAction: Equatable, Sendable {
    /// Wait for the retry's backoff, then ask ``backoffEnded(_:waiter:)``.
    case backOff
    /// Show the run paused and wait on its waiter: the retry runs once the device is online, without its backoff.
    case pause
  }

  /// Run `run`, of `mode`, is about to start its first attempt.
  mutating func start(_ run: UInt64, mode: NetworkMode, waiter: Waiter) -> StartAction {
    switch mode {
    case .always, .offlineFirst: return .attempt
    case .online: return pauseIfOffline(run, waiter: waiter)
    }
  }

  /// An attempt of run `run` failed, and its retry policy retries it.
  mutating func attemptFailed(_ run: UInt64, waiter: Waiter) -> FailureAction {
    pauseIfOffline(run, waiter: waiter) == .attempt ? .backOff : .pause
  }

  /// The backoff of run `run` ended: its retry is due.
  mutating func backoffEnded(_ run: UInt64, waiter: Waiter) -> StartAction {
    pauseIfOffline(run, waiter: waiter)
  }

  private mutating func pauseIfOffline(_ run: UInt64, waiter: Waiter) -> StartAction {
    guard !isOnline else { return .attempt }
    precondition(!paused.contains { $0.run == run }, "run \(run) paused twice")
    paused.append(Paused(run: run, waiter: waiter))
    return .pause
  }

  /// What the gate does when a paused run is cancelled.
  enum CancelAction {
    /// Resume the run's waiter as cancelled: the run ends.
    case resumeCancelled(Waiter)
    /// The run is not paused (it runs, backs off, or was resumed already): its own cancellation ends it.
    case none
  }

  /// Run `run` was cancelled.
  mutating func cancel(_ run: UInt64) -> CancelAction {
    guard let index = paused.firstIndex(where: { $0.run == run }) else { return .none }
    return .resumeCancelled(paused.remove(at: index).waiter)
  }

  // MARK: Events of the status

  /// What the gate does when the status changes.
  enum StatusAction {
    /// The device came back online: resume these waiters (none, if nothing paused), in this order (the order they
    /// paused), then refetch what a reconnect refetches.
    case reconnected(resume: [Waiter])
    /// Nothing changes for the work: the device stays online, stays offline or goes offline.
    case none
  }

  /// The source reported `isOnline`, as its report `version`.
  mutating func statusChanged(isOnline: Bool, version: StatusVersion) -> StatusAction {
    guard version > self.version else { return .none }
    self.version = version
    let wasOnline = self.isOnline
    self.isOnline = isOnline
    guard isOnline, !wasOnline else { return .none }
    defer { paused = [] }
    return .reconnected(resume: paused.map(\.waiter))
  }
}

extension NetworkPauseStateMachine.Paused: Sendable where Waiter: Sendable {}
extension NetworkPauseStateMachine.CancelAction: Sendable where Waiter: Sendable {}
extension NetworkPauseStateMachine.StatusAction: Sendable where Waiter: Sendable {}
