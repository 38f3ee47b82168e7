import Synchronization

/// A store's view of the network: the online status it follows, its default ``NetworkMode``, and the runs that wait
/// for the network.
///
/// Decides under its lock (``NetworkPauseStateMachine``) and acts after it: a change of status from offline to online
/// resumes the paused runs in the order they paused, each shown fetching again before its task goes on, then tells
/// the store, whose queries refetch as their `refetchOnReconnect` says. The library's own sources
/// (``ManualOnlineStatus``, `NetworkPathOnlineStatus`) tell it of a change synchronously, in the thread that made it,
/// so a run started after `setOnline(false)` returns is held; a source of the program's own is followed through its
/// `onlineStatuses()` sequence.
///
/// Work asks it for nothing while no source is followed: one relaxed atomic read, so fetches and runs of a program
/// that never names a source cost what they cost before network modes existed. While one is followed and the device
/// is online, work that starts reads one more atomic and takes no lock; a run with no retries then needs nothing
/// else of the gate, and a fetch that may retry keeps a ``NetworkRun`` for its retries.
final class NetworkGate: Sendable {
  typealias Machine = NetworkPauseStateMachine<NetworkRun>

  private struct State: ~Copyable {
    var machine = Machine()
    var source: (any OnlineStatusSource)?
    /// Made with each source: reports of an earlier source are stale.
    var generation: UInt64 = 0
    /// Stops following the source.
    var subscription: SharedSubscription?
    /// What a change from offline to online sets off besides resuming the paused runs: the store's refetches.
    var reconnected: (@Sendable () -> Void)?
    var defaultMode = NetworkMode.online
  }

  private let state = Lock(State())
  /// Whether a source is followed; read by every fetch and run that may follow the network.
  private let isFollowing = Atomic<Bool>(false)
  /// The machine's ``NetworkPauseStateMachine/isOnline``, written under the lock with it: work that starts while
  /// the device is online reads it and takes no lock.
  private let onlineNow = Atomic<Bool>(true)
  /// The numbers of the runs that asked.
  private let runNumbers = Atomic<UInt64>(0)
  /// How many paused runs' tasks are suspended, waiting for an answer (for tests: a task that waits calls nothing).
  let suspendedRuns = Atomic<Int>(0)

  /// The registry's instrument, told when a run waits for the network; `nil` for a gate of no store.
  let instruments: SharedInstruments?

  init(instruments: SharedInstruments? = nil) {
    self.instruments = instruments
  }

  // MARK: Settings

  /// The source followed, if any.
  var source: (any OnlineStatusSource)? {
    state.withLock { $0.source }
  }

  /// The mode of work whose options name none.
  var defaultMode: NetworkMode {
    get { state.withLock { $0.defaultMode } }
    set { state.withLock { $0.defaultMode = newValue } }
  }

  /// Whether the device counts as online: with no source, it does.
  var isOnline: Bool {
    state.withLock { $0.machine.isOnline }
  }

  /// How many runs wait for the network now.
  var pausedCount: Int {
    state.withLock { $0.machine.paused.count }
  }

  /// Follows `source` from now on (none: the device counts as online); paused runs go on if it says online. Each
  /// change from offline to online then calls `reconnected`, after the paused runs are resumed and outside the lock.
  func follow(_ source: (any OnlineStatusSource)?, reconnected: (@Sendable () -> Void)? = nil) {
    let (generation, previous) = state.withLock { state in
      state.generation += 1
      state.source = source
      state.reconnected = reconnected
      defer { state.subscription = nil }
      return (state.generation, state.subscription)
    }
    previous?.cancel()  // Outside the lock: it takes the old source's lock.
    isFollowing.store(source != nil, ordering: .releasing)
    guard let source else {
      report(true, version: .init(generation: generation, sequence: 0))
      return
    }
    let subscription: SharedSubscription
    if let source = source as? any BroadcastOnlineStatus {
      let (isOnline, sequence, listening) = source.broadcast.listen { [weak self] isOnline, sequence in
        self?.report(isOnline, version: .init(generation: generation, sequence: sequence))
      }
      report(isOnline, version: .init(generation: generation, sequence: sequence))
      subscription = listening
    } else {
      // The program's own source: read now (its code, outside every lock), then followed in order. Its sequence
      // starts with the status now, which is as new as this reading or newer.
      report(source.isOnline, version: .init(generation: generation, sequence: 0))
      let statuses = source.onlineStatuses()
      // Weak, and detached so it does not inherit (and keep alive) the task-local registry.
      let task = Task.detached { [weak self] in
        var sequence: UInt64 = 0
        for await isOnline in statuses {
          sequence += 1
          guard let self else { return }
          self.report(isOnline, version: .init(generation: generation, sequence: sequence))
        }
      }
      subscription = SharedSubscription { task.cancel() }
    }
    let stale = state.withLock { state -> SharedSubscription? in
      guard state.generation == generation else { return subscription }  // Another source was set meanwhile.
      state.subscription = subscription
      return nil
    }
    stale?.cancel()
  }

  /// Whether a source is followed: without one, no work needs the gate.
  var followsSource: Bool { isFollowing.load(ordering: .relaxed) }

  /// Whether the device counts as online, read without the lock: an attempt that starts now may start at once.
  var isOnlineNow: Bool { onlineNow.load(ordering: .acquiring) }

  /// The mode work of `mode` (`nil`: the default) follows, or `nil` when it needs nothing of the gate: no source is
  /// followed, or the mode is ``NetworkMode/always``.
  func mode(for mode: NetworkMode?) -> NetworkMode? {
    guard followsSource else { return nil }
    let resolved = mode ?? defaultMode
    return resolved == .always ? nil : resolved
  }

  /// A number for a new run.
  func nextRunNumber() -> UInt64 {
    runNumbers.add(1, ordering: .relaxed).newValue
  }

  // MARK: Events

  /// The source reported `isOnline`: if the device came back online, resumes the paused runs in the order they
  /// paused, then tells the store (``follow(_:reconnected:)``).
  func report(_ isOnline: Bool, version: Machine.StatusVersion) {
    let reconnect = state.withLock { state -> (resumed: [NetworkRun], reconnected: (@Sendable () -> Void)?)? in
      let action = state.machine.statusChanged(isOnline: isOnline, version: version)
      onlineNow.store(state.machine.isOnline, ordering: .releasing)
      guard case .reconnected(let runs) = action else { return nil }
      for run in runs { run.markPaused(false) }
      return (runs, state.reconnected)
    }
    guard let reconnect else { return }
    // In order: each shows fetching again, then goes on.
    for run in reconnect.resumed {
      run.showPause()
      run.signal(proceed: true)
    }
    // After the resumed runs, so that a refetch of a query whose fetch was paused joins that fetch.
    reconnect.reconnected?()
  }

  /// Asks whether `run` may start its first attempt now; a run that must wait is marked paused.
  func start(_ run: NetworkRun) -> Machine.StartAction {
    state.withLock { state in
      let action = state.machine.start(run.number, mode: run.mode, waiter: run)
      if action == .pause { run.markPaused(true) }
      return action
    }
  }

  /// An attempt of `run` failed with a retry due: whether it backs off or waits for the network (marked paused).
  func attemptFailed(_ run: NetworkRun) -> Machine.FailureAction {
    state.withLock { state in
      let action = state.machine.attemptFailed(run.number, waiter: run)
      if action == .pause { run.markPaused(true) }
      return action
    }
  }

  /// The backoff of `run` ended: whether it retries now or waits for the network (marked paused).
  func backoffEnded(_ run: NetworkRun) -> Machine.StartAction {
    state.withLock { state in
      let action = state.machine.backoffEnded(run.number, waiter: run)
      if action == .pause { run.markPaused(true) }
      return action
    }
  }

  /// `run` was cancelled: if it waits for the network, it stops waiting at once.
  func cancel(_ run: NetworkRun) {
    let cancelled = state.withLock { state -> NetworkRun? in
      guard case .resumeCancelled(let waiter) = state.machine.cancel(run.number) else { return nil }
      waiter.markPaused(false)
      return waiter
    }
    cancelled?.signal(proceed: false)
  }
}
