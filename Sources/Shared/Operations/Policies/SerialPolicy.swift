/// The coordination of ``OperationPolicy/serial`` runs: one at a time, in the order `run` was called.
///
/// A value type with one mutating method per event, each returning a named action; the caller holds the coordinator's
/// lock around the call and resumes waiters after releasing it. A run takes its place in the queue (a ticket)
/// synchronously inside `run`, so the queue order is the call order; it waits later, on a `Waiter` (a continuation;
/// tests use any value). A queued run that is cancelled leaves the queue at once, and the ones behind it keep their
/// order.
///
/// A serial run starts, for the shared state, when its turn comes: `RunCoordination.finishTurn` ends the run
/// before it and starts it in ``ParallelStateMachine`` (``start(_:as:)``) in one step, so each run's result is shown
/// before the next one begins and the state follows the run that runs.
struct SerialStateMachine<Waiter> {
  /// A queued run: its ticket, and its waiter once its task asks to wait.
  struct Queued {
    var ticket: UInt64
    var waiter: Waiter?
  }

  /// The run whose turn it is.
  enum Current {
    /// Its turn came; the caller starts it in the same step (``start(_:as:)``). `waiter` is set if it already waits.
    case starting(ticket: UInt64, waiter: Waiter?)
    /// It runs as run `run` of the shared state.
    case started(ticket: UInt64, run: UInt64)

    var ticket: UInt64 {
      switch self {
      case .starting(let ticket, _), .started(let ticket, _): return ticket
      }
    }
  }

  enum State {
    /// No run is under way.
    case idle
    /// `current` has its turn; `queue` waits behind it in call order.
    case running(current: Current, queue: [Queued])
  }

  private(set) var state = State.idle

  init() {}

  enum EnqueueAction: Equatable, Sendable {
    /// Nothing runs: this run's turn is now; start it.
    case start
    /// The run waits for the ones before it.
    case queued
  }

  enum StartAction {
    /// The started run already waits: resume its waiter with its run number.
    case resume(Waiter)
    /// The run has not waited yet (it finds its turn when it does), or it is the one that called `run`.
    case none
  }

  enum WaitAction {
    /// The turn is here: go on as run `run`, without suspending.
    case proceed(run: UInt64)
    /// The run waits; the waiter is resumed by a later action.
    case suspend
    /// The run left the queue (it was cancelled): resume the waiter as cancelled.
    case cancelled
  }

  enum LeaveAction {
    /// Resume this run's waiter as cancelled.
    case resumeCancelled(Waiter)
    /// Nothing to resume: the run had not waited yet, or its turn already came (it runs and must finish).
    case none
  }

  enum FinishAction: Equatable, Sendable {
    /// The next run's turn: start it.
    case start(ticket: UInt64)
    /// The queue is empty.
    case idle
  }

  /// Run `ticket` joins the end of the queue.
  mutating func enqueue(_ ticket: UInt64) -> EnqueueAction {
    switch state {
    case .idle:
      state = .running(current: .starting(ticket: ticket, waiter: nil), queue: [])
      return .start
    case .running(let current, var queue):
      queue.append(Queued(ticket: ticket, waiter: nil))
      state = .running(current: current, queue: queue)
      return .queued
    }
  }

  /// The run whose turn came (from ``enqueue(_:)`` or ``finish(_:)``) started as run `run` of the shared state.
  mutating func start(_ ticket: UInt64, as run: UInt64) -> StartAction {
    guard case .running(.starting(ticket, let waiter), let queue) = state else {
      preconditionFailure("serial run \(ticket) started out of turn")
    }
    state = .running(current: .started(ticket: ticket, run: run), queue: queue)
    return waiter.map { .resume($0) } ?? .none
  }

  /// Run `ticket` asks to wait for its turn with `waiter`.
  mutating func wait(_ ticket: UInt64, waiter: Waiter) -> WaitAction {
    guard case .running(let current, var queue) = state else { return .cancelled }
    switch current {
    case .started(ticket, let run):
      return .proceed(run: run)
    case .starting(ticket, _):
      state = .running(current: .starting(ticket: ticket, waiter: waiter), queue: queue)
      return .suspend
    case .starting, .started:
      break
    }
    guard let index = queue.firstIndex(where: { $0.ticket == ticket }) else { return .cancelled }
    queue[index].waiter = waiter
    state = .running(current: current, queue: queue)
    return .suspend
  }

  /// Run `ticket` was cancelled: it leaves the queue unless its turn already came.
  mutating func leave(_ ticket: UInt64) -> LeaveAction {
    guard case .running(let current, var queue) = state,
      let index = queue.firstIndex(where: { $0.ticket == ticket })
    else { return .none }
    let left = queue.remove(at: index)
    state = .running(current: current, queue: queue)
    return left.waiter.map { .resumeCancelled($0) } ?? .none
  }

  /// The current run `ticket` ended; the next in the queue has its turn.
  mutating func finish(_ ticket: UInt64) -> FinishAction {
    guard case .running(.started(ticket, _), var queue) = state else {
      preconditionFailure("serial run \(ticket) ended but is not the current one")
    }
    guard !queue.isEmpty else {
      state = .idle
      return .idle
    }
    let next = queue.removeFirst()
    state = .running(current: .starting(ticket: next.ticket, waiter: next.waiter), queue: queue)
    return .start(ticket: next.ticket)
  }
}

extension SerialStateMachine.WaitAction: Sendable {}
extension SerialStateMachine.StartAction: Sendable where Waiter: Sendable {}
extension SerialStateMachine.LeaveAction: Sendable where Waiter: Sendable {}

extension RunCoordination {
  /// A serial run whose turn came at once inside `run` starts, showing `status` before it. Returns its run number.
  mutating func startTurn(_ ticket: UInt64, from status: OperationStatus) -> UInt64 {
    let run = parallel.start(from: status)
    guard case .none = serial.start(ticket, as: run) else {
      preconditionFailure("a serial run waited before its own run call returned")
    }
    return run
  }

  /// What the caller does when a serial run ends.
  struct SerialFinish {
    var settlement: Settlement
    /// The next queued run, which starts in the same step: the caller shows it pending and resumes its waiter (if
    /// it already waits) with its run number.
    var next: (run: UInt64, resuming: TurnWaiter?)?
  }

  /// Serial run `ticket`, run `run`, ended with `outcome` while the state showed `status`. The next queued run
  /// starts in the same step, so the state goes from this run's result straight to the next one's pending.
  mutating func finishTurn(
    _ ticket: UInt64, run: UInt64, with outcome: RunOutcome<Success>, from status: OperationStatus
  ) -> SerialFinish {
    let settlement = end(run, with: outcome, as: .withOutcome)
    guard case .start(let nextTicket) = serial.finish(ticket) else {
      return SerialFinish(settlement: settlement, next: nil)
    }
    let shown: OperationStatus
    switch (settlement, outcome) {
    case (.showResult, .success): shown = .success
    case (.showResult, _): shown = .error
    default: shown = Self.status(after: settlement, from: status)
    }
    let nextRun = parallel.start(from: shown)
    switch serial.start(nextTicket, as: nextRun) {
    case .resume(let waiter): return SerialFinish(settlement: settlement, next: (nextRun, waiter))
    case .none: return SerialFinish(settlement: settlement, next: (nextRun, nil))
    }
  }
}

extension RunCoordination.SerialFinish: Sendable where TurnWaiter: Sendable {}

extension Shared where Value: OperationTrackable {
  /// Runs with ``OperationPolicy/serial``: queued in call order, one at a time; each run's result is shown before
  /// the next one starts.
  @usableFromInline
  func runSerially(
    _ attempts: RunAttempts<Value>,
    optimistic: OptimisticUpdate<Value>?,
    isolation: isolated (any Actor)?,
    callbacks: RunCallbacks<Value.Success>
  ) -> OperationTask<Value.Success> {
    let coordinator = self.coordinator
    // Queued in call order inside `run` without touching the value; a run whose turn is at once shows pending
    // before `run` returns (otherwise it shows pending when the run ahead of it ends).
    let (ticket, place) = coordinator.coordinate { coordination in
      let ticket = coordination.nextCaller()
      return (ticket, coordination.serial.enqueue(ticket))
    }
    var started: UInt64?
    if place == .start {
      started =
        begin(nil, coordinator: coordinator) { coordination, status in
          (coordination.startTurn(ticket, from: status), ())
        }.0
    }
    let task = Task {
      _ = isolation
      var turn = started
      if turn == nil { turn = await Self.waitForTurn(ticket, coordinator: coordinator) }
      guard let run = turn else {
        return try callbacks.deliver(.cancelled)
      }
      if let optimistic { withLockReleasingReplaced { optimistic.apply(&$0) } }
      let outcome = await attempts.run(run, coordinator: coordinator)
      // The next run starts, pending, in the same step that shows this run's result.
      let next = settle(outcome, optimistic: optimistic, coordinator: coordinator) { coordination, status in
        let finish = coordination.finishTurn(ticket, run: run, with: outcome, from: status)
        return (finish.settlement, .withOutcome, finish.next)
      } afterwards: { value, next in
        if next != nil { Self.showPending(in: &value) }
        return next
      }
      if let (nextRun, waiter) = next { waiter?.resume(returning: nextRun) }
      return try callbacks.deliver(outcome)
    }
    return OperationTask(task: task)
  }

  /// Waits for the turn of serial run `ticket`; returns its run number, or `nil` if it left the queue, cancelled,
  /// first.
  static func waitForTurn(_ ticket: UInt64, coordinator: RunCoordinator<Value>) async -> UInt64? {
    await withTaskCancellationHandler {
      await withUnsafeContinuation { (continuation: UnsafeContinuation<UInt64?, Never>) in
        switch coordinator.coordinate({ $0.serial.wait(ticket, waiter: continuation) }) {
        case .proceed(let run): continuation.resume(returning: run)
        case .suspend: break
        case .cancelled: continuation.resume(returning: nil)
        }
      }
    } onCancel: {
      if case .resumeCancelled(let waiter) = coordinator.coordinate({ $0.serial.leave(ticket) }) {
        waiter.resume(returning: nil)
      }
    }
  }
}
