import Reactive
import Synchronization

/// Connects one keyed value to its key's store: loads it, schedules saves after changes (for a key that saves),
/// applies changes from the store, and keeps the last load and save errors.
///
/// Every decision is made by a ``PersistenceStateMachine`` under this object's lock; the action it returns is
/// performed after the lock is released (start or wake the save task, call the key, resume a `save()` or a
/// `load()`), and whatever an event replaced (a pending value, an error) is released after the lock too. Every change
/// takes a number under the box's lock, so the machine can tell an older change from a newer one whatever order
/// their requests arrive in.
@usableFromInline
final class Persistence<Value: Sendable>: Sendable {
  /// A waiting `save()` or `load()`, resumed with the error of the save that stored its changes, or of the load it
  /// waited for (`nil` when it succeeded), or with `CancellationError` when its caller is cancelled.
  typealias Waiter = PersistenceWaiter
  typealias Machine = PersistenceStateMachine<Value, Waiter>

  let key: any SharedReaderKey<Value>
  /// The key's save; `nil` for a key that only reads.
  let writer: (any SharedKey<Value>)?
  let box: ReactiveBox<Value>
  @usableFromInline var savesChanges: Bool { writer != nil }
  /// The first holder's default: what the value goes back to when the store no longer holds one.
  private let defaultValue: Value
  /// The registry's inspector: loads and saves publish events to it while it is attached.
  private let inspector: SharedInspector?
  private let schedule: SharedSaveSchedule
  private let sequence = Atomic<UInt64>(0)
  private let state = Lock(Guarded())
  private let subscription = Lock<SharedSubscription?>(nil)
  /// The flush participants this value joined, kept alive while the value is.
  private let flushList = Lock<FlushParticipants?>(nil)

  private struct Guarded {
    var machine = Machine(sameValue: { sameValue($0, $1) })
    /// The save task's sleep, so a `save()` can cut it short.
    var sleeper: Task<Void, any Error>?
  }

  /// The persistence of a value whose key only reads its store.
  init(
    reader key: any SharedReaderKey<Value>,
    box: ReactiveBox<Value>,
    defaultValue: Value,
    inspector: SharedInspector? = nil
  ) {
    self.key = key
    self.inspector = inspector
    self.writer = nil
    self.box = box
    self.defaultValue = defaultValue
    self.schedule = .immediate
  }

  /// The persistence of a value whose key saves its changes.
  init(
    writer key: any SharedKey<Value>,
    box: ReactiveBox<Value>,
    defaultValue: Value,
    inspector: SharedInspector? = nil
  ) {
    self.key = key
    self.inspector = inspector
    self.writer = key
    self.box = box
    self.defaultValue = defaultValue
    self.schedule = key.saveSchedule
  }

  var context: SharedKeyContext<Value> { SharedKeyContext(persistence: self) }

  /// The key's identity in an inspection (see ``InspectedKey/id``): describes the key, the program's code.
  /// The key's type without its generic arguments (`FileStorageKey`), for an instrument.
  private var keyKindName: String {
    let name = String(describing: type(of: key))
    return name.firstIndex(of: "<").map { String(name[..<$0]) } ?? name
  }

  private var inspectedID: String {
    if let file = key.id as? FileStorageKeyID { return InspectedKey.id(kind: .file, name: file.path) }
    return InspectedKey.id(kind: .custom, name: String(describing: key))
  }

  /// Asks the machine under the lock; whatever the event replaced or dropped is released after the lock, where a
  /// `deinit` may use this same value.
  private func decide<Action: Sendable>(_ event: (inout Machine) -> Action) -> Action {
    decideWithResult(event).action
  }

  /// ``decide(_:)``, with the save error as the event left it, read in the same critical section: what the waiters
  /// the event releases are resumed with, so each `save()` reports the save that stored its changes, never a later
  /// one's.
  private func decideWithResult<Action: Sendable>(
    _ event: (inout Machine) -> Action
  ) -> (action: Action, result: (any Error)?) {
    let (action, result, previous) = state.withLock { guarded -> (Action, (any Error)?, Machine.Held) in
      let previous = guarded.machine.held
      let action = event(&guarded.machine)
      return (action, guarded.machine.flushResult, previous)
    }
    withExtendedLifetime(previous) {}
    return (action, result)
  }

  // MARK: Loads

  /// Starts the first load, for the first holder, before anyone else sees the value: a key that resumes at once
  /// puts the stored value in the box before this returns; otherwise the value is loading.
  func loadInitially() {
    let now = sequence.load(ordering: .relaxed)
    guard case .start = decide({ $0.loadRequested(waiter: nil, sequenceNow: now) }) else {
      preconditionFailure("the first load of a value is its only one")
    }
    callLoad(announce: false)
  }

  /// Loads again and waits for a load that began after this call; throws that load's error.
  ///
  /// A cancelled caller stops waiting at once and throws `CancellationError`; the load goes on for the others.
  func reload() async throws {
    try Task.checkCancellation()
    let error = await Waiter.wait { waiter in
      let now = sequence.load(ordering: .relaxed)
      if case .start = decide({ $0.loadRequested(waiter: waiter, sequenceNow: now) }) {
        callLoad(announce: true)
      }
    }
    if let error { throw error }
  }

  /// Whether a load runs.
  var isLoading: Bool { state.withLock { $0.machine.isLoading } }

  /// Calls the key's load (the machine has started it). When the key resumes later, holders are told now that the
  /// value is loading, if `announce`.
  private func callLoad(announce: Bool) {
    let context = self.context
    let attempt = LoadAttempt(context: context)
    key.load(context: context, continuation: SharedLoadContinuation(attempt: attempt))
    if let outcome = attempt.loadReturned() {
      loadResumed(outcome)
    } else if announce {
      box.withLock { _ in }  // A change with the same value: listeners read `isLoading` again.
    }
  }

  /// The running load ended with `outcome`: applies its value unless the program changed the value, or has a change
  /// to save, since the load began; keeps or clears the load error; resumes the load's callers; starts the next load
  /// if someone asked for one meanwhile.
  ///
  /// The box is written whatever the outcome (with the same value when nothing is applied), so every listener hears
  /// that the load ended; the machine has ended it before the box tells them.
  func loadResumed(_ outcome: LoadAttempt<Value>.Outcome) {
    let loaded: Value?
    let machineOutcome: Machine.LoadOutcome
    switch outcome {
    case .success(let value):
      loaded = value ?? defaultValue
      machineOutcome = .loaded
    case .failure(let error):
      loaded = nil
      machineOutcome = .failed(error)
    }
    // Lock order: the box's lock, then this object's. Whatever the events replace is released after both.
    let (ended, replaced, previous, result) = box.withLock {
      stored -> (Machine.LoadEndedAction, Value?, Machine.Held, (any Error)?) in
      state.withLock { guarded -> (Machine.LoadEndedAction, Value?, Machine.Held, (any Error)?) in
        let previous = guarded.machine.held
        var replaced: Value?
        var applied: UInt64?
        if let loaded, guarded.machine.loadMayApply(sequenceNow: sequence.load(ordering: .relaxed)) {
          replaced = stored
          stored = loaded
          applied = nextSequence()
        }
        let ended = guarded.machine.loadEnded(
          machineOutcome, applied: applied, sequenceNow: sequence.load(ordering: .relaxed))
        return (ended, replaced, previous, guarded.machine.flushResult)
      }
    }
    withExtendedLifetime((replaced, previous)) {}
    let loadError: (any Error)? =
      if case .failed(let error) = machineOutcome { error } else { nil }
    // Heard before the callers of `load()` resume.
    if let inspector, inspector.isAttached {
      inspector.publish(inspectedID, loadError.map { .loadFailed(error: String(describing: $0)) } ?? .loaded)
    }
    for waiter in ended.flushWaiters { waiter.resume(returning: result) }
    for waiter in ended.loadWaiters { waiter.resume(returning: loadError) }
    if ended.startNext != nil { callLoad(announce: true) }
  }

  /// Starts watching the store, and, for a key that saves, joins the flushes of `registry` (keeping its list of
  /// participants alive, so a save still waiting after the registry is gone is written at exit).
  @usableFromInline
  func start(in registry: SharedRegistry) {
    if savesChanges {
      let participants = registry.flushParticipants
      flushList.withLock { $0 = participants }
      participants.join(self)
    }
    let started = key.subscribe(context: context)
    subscription.withLock { $0 = started }
  }

  /// Stops watching the store. Saves already scheduled still run.
  func stop() {
    let stopped = subscription.withLock { $0.take() }
    stopped?.cancel()
  }

  // MARK: Changes made in the program

  /// A number that orders changes; take it under the box's lock.
  func nextSequence() -> UInt64 {
    sequence.add(1, ordering: .relaxed).newValue
  }

  /// Schedules a save of `value`, the result of change number `sequence`; `owner` stays alive until it is saved.
  /// A request older than a change already accepted is ignored.
  func changed(_ value: Value, sequence: UInt64, owner: any AnyObject & Sendable) {
    guard savesChanges else { return }
    let action = decide { $0.changeRequested(Machine.Change(value: value, sequence: sequence), owner: owner) }
    if case .startSaveTask = action { startSaveTask() }
  }

  private func startSaveTask() {
    Task { await self.runSaveTask() }
  }

  /// Saves the machine's changes until it has none left, waiting the schedule's delay before each save unless a
  /// `save()` is waiting: at most one save per delay. Changes made during a wait do not restart it, so a change is
  /// saved at most one delay after it was made, or, when a save was running, one delay after that save returned.
  private func runSaveTask() async {
    while true {
      await waitForDelay()
      let (ready, readyResult) = decideWithResult { $0.saveTaskReady() }
      switch ready {
      case .finish(let waiters):
        for waiter in waiters { waiter.resume(returning: readyResult) }
        return
      case .save(let change):
        let outcome: (any Error)?
        let measurement = inspector?.instruments.begin(
          InstrumentedWork(kind: .save, key: nil, keyKind: keyKindName, savedKey: inspectedID, meta: OperationMeta()))
        do {
          // Only a value whose key saves has changes to save (see `changed`).
          let scope = SaveScope(persistence: ObjectIdentifier(self), sequence: change.sequence)
          try await SaveScope.$current.withValue(scope) {
            if let measurement {
              try await measurement.attempt(1) { try await writer?.save(change.value, context: context) }
            } else {
              try await writer?.save(change.value, context: context)
            }
          }
          outcome = nil
        } catch {
          outcome = error
        }
        measurement?.ended(outcome.map { InstrumentedOutcome(Result<Void, any Error>.failure($0)) } ?? .success)
        // Heard before the callers of `save()` resume.
        if let inspector, inspector.isAttached {
          inspector.publish(inspectedID, outcome.map { .saveFailed(error: String(describing: $0)) } ?? .saved)
        }
        let (finished, result) = decideWithResult { $0.saveFinished(error: outcome) }
        switch finished {
        case .continueSaving(let waiters):
          for waiter in waiters { waiter.resume(returning: result) }
        case .finish(let waiters):
          for waiter in waiters { waiter.resume(returning: result) }
          return
        }
      }
    }
  }

  /// Sleeps for the schedule's delay, unless a `save()` is waiting or arrives meanwhile.
  private func waitForDelay() async {
    guard schedule.delay > .zero else { return }
    // No sleeper task when a save() already waits (checked again below, once the sleeper can be cut short).
    guard state.withLock({ $0.machine.saveTaskWaitsForDelay }) else { return }
    let clock = schedule.clock
    let delay = schedule.delay
    let sleeper = Task { try await clock.sleep(for: delay, waitingFor: .saveDelay) }
    let sleeps = state.withLock { guarded -> Bool in
      guard guarded.machine.saveTaskWaitsForDelay else { return false }
      guarded.sleeper = sleeper
      return true
    }
    if sleeps {
      _ = try? await sleeper.value
      state.withLock { $0.sleeper = nil }
    } else {
      sleeper.cancel()
    }
  }

  /// Saves now every change made before this call, and waits until they are in the store; throws the error of
  /// the save that stored them (a later save's error is not this call's). Changes made meanwhile do not keep it
  /// waiting.
  ///
  /// When the last save failed and nothing changed since, the current value is saved again. A cancelled caller
  /// stops waiting at once and throws `CancellationError`; the saves go on.
  func flush() async throws {
    guard savesChanges else { return }
    try Task.checkCancellation()
    let target = sequence.load(ordering: .relaxed)
    let current = box.value
    let error = await Waiter.wait { waiter in
      // Decided and registered under one lock, so no save can finish between the check and the registration.
      let (action, sleeper, result, previous) = state.withLock {
        guarded -> (Machine.FlushAction, Task<Void, any Error>?, (any Error)?, Machine.Held) in
        let previous = guarded.machine.held
        let action = guarded.machine.flushRequested(target: target, current: current, waiter: waiter)
        var sleeper: Task<Void, any Error>?
        if case .wait(wakeSaveTask: true) = action { sleeper = guarded.sleeper.take() }
        return (action, sleeper, guarded.machine.flushResult, previous)
      }
      withExtendedLifetime(previous) {}
      switch action {
      case .resumeNow(let waiter):
        waiter.resume(returning: result)
      case .wait:
        sleeper?.cancel()
      case .waitAndStartSaveTask:
        startSaveTask()
      }
    }
    if let error { throw error }
  }

  // MARK: Changes made in the store

  /// Marks the start of a read of the store, for ``update(fromStore:read:)``.
  func storeReadStarted() -> StoreRead {
    let now = sequence.load(ordering: .relaxed)
    return state.withLock { $0.machine.storeReadStarted(at: now) }
  }

  /// Applies a value read from the store, unless the program saved, or changed, the value since `read` began: the
  /// store then holds, or will hold, the program's newer value. Without `read`, the value is the store's now and
  /// is always applied.
  ///
  /// The decision is made under the box's lock, in the critical section that writes the value, where every change
  /// of the program takes its number: a change made after the read began is never overwritten, even if its save
  /// request is still on its way.
  ///
  /// - Returns: Whether the value was applied; if not, the store should be read again.
  @discardableResult
  func update(fromStore value: Value, read: StoreRead? = nil, saved: Bool = false) -> Bool {
    let fromWithinSave = read == nil && SaveScope.current?.persistence == ObjectIdentifier(self)
    /// Whether the value may replace memory now; asked once before and once under the box's lock.
    func accepted() -> Bool {
      let now = sequence.load(ordering: .relaxed)
      return state.withLock { guarded in
        if let read { return guarded.machine.storeReadFinished(read, sequenceNow: now) == .apply }
        return !guarded.machine.storeReportIsStaleEcho(value, fromWithinSave: fromWithinSave, sequenceNow: now)
      }
    }
    // Most refusals are decided here, without touching the box (and so without telling its listeners).
    guard accepted() else { return false }
    let applied = read ?? storeReadStarted()
    // Lock order: the box's lock, then this object's (never the other way round). The check only reads the machine,
    // so nothing is released under either lock here.
    let written = box.withLock { stored -> (sequence: UInt64, replaced: Value)? in
      guard accepted() else { return nil }
      let replaced = stored
      stored = value
      return (nextSequence(), replaced)
    }
    guard let written else { return false }
    withExtendedLifetime(written.replaced) {}  // Released after the lock.
    // A value the store reported (another program changed the file, say), not one of this program's saves.
    if !fromWithinSave, !saved, let inspector, inspector.isAttached { inspector.publish(inspectedID, .loaded) }
    let (action, result) = decideWithResult {
      // The key wrote memory's change itself: it reached the store, and its failed save's error goes.
      if saved { $0.saveErrorCleared() }
      return $0.storeValueApplied(
        Machine.Change(value: value, sequence: written.sequence), read: applied, fromWithinSave: fromWithinSave)
    }
    switch action {
    case .resume(let waiters):
      for waiter in waiters { waiter.resume(returning: result) }
    case .startSaveTask(let waiters):
      for waiter in waiters { waiter.resume(returning: result) }
      startSaveTask()
    }
    return true
  }

  /// The store no longer holds a value: back to the first holder's default (see ``update(fromStore:read:)``).
  @discardableResult
  func resetFromStore(read: StoreRead? = nil) -> Bool {
    update(fromStore: defaultValue, read: read)
  }

  func setLoadError(_ error: (any Error)?) {
    decide { $0.loadErrorReported(error) }
  }

  /// Whether no save is scheduled or running; lets tests know the value went quiet.
  var isIdle: Bool {
    state.withLock { guarded in
      if case .idle = guarded.machine.mode { return true }
      return false
    }
  }

  /// How many `save()` calls are waiting; lets tests know a flush has registered.
  var flushWaiterCount: Int { state.withLock { $0.machine.flushWaiterCount } }

  /// How many `load()` calls are waiting; lets tests know a load has registered.
  var loadWaiterCount: Int { state.withLock { $0.machine.loadWaiterCount } }

  var loadError: (any Error)? { state.withLock { $0.machine.loadError } }
  var saveError: (any Error)? { state.withLock { $0.machine.saveError } }

  func clearSaveError() {
    let cleared = state.withLock { state -> (any Error)? in
      defer { state.machine.saveErrorCleared() }
      return state.machine.saveError
    }
    withExtendedLifetime(cleared) {}  // The error is released after the lock.
  }
}

extension Persistence: FlushParticipant {
  /// The key, as it reads in code.
  var flushDescription: String { String(describing: key) }

  /// Writes the newest change that waits to be saved (or is being saved) on the calling thread, for a key that can
  /// write synchronously (see ``ExitFlush`` for why this cannot deadlock). The change is taken under this value's
  /// lock and written after it is released; the box's lock is not taken, so a program that exits from inside
  /// `withLock` does not hang here. Nothing in the machine changes: the process is ending.
  func flushBeforeExit() throws {
    guard let writer = writer as? any SavesSynchronously<Value> else { return }
    guard let change = state.withLock({ $0.machine.newestUnsavedChange }) else { return }
    try writer.saveNow(change.value, sequence: change.sequence, context: context)
  }
}

/// Whether `first` and `second` are equal; `false` when their type is not `Equatable`.
private func sameValue<Value>(_ first: Value, _ second: Value) -> Bool {
  guard let first = first as? any Equatable else { return false }
  return first.isEqual(to: second)
}

extension Equatable {
  /// Whether `other` is a value of this type equal to this one.
  fileprivate func isEqual(to other: Any) -> Bool {
    guard let other = other as? Self else { return false }
    return self == other
  }
}
