import Foundation
import Synchronization

/// How one run of an operation ended.
@usableFromInline
enum RunOutcome<Success: Sendable>: Sendable {
  case success(Success)
  case failure(any Error)
  case cancelled

  @inlinable
  var result: Result<Success, any Error> {
    switch self {
    case .success(let value): return .success(value)
    case .failure(let error): return .failure(error)
    case .cancelled: return .failure(CancellationError())
    }
  }
}

/// Runs the attempts of one operation: retries with backoff, per-attempt timeout, the attempt number in the state.
@usableFromInline
struct Attempts<Value: OperationTrackable>: Sendable {
  @usableFromInline let shared: Shared<Value>
  @usableFromInline let operation: @Sendable () async throws -> Value.Success
  @usableFromInline let retry: RetryPolicy
  @usableFromInline let timeout: Duration?
  @usableFromInline let clock: any Clock<Duration>

  @inlinable
  init(
    shared: Shared<Value>,
    operation: @escaping @Sendable () async throws -> Value.Success,
    retry: RetryPolicy,
    timeout: Duration?,
    clock: any Clock<Duration>
  ) {
    self.shared = shared
    self.operation = operation
    self.retry = retry
    self.timeout = timeout
    self.clock = clock
  }

  @inlinable
  func run() async -> RunOutcome<Value.Success> {
    // The common case, one attempt with no timeout, stays small enough to specialize in the caller.
    if retry.retries == 0 && timeout == nil {
      if Task.isCancelled { return .cancelled }
      do {
        let value = try await operation()
        // A run cancelled while its operation finished anyway counts as cancelled, as it would with a timeout.
        return Task.isCancelled ? .cancelled : .success(value)
      } catch {
        return Task.isCancelled ? .cancelled : .failure(error)
      }
    }
    return await runWithRetries()
  }

  @usableFromInline
  func runWithRetries() async -> RunOutcome<Value.Success> {
    var attempt = 1
    while true {
      if Task.isCancelled { return .cancelled }
      do {
        let value = try await runAttempt()
        return Task.isCancelled ? .cancelled : .success(value)
      } catch {
        if Task.isCancelled { return .cancelled }
        guard attempt <= retry.retries, retry.shouldRetry(error) else { return .failure(error) }
        let delay = retry.delay(beforeRetry: attempt, random: Double.random(in: 0..<1))
        if delay > .zero {
          do { try await clock.sleep(for: delay) } catch { return .cancelled }
        }
        if Task.isCancelled { return .cancelled }
        attempt += 1
        let current = attempt
        shared.withLock { value in
          value.operationAttempt = current
          value.operationUpdatedAt = Date()
        }
      }
    }
  }

  private func runAttempt() async throws -> Value.Success {
    guard let timeout else { return try await operation() }
    let race = AttemptRace<Value.Success>()
    let operation = self.operation
    let clock = self.clock
    return try await withTaskCancellationHandler {
      try await withUnsafeThrowingContinuation { continuation in
        race.start(
          continuation,
          operation: Task {
            do { race.finish(.success(try await operation())) } catch { race.finish(.failure(error)) }
          },
          timer: Task {
            do {
              try await clock.sleep(for: timeout)
              race.finish(.failure(OperationTimeoutError(timeout: timeout)))
            } catch {}
          })
      }
    } onCancel: {
      race.finish(.failure(CancellationError()))
    }
  }
}

/// An attempt racing its timeout. The first to finish settles the attempt and cancels the other, without waiting
/// for it: an operation that ignores cancellation cannot hold a timed-out attempt.
final class AttemptRace<Success: Sendable>: Sendable {
  private let state = Lock<State>(State())

  private struct State {
    var continuation: UnsafeContinuation<Success, any Error>?
    var result: Result<Success, any Error>?
    var tasks: [Task<Void, Never>] = []
  }

  func start(
    _ continuation: UnsafeContinuation<Success, any Error>,
    operation: Task<Void, Never>,
    timer: Task<Void, Never>
  ) {
    let settled = state.withLock { state -> Result<Success, any Error>? in
      if let result = state.result { return result }
      state.continuation = continuation
      state.tasks = [operation, timer]
      return nil
    }
    if let settled {
      operation.cancel()
      timer.cancel()
      continuation.resume(with: settled)
    }
  }

  func finish(_ result: Result<Success, any Error>) {
    let (continuation, tasks) = state.withLock {
      state -> (UnsafeContinuation<Success, any Error>?, [Task<Void, Never>]) in
      guard state.result == nil else { return (nil, []) }
      state.result = result
      defer {
        state.continuation = nil
        state.tasks = []
      }
      return (state.continuation, state.tasks)
    }
    for task in tasks { task.cancel() }
    continuation?.resume(with: result)
  }
}

/// The coordination of runs on one shared value: the latest run for ``OperationPolicy/cancelPrevious``, the shared
/// execution for ``OperationPolicy/dedupe``, the queue for ``OperationPolicy/serial``.
///
/// Every decision is made synchronously inside `run`, under this lock, so runs are coordinated in the order `run`
/// was called; waiting happens afterwards, by awaiting tasks or continuations, never under the lock.
@usableFromInline
final class OperationRunner<Value: OperationTrackable>: Sendable {
  private let state = Lock(State())

  private struct State: ~Copyable {
    var nextID: UInt64 = 0
    var latestID: UInt64 = 0
    var latestTrigger: UInt64 = 0
    var latestTask: Task<Value.Success, any Error>?
    var execution: DedupeExecution<Value.Success>?
    /// The end of the serial queue: done when every queued run, and every run before it, is done.
    var serialTail: Task<Void, Never>?
  }

  @usableFromInline
  init() {}

  // MARK: The status across runs

  /// The count of writing runs and the settled status; not generic, so its calls need no type metadata.
  @usableFromInline
  let status = RunStatus()

  func nextID() -> UInt64 {
    state.withLock { state in
      state.nextID += 1
      return state.nextID
    }
  }

  // MARK: Latest wins

  /// Makes a new run the latest and returns its number and the task of the run it supersedes (to be cancelled
  /// after the lock).
  func claimLatest() -> (id: UInt64, superseded: Task<Value.Success, any Error>?) {
    state.withLock { state in
      state.nextID += 1
      state.latestID = state.nextID
      defer { state.latestTask = nil }
      return (state.nextID, state.latestTask)
    }
  }

  /// Records the task of run `id`; returns `false` if a newer run already superseded it.
  func registerLatest(id: UInt64, task: Task<Value.Success, any Error>) -> Bool {
    state.withLock { state in
      guard state.latestID == id else { return false }
      state.latestTask = task
      return true
    }
  }

  /// Whether run `id` is still the latest; if so, its task is forgotten.
  func finishLatest(id: UInt64) -> Bool {
    state.withLock { state in
      guard state.latestID == id else { return false }
      state.latestTask = nil
      return true
    }
  }

  // MARK: Debounce

  /// Makes a new trigger the latest and returns its number.
  func claimTrigger() -> UInt64 {
    state.withLock { state in
      state.nextID += 1
      state.latestTrigger = state.nextID
      return state.nextID
    }
  }

  /// Whether trigger `id` is still the latest, so it may run.
  func isLatestTrigger(_ id: UInt64) -> Bool {
    state.withLock { $0.latestTrigger == id }
  }

  // MARK: Dedupe

  /// Joins the running execution as `caller`, or starts a new one; returns it and whether this caller starts it.
  func joinOrStart(caller: UInt64) -> (execution: DedupeExecution<Value.Success>, starts: Bool) {
    state.withLock { state in
      if let execution = state.execution, execution.join(caller) { return (execution, false) }
      let execution = DedupeExecution<Value.Success>(starter: caller)
      state.execution = execution
      return (execution, true)
    }
  }

  /// Closes `execution` to new callers once its operation has ended, so the next run starts a new one; returns
  /// whether it was still the current execution (an abandoned one may have been replaced).
  func finish(_ execution: DedupeExecution<Value.Success>) -> Bool {
    state.withLock { state in
      guard state.execution === execution else { return false }
      state.execution = nil
      return true
    }
  }

  // MARK: Serial

  /// Appends a run to the serial queue. `makeRun` gets what the run must wait for; the queue itself waits for the
  /// run and for everything before it, so a queued run that is cancelled early never lets a later one jump ahead.
  func enqueue(
    _ makeRun: (Task<Void, Never>?) -> Task<Value.Success, any Error>
  ) -> Task<Value.Success, any Error> {
    state.withLock { state in
      let previous = state.serialTail
      let run = makeRun(previous)
      state.serialTail = Task {
        await previous?.value
        _ = await run.result
      }
      return run
    }
  }
}

/// One deduplicated execution of an operation and the callers sharing its outcome.
///
/// Callers register when they join, inside `run`, so none can miss an outcome that arrives before it waits.
final class DedupeExecution<Success: Sendable>: Sendable {
  private let state: Lock<State>

  private struct State: ~Copyable {
    var waiting: [UInt64: Slot] = [:]
    var outcome: RunOutcome<Success>?
    var task: Task<Void, Never>?
    /// Every caller left and the operation was cancelled: nobody may join it any more.
    var isAbandoned = false
  }

  private enum Slot {
    case joined
    case waiting(UnsafeContinuation<RunOutcome<Success>, Never>)
  }

  init(starter: UInt64) {
    state = Lock(State(waiting: [starter: .joined]))
  }

  /// Adds `caller`, unless the execution has already settled.
  func join(_ caller: UInt64) -> Bool {
    state.withLock { state in
      guard state.outcome == nil, !state.isAbandoned else { return false }
      state.waiting[caller] = .joined
      return true
    }
  }

  /// The task that runs the operation, cancelled if every caller leaves.
  func attach(_ task: Task<Void, Never>) {
    let orphaned = state.withLock { state -> Bool in
      state.task = task
      return state.isAbandoned && state.outcome == nil
    }
    if orphaned { task.cancel() }
  }

  /// Waits for the outcome; a caller whose task is cancelled leaves at once with `.cancelled`.
  func wait(caller: UInt64) async -> RunOutcome<Success> {
    await withTaskCancellationHandler {
      await withUnsafeContinuation { continuation in
        let ready = state.withLock { state -> RunOutcome<Success>? in
          if let outcome = state.outcome { return outcome }
          guard state.waiting[caller] != nil else { return .cancelled }
          state.waiting[caller] = .waiting(continuation)
          return nil
        }
        if let ready { continuation.resume(returning: ready) }
      }
    } onCancel: {
      leave(caller)
    }
  }

  private func leave(_ caller: UInt64) {
    let (waiter, orphaned) = state.withLock {
      state -> (UnsafeContinuation<RunOutcome<Success>, Never>?, Task<Void, Never>?) in
      guard state.outcome == nil, let slot = state.waiting.removeValue(forKey: caller) else { return (nil, nil) }
      let orphaned = state.waiting.isEmpty ? state.task : nil
      if state.waiting.isEmpty { state.isAbandoned = true }
      if case .waiting(let continuation) = slot { return (continuation, orphaned) }
      return (nil, orphaned)
    }
    waiter?.resume(returning: .cancelled)
    orphaned?.cancel()
  }

  /// Settles the execution and resumes every waiting caller.
  func complete(with outcome: RunOutcome<Success>) {
    let waiters = state.withLock { state -> [UnsafeContinuation<RunOutcome<Success>, Never>] in
      state.outcome = outcome
      return state.waiting.values.compactMap { slot in
        if case .waiting(let continuation) = slot { return continuation }
        return nil
      }
    }
    for waiter in waiters { waiter.resume(returning: outcome) }
  }
}

/// Waits for `task`, unless the calling task is cancelled first; returns whether `task` finished.
func waitUnlessCancelled(for task: Task<Void, Never>?) async -> Bool {
  guard let task else { return !Task.isCancelled }
  let signal = ResumeOnce()
  await withTaskCancellationHandler {
    await withUnsafeContinuation { continuation in
      signal.set(continuation)
      Task {
        await task.value
        signal.resume()
      }
    }
  } onCancel: {
    signal.resume()
  }
  return !Task.isCancelled
}

/// A continuation resumed by whichever comes first; later calls do nothing.
final class ResumeOnce: Sendable {
  private let state = Lock<(continuation: UnsafeContinuation<Void, Never>?, fired: Bool)>((nil, false))

  func set(_ continuation: UnsafeContinuation<Void, Never>) {
    let firesNow = state.withLock { state -> Bool in
      if state.fired { return true }
      state.continuation = continuation
      return false
    }
    if firesNow { continuation.resume() }
  }

  func resume() {
    let continuation = state.withLock { state -> UnsafeContinuation<Void, Never>? in
      guard !state.fired else { return nil }
      state.fired = true
      defer { state.continuation = nil }
      return state.continuation
    }
    continuation?.resume()
  }
}

/// The runners of one root value, one per path to an operation state inside it, so runs on `$screen.posts` and on
/// `$screen.drafts` are coordinated separately even when both hold the same type.
@usableFromInline
final class OperationRunners: Sendable {
  private let runners = Lock<[[String]: AnyObject]>([:])

  @usableFromInline
  init() {}

  @usableFromInline
  func runner<Value: OperationTrackable>(for path: [AnyKeyPath], as _: Value.Type) -> OperationRunner<Value> {
    // Key paths describe themselves by their route (`\Screen.posts`), which is the same wherever they are written,
    // and, unlike `AnyKeyPath`, a description can be kept under the lock.
    let path = path.map { String(reflecting: $0) }
    return runners.withLock { runners in
      if let existing = runners[path] { return unsafeDowncast(existing, to: OperationRunner<Value>.self) }
      let made = OperationRunner<Value>()
      runners[path] = made
      return made
    }
  }
}

/// How many runs on one value may still write its state, and the status the last settled run (or reset) left.
@usableFromInline
final class RunStatus: Sendable {
  private let state = Lock<(writers: Int, settled: OperationStatus)>((0, .idle))

  init() {}

  /// Counts a run that may write the state; call under the value's lock.
  @usableFromInline
  func beginWriting(from status: OperationStatus) {
    state.withLock { state in
      if state.writers == 0 { state.settled = status }
      state.writers += 1
    }
  }

  /// Uncounts a run, records the status a writing run settled on, and returns the status a cancelled run leaves:
  /// still pending while other runs may write, otherwise the status the last settled run left. Call under the
  /// value's lock.
  @usableFromInline
  func finishWriting(settledOn status: OperationStatus?) -> OperationStatus {
    state.withLock { state in
      state.writers = max(0, state.writers - 1)
      if let status { state.settled = status }
      return state.writers > 0 ? .pending : state.settled
    }
  }

  /// Records a reset; call under the value's lock.
  @usableFromInline
  func didReset() {
    state.withLock { $0.settled = .idle }
  }
}
