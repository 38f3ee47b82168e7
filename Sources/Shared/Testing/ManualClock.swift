import Synchronization

/// A clock that moves only when told to, so code that waits can be tested without waiting.
///
/// Pass it wherever the framework takes a clock (save schedules, file polling, retries), then move time forward:
///
/// ```swift
/// func saveAfterOneSecond(to url: URL) async {
///   let clock = ManualClock()
///   @Shared(.fileStorage(url, saveDelay: .seconds(1), clock: clock)) var settings = Settings()
///   $settings.withLock { $0.volume = 3 }
///   await clock.waitForSleepers(2)     // the file's poll, and the save waiting for its delay
///   clock.advance(by: .seconds(1))     // now the save runs
/// }
/// ```
///
/// Sleepers whose deadline has come are resumed in deadline order by ``advance(by:)``. A cancelled sleeper
/// throws `CancellationError` at once.
public final class ManualClock: Clock, Sendable {
  /// A point in the manual clock's time: how long after the clock's start.
  public struct Instant: InstantProtocol, Sendable {
    /// The time since the clock's start.
    public var offset: Duration

    /// Creates an instant `offset` after the clock's start.
    ///
    /// - Parameter offset: The time since the clock's start.
    public init(offset: Duration) {
      self.offset = offset
    }

    /// The instant `duration` later.
    ///
    /// - Parameter duration: How much later.
    /// - Returns: The later instant.
    public func advanced(by duration: Duration) -> Instant {
      Instant(offset: offset + duration)
    }

    /// The time from this instant to `other`.
    ///
    /// - Parameter other: The other instant.
    /// - Returns: `other` minus this instant.
    public func duration(to other: Instant) -> Duration {
      other.offset - offset
    }

    /// Whether `lhs` comes before `rhs`.
    public static func < (lhs: Instant, rhs: Instant) -> Bool {
      lhs.offset < rhs.offset
    }
  }

  private struct Sleeper {
    let id: UInt64
    let deadline: Instant
    let wait: ClockWait?
    let wake: Wake
  }

  /// What a sleeper does when its deadline comes: a sleeping task resumes; a timer of the framework's (an attempt's
  /// timeout, which sleeps in no task of its own) calls its action.
  private enum Wake {
    case resume(UnsafeContinuation<Void, any Error>)
    case call(@Sendable () -> Void)

    func perform() {
      switch self {
      case .resume(let continuation): continuation.resume()
      case .call(let action): action()
      }
    }
  }

  /// A sleeper on the clock (a sleeping task, or an attempt's timeout): until when, and what for.
  public struct Sleeping: Equatable, Sendable {
    /// The instant it wakes at.
    public let deadline: Instant
    /// What it waits for, when the framework sleeps; `nil` for your code's sleeps.
    public let wait: ClockWait?
  }

  private struct State {
    var now = Instant(offset: .zero)
    var sleepers: [Sleeper] = []
    var nextID: UInt64 = 0
    var cancelledIDs: Set<UInt64> = []
    var sleeperWaiters: [(count: Int, wait: ClockWait?, continuation: UnsafeContinuation<Void, Never>)] = []
  }

  private let state = Lock(State())

  /// Creates a clock at time zero.
  public init() {}

  /// The current instant; it changes only through ``advance(by:)`` and ``advance(to:)``.
  public var now: Instant {
    state.withLock { $0.now }
  }

  /// The clock has no resolution limit.
  public var minimumResolution: Duration { .zero }

  /// The number of sleepers on this clock right now: the tasks sleeping on it, and the timers of attempts' timeouts
  /// (which sleep in no task of their own).
  public var sleeperCount: Int {
    state.withLock { $0.sleepers.count }
  }

  /// The sleepers on this clock right now, earliest deadline first, each with what it waits for: the store's
  /// garbage check, a refetch interval, a retry's backoff, an attempt's timeout (see ``ClockWait``). An attempt's
  /// timeout is a timer with no task of its own; every other sleeper is a sleeping task.
  public var sleepers: [Sleeping] {
    state.withLock { state in
      state.sleepers.map { Sleeping(deadline: $0.deadline, wait: $0.wait) }.sorted { $0.deadline < $1.deadline }
    }
  }

  /// Suspends until the clock reaches `deadline`.
  ///
  /// - Parameters:
  ///   - deadline: The instant to wake at.
  ///   - tolerance: Ignored.
  /// - Throws: `CancellationError` when the task is cancelled.
  public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
    try Task.checkCancellation()
    let wait = ClockWait.current
    let id = state.withLock { state -> UInt64 in
      state.nextID += 1
      return state.nextID
    }
    try await withTaskCancellationHandler {
      try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<Void, any Error>) in
        let (resumeNow, waiters) = state.withLock {
          state -> (Result<Void, any Error>?, [UnsafeContinuation<Void, Never>]) in
          if state.cancelledIDs.remove(id) != nil { return (.failure(CancellationError()), []) }
          if deadline <= state.now { return (.success(()), []) }
          state.sleepers.append(Sleeper(id: id, deadline: deadline, wait: wait, wake: .resume(continuation)))
          return (nil, Self.takeSatisfiedWaiters(&state))
        }
        for waiter in waiters { waiter.resume() }
        if let resumeNow { continuation.resume(with: resumeNow) }
      }
    } onCancel: {
      let sleeper = state.withLock { state -> Sleeper? in
        guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else {
          state.cancelledIDs.insert(id)
          return nil
        }
        return state.sleepers.remove(at: index)
      }
      if case .resume(let continuation) = sleeper?.wake { continuation.resume(throwing: CancellationError()) }
    }
    // An identifier cancelled after its sleeper woke normally is no longer needed.
    state.withLock { _ = $0.cancelledIDs.remove(id) }
  }

  /// Moves time forward by `duration`, waking every sleeper whose deadline has come, earliest first.
  ///
  /// - Parameter duration: How far to move; must not be negative.
  public func advance(by duration: Duration = .zero) {
    precondition(duration >= .zero, "ManualClock cannot move backwards: \(duration)")
    let due = state.withLock { state -> [Sleeper] in
      state.now = state.now.advanced(by: duration)
      let now = state.now
      let due = state.sleepers.filter { $0.deadline <= now }.sorted { $0.deadline < $1.deadline }
      state.sleepers.removeAll { $0.deadline <= now }
      return due
    }
    for sleeper in due { sleeper.wake.perform() }
  }

  /// Calls `action` once the clock reaches `duration` from now, unless ``cancelTimer(_:)`` comes first: a sleeper
  /// like any other (counted by ``sleepers`` and ``waitForSleepers(_:waitingFor:)``) with no task behind it.
  ///
  /// - Returns: The timer's identifier, for ``cancelTimer(_:)``.
  func startTimer(after duration: Duration, waitingFor wait: ClockWait, _ action: @escaping @Sendable () -> Void)
    -> UInt64
  {
    let (id, waiters, due) = state.withLock {
      state -> (UInt64, [UnsafeContinuation<Void, Never>], Bool) in
      state.nextID += 1
      let deadline = state.now.advanced(by: duration)
      if deadline <= state.now { return (state.nextID, [], true) }
      state.sleepers.append(Sleeper(id: state.nextID, deadline: deadline, wait: wait, wake: .call(action)))
      return (state.nextID, Self.takeSatisfiedWaiters(&state), false)
    }
    for waiter in waiters { waiter.resume() }
    if due { action() }
    return id
  }

  /// Removes the timer `id` if its deadline has not come; its action is not called.
  func cancelTimer(_ id: UInt64) {
    // The action is let go after the lock.
    let removed = state.withLock { state -> Sleeper? in
      guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
      return state.sleepers.remove(at: index)
    }
    withExtendedLifetime(removed) {}
  }

  /// Moves time forward to `instant` (or does nothing if it has passed), waking the sleepers that are due.
  ///
  /// - Parameter instant: The instant to move to.
  public func advance(to instant: Instant) {
    advance(by: max(.zero, now.duration(to: instant)))
  }

  /// Waits until at least `count` sleepers are on this clock (sleeping tasks, or attempts' timeouts), or, with
  /// `wait`, at least `count` sleepers waiting for that (``ClockWait``).
  ///
  /// Use it to know that the code under test has reached its wait before moving time. Without `wait`, count every
  /// sleeper that shares the clock (a file key's poll, the store's garbage check and a query's interval sleep on it
  /// too); with it, only the sleepers of that kind:
  ///
  /// ```swift
  /// await clock.waitForSleepers(waitingFor: .retryBackoff)   // not the garbage check that also sleeps
  /// ```
  ///
  /// - Parameters:
  ///   - count: How many sleepers to wait for.
  ///   - wait: What they wait for; any sleeper counts when `nil`.
  public func waitForSleepers(_ count: Int = 1, waitingFor wait: ClockWait? = nil) async {
    await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
      let ready = state.withLock { state -> Bool in
        if Self.sleeperCount(in: state, waitingFor: wait) >= count { return true }
        state.sleeperWaiters.append((count, wait, continuation))
        return false
      }
      if ready { continuation.resume() }
    }
  }

  private static func sleeperCount(in state: borrowing State, waitingFor wait: ClockWait?) -> Int {
    guard let wait else { return state.sleepers.count }
    return state.sleepers.count { $0.wait == wait }
  }

  private static func takeSatisfiedWaiters(_ state: inout State) -> [UnsafeContinuation<Void, Never>] {
    var satisfied: [UnsafeContinuation<Void, Never>] = []
    var waiting: [(count: Int, wait: ClockWait?, continuation: UnsafeContinuation<Void, Never>)] = []
    for waiter in state.sleeperWaiters {
      if sleeperCount(in: state, waitingFor: waiter.wait) >= waiter.count {
        satisfied.append(waiter.continuation)
      } else {
        waiting.append(waiter)
      }
    }
    state.sleeperWaiters = waiting
    return satisfied
  }
}
