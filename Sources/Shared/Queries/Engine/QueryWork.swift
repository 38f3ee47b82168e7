import Reactive
import Synchronization

/// One unit of work on a query (a refresh or a page fetch): the turn it waits for and the result its callers wait
/// for.
///
/// Its ``QueryRecordMachine`` decides when the turn comes, and whether a caller's cancellation cancels the work;
/// this object only carries the signal to the waiting task and the result to everyone who waits.
///
/// Not generic: the result is kept as `any Sendable` and cast back by the awaiting caller
/// (``value(as:)``). The work is made, settled and released on every new query key's first fetch, by code that is
/// generic over the query's state and not specialized; a generic unit of work cost about twenty run-time metadata
/// lookups per fetch there (its lock's state, its result, its waiters' continuations).
@usableFromInline
final class QueryWork: Sendable {
  /// The fetch's value, or why there is none.
  typealias Outcome = Result<any Sendable, any Error>

  private let state = Lock(State())
  /// Set when the record was removed while the work wrote its value (see ``detach()``).
  private let detached = Atomic<Bool>(false)

  private struct State: ~Copyable {
    var turn = Turn.waiting(nil)
    var result: Outcome?
    var waiters: [UInt64: UnsafeContinuation<Outcome, Never>] = [:]
    /// Waiters whose task was cancelled before they started waiting.
    var cancelledWaiters: Set<UInt64> = []
    var lastWaiter: UInt64 = 0
    var task: Task<Void, Never>?
    var isCancelled = false
    /// The attached instrument's measurement of the fetch, set as it launches; ended as it finishes.
    var measurement: (any WorkMeasurement)?
  }

  private enum Turn {
    case waiting(UnsafeContinuation<Bool, Never>?)
    case given
    case withdrawn
  }

  /// Which pages the work fetches: what its value shows while it runs.
  let pages: OperationTracking.PageFetch

  init(fetching pages: OperationTracking.PageFetch = .all) {
    self.pages = pages
  }

  /// Lets the waiting task start.
  func giveTurn() {
    resolveTurn(.given)
  }

  /// Tells the waiting task that its turn never comes: the work was withdrawn.
  func withdraw() {
    resolveTurn(.withdrawn)
  }

  private func resolveTurn(_ turn: Turn) {
    let waiter = state.withLock { state -> UnsafeContinuation<Bool, Never>? in
      guard case .waiting(let waiter) = state.turn else { return nil }
      state.turn = turn
      return waiter
    }
    if case .given = turn { waiter?.resume(returning: true) } else { waiter?.resume(returning: false) }
  }

  /// Returns once ``giveTurn()`` (`true`) or ``withdraw()`` (`false`) was called.
  func waitForTurn() async -> Bool {
    await withUnsafeContinuation { continuation in
      let turn = state.withLock { state -> Bool? in
        switch state.turn {
        case .waiting:
          state.turn = .waiting(continuation)
          return nil
        case .given: return true
        case .withdrawn: return false
        }
      }
      if let turn { continuation.resume(returning: turn) }
    }
  }

  /// The task that performs the work, cancelled by ``cancel()``.
  func attach(_ task: Task<Void, Never>) {
    let cancels = state.withLock { state -> Bool in
      state.task = task
      return state.isCancelled
    }
    if cancels { task.cancel() }
  }

  /// The record left the store while this work was writing its value: a write that has not landed yet is dropped,
  /// as the value is no longer the record's (a record made again under its key may share it). Call before the store
  /// tells the value that no fetch runs, so that the value ends showing no fetch whichever write comes first.
  func detach() {
    detached.store(true, ordering: .releasing)
  }

  /// Whether the record left the store while this work was writing its value; the work asks under the value's lock,
  /// right before it writes, and then writes nothing.
  @usableFromInline
  var isDetached: Bool { detached.load(ordering: .acquiring) }

  /// Cancels the running fetch (only when its ``QueryRecordMachine`` says nobody needs it any more).
  func cancel() {
    let task = state.withLock { state -> Task<Void, Never>? in
      state.isCancelled = true
      return state.task
    }
    task?.cancel()
  }

  /// Settles the work and resumes everyone waiting for it; a measurement of it ends first.
  func finish(_ result: Outcome) {
    let (waiters, measurement) = state.withLock {
      state -> ([UInt64: UnsafeContinuation<Outcome, Never>]?, (any WorkMeasurement)?) in
      state.result = result
      state.task = nil
      // Most work has nobody waiting (a holder's fetch): nothing to empty, nothing to hand out.
      if !state.cancelledWaiters.isEmpty { state.cancelledWaiters = [] }
      let measurement = state.measurement.take()
      guard !state.waiters.isEmpty else { return (nil, measurement) }
      defer { state.waiters = [:] }
      return (state.waiters, measurement)
    }
    measurement?.ended(InstrumentedOutcome(result))
    guard let waiters else { return }
    for waiter in waiters.values { waiter.resume(returning: result) }
  }

  /// The measurement of this work, while it runs (`nil` once it finished, or if no instrument measures it).
  var measurement: (any WorkMeasurement)? {
    state.withLock { $0.measurement }
  }

  /// Measures this work with `measurement` until it finishes; call before its task starts.
  func measure(by measurement: any WorkMeasurement) {
    state.withLock { $0.measurement = measurement }
  }

  /// Waits for the work's value, of type `type`; a cancelled caller stops waiting at once, with a
  /// `CancellationError`.
  func value<Success: Sendable>(as type: Success.Type) async throws -> Success {
    // Only the record's fetches settle its work, each with a value of its state's `Success`.
    try await result().get() as! Success
  }

  /// Waits for the work's result; a cancelled caller stops waiting at once, with a `CancellationError`.
  func result() async -> Outcome {
    let waiter = state.withLock { state in
      state.lastWaiter += 1
      return state.lastWaiter
    }
    return await withTaskCancellationHandler {
      await withUnsafeContinuation { continuation in
        let ready = state.withLock { state -> Outcome? in
          if let result = state.result { return result }
          if state.cancelledWaiters.remove(waiter) != nil { return .failure(CancellationError()) }
          state.waiters[waiter] = continuation
          return nil
        }
        if let ready { continuation.resume(returning: ready) }
      }
    } onCancel: {
      let continuation = state.withLock { state -> UnsafeContinuation<Outcome, Never>? in
        guard state.result == nil else { return nil }
        if let continuation = state.waiters.removeValue(forKey: waiter) { return continuation }
        state.cancelledWaiters.insert(waiter)
        return nil
      }
      continuation?.resume(returning: .failure(CancellationError()))
    }
  }
}
