/// The coordination of ``OperationPolicy/dedupe`` runs: callers that overlap share one execution and its result.
///
/// A value type with one mutating method per event, each returning a named action; the caller holds the coordinator's
/// lock around the call and resumes waiters or cancels work after releasing it. Callers join synchronously inside
/// `run`, so none can miss a result that arrives before it waits; a caller that leaves before the result stops
/// waiting at once, and the execution is cancelled when every caller has left. `Outcome` is a run's result,
/// `Waiter` a continuation and `Work` a task; tests use any values.
struct DedupeStateMachine<Outcome, Waiter, Work> {
  /// A caller of the current execution.
  enum Caller {
    /// Joined inside `run`; has not waited yet.
    case joined
    /// Waits for the result.
    case waiting(Waiter)
  }

  /// The execution under way: started by caller `starter`, shared by `callers`.
  struct Execution {
    var starter: UInt64
    var callers: [UInt64: Caller]
    var work: Work?
  }

  enum State {
    /// No execution is under way: the next caller starts one.
    case idle
    case executing(Execution)
  }

  private(set) var state = State.idle
  /// Results of finished executions for callers that had not waited yet; each is taken by its caller's wait.
  private(set) var ready: [UInt64: Outcome] = [:]

  init() {}

  enum JoinAction: Equatable, Sendable {
    /// The caller starts a new execution (it is its starter).
    case start
    /// The caller joined the execution under way.
    case join
  }

  enum AttachAction: Equatable, Sendable {
    case keep
    /// Every caller left before the work was attached: cancel it.
    case cancel
  }

  enum WaitAction {
    /// The result is here: resume at once with it.
    case resume(Outcome)
    /// Wait; a later action resumes the waiter.
    case suspend
    /// The caller left: resume at once as cancelled.
    case cancelled
  }

  enum LeaveAction {
    /// Resume the caller's waiter (if it waited) as cancelled, and cancel the work (if every caller left).
    case leave(resuming: Waiter?, cancelling: Work?)
    /// The caller already has its result, or already left.
    case none
  }

  enum CompleteAction {
    /// Resume these waiters with the result; the execution was current, so it writes the state.
    case resume([Waiter])
    /// Every caller left: the execution was abandoned and does not write the state.
    case abandoned
  }

  /// Caller `caller` joins the execution under way or starts one.
  mutating func join(_ caller: UInt64) -> JoinAction {
    switch state {
    case .idle:
      state = .executing(Execution(starter: caller, callers: [caller: .joined], work: nil))
      return .start
    case .executing(var execution):
      execution.callers[caller] = .joined
      state = .executing(execution)
      return .join
    }
  }

  /// The execution started by `starter` got its work.
  mutating func attach(_ starter: UInt64, work: Work) -> AttachAction {
    guard case .executing(var execution) = state, execution.starter == starter else { return .cancel }
    execution.work = work
    state = .executing(execution)
    return .keep
  }

  /// Caller `caller` waits for the result with `waiter`.
  mutating func wait(_ caller: UInt64, waiter: Waiter) -> WaitAction {
    if let outcome = ready.removeValue(forKey: caller) { return .resume(outcome) }
    guard case .executing(var execution) = state, execution.callers[caller] != nil else { return .cancelled }
    execution.callers[caller] = .waiting(waiter)
    state = .executing(execution)
    return .suspend
  }

  /// Caller `caller` was cancelled before the result.
  mutating func leave(_ caller: UInt64) -> LeaveAction {
    guard case .executing(var execution) = state, let left = execution.callers.removeValue(forKey: caller) else {
      return .none
    }
    let waiter: Waiter?
    if case .waiting(let continuation) = left { waiter = continuation } else { waiter = nil }
    if execution.callers.isEmpty {
      state = .idle
      return .leave(resuming: waiter, cancelling: execution.work)
    }
    state = .executing(execution)
    return .leave(resuming: waiter, cancelling: nil)
  }

  /// The execution started by `starter` ended with `outcome`. Closed to new callers from here on.
  mutating func complete(_ starter: UInt64, with outcome: Outcome) -> CompleteAction {
    guard case .executing(let execution) = state, execution.starter == starter else { return .abandoned }
    state = .idle
    var waiters: [Waiter] = []
    for (caller, slot) in execution.callers {
      switch slot {
      case .waiting(let waiter): waiters.append(waiter)
      case .joined: ready[caller] = outcome
      }
    }
    return .resume(waiters)
  }
}

extension DedupeStateMachine.WaitAction: Sendable where Outcome: Sendable {}
extension DedupeStateMachine.LeaveAction: Sendable where Waiter: Sendable, Work: Sendable {}
extension DedupeStateMachine.CompleteAction: Sendable where Waiter: Sendable {}

extension RunCoordination {
  /// What the caller does when a dedupe execution ends.
  struct DedupeCompletion {
    var settlement: Settlement
    /// Whether every caller had left: the execution writes no result.
    var isAbandoned: Bool
    /// Callers waiting for the result, to resume after the lock.
    var resuming: [ExecutionWaiter]
  }

  /// The dedupe execution started by `starter` as run `run` ended with `outcome`. It closes to new callers in the
  /// same step that decides what it writes; if every caller left, it writes no result.
  mutating func completeExecution(
    _ starter: UInt64, run: UInt64, with outcome: RunOutcome<Success>
  ) -> DedupeCompletion {
    switch dedupe.complete(starter, with: outcome) {
    case .resume(let waiters):
      return DedupeCompletion(
        settlement: end(run, with: outcome, as: .withOutcome), isAbandoned: false, resuming: waiters)
    case .abandoned:
      return DedupeCompletion(
        settlement: end(run, with: outcome, as: .withoutResult), isAbandoned: true, resuming: [])
    }
  }
}

extension RunCoordination.DedupeCompletion: Sendable where ExecutionWaiter: Sendable {}

extension Shared where Value: OperationTrackable {
  /// Runs with ``OperationPolicy/dedupe``: a caller joins the execution under way, or starts one; every caller gets
  /// the one result.
  @usableFromInline
  func runDeduplicated(
    _ attempts: RunAttempts<Value>,
    optimistic: OptimisticUpdate<Value>?,
    isolation: isolated (any Actor)?,
    callbacks: RunCallbacks<Value.Success>
  ) -> OperationTask<Value.Success> {
    let coordinator = self.coordinator
    // A caller joins the execution under way without touching the value; the caller that starts one shows it
    // pending right after (a caller that joins meanwhile shares it; if every caller leaves first, it is cancelled
    // as soon as its task is attached).
    let (caller, joined) = coordinator.coordinate { coordination in
      let caller = coordination.nextCaller()
      return (caller, coordination.dedupe.join(caller))
    }
    if joined == .join { callbacks.onJoined?() }
    let started = joined == .start ? begin(optimistic, coordinator: coordinator) : nil
    if let run = started {
      let shared = self
      let execution = Task {
        let outcome = await attempts.run(run, coordinator: coordinator)
        // Closed to joiners in the same step that shows the result, so nobody joins a finished run.
        let waiters = shared.settle(outcome, optimistic: optimistic, coordinator: coordinator) { coordination, _ in
          let completion = coordination.completeExecution(caller, run: run, with: outcome)
          return (completion.settlement, completion.isAbandoned ? .withoutResult : .withOutcome, completion.resuming)
        }
        for waiter in waiters { waiter.resume(returning: outcome) }
      }
      if coordinator.coordinate({ $0.dedupe.attach(caller, work: execution) }) == .cancel { execution.cancel() }
    }
    let task = Task {
      _ = isolation
      let outcome = await Self.waitForExecution(caller, coordinator: coordinator)
      return try callbacks.deliver(outcome)
    }
    return OperationTask(task: task)
  }

  /// Waits for the result of the dedupe execution `caller` joined; leaves at once with `.cancelled` if the calling
  /// task is cancelled first.
  static func waitForExecution(
    _ caller: UInt64, coordinator: RunCoordinator<Value>
  ) async -> RunOutcome<Value.Success> {
    await withTaskCancellationHandler {
      await withUnsafeContinuation { continuation in
        switch coordinator.coordinate({ $0.dedupe.wait(caller, waiter: continuation) }) {
        case .resume(let outcome): continuation.resume(returning: outcome)
        case .suspend: break
        case .cancelled: continuation.resume(returning: .cancelled)
        }
      }
    } onCancel: {
      if case .leave(let waiter, let work) = coordinator.coordinate({ $0.dedupe.leave(caller) }) {
        waiter?.resume(returning: .cancelled)
        work?.cancel()
      }
    }
  }
}
