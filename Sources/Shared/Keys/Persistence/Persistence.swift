import Reactive
import Synchronization

/// Connects one keyed value to its key's store: schedules saves after changes, applies changes from the store,
/// and keeps the last load and save errors.
///
/// Every decision is made by a ``PersistenceStateMachine`` under this object's lock; the action it returns is
/// performed after the lock is released (start or wake the save task, call the key, resume a `save()`), and
/// whatever an event replaced (a pending value, an error) is released after the lock too. Every change takes a
/// number under the box's lock, so the machine can tell an older change from a newer one whatever order their
/// requests arrive in.
@usableFromInline
final class Persistence<Value: Sendable>: Sendable {
  /// A waiting `save()`, resumed with the error of the save that stored its changes (`nil` when it succeeded).
  typealias Waiter = UnsafeContinuation<(any Error)?, Never>
  typealias Machine = PersistenceStateMachine<Value, Waiter>

  let key: any SharedKey<Value>
  let box: ReactiveBox<Value>
  @usableFromInline let savesChanges: Bool
  /// The first holder's default: what the value goes back to when the store no longer holds one.
  private let defaultValue: Value
  private let schedule: SharedSaveSchedule
  private let sequence = Atomic<UInt64>(0)
  private let state = Lock(Guarded())
  private let subscription = Lock<SharedSubscription?>(nil)

  private struct Guarded {
    var machine = Machine(sameValue: { sameValue($0, $1) })
    /// The save task's sleep, so a `save()` can cut it short.
    var sleeper: Task<Void, any Error>?
  }

  @usableFromInline
  init(key: any SharedKey<Value>, box: ReactiveBox<Value>, defaultValue: Value) {
    self.key = key
    self.box = box
    self.defaultValue = defaultValue
    self.savesChanges = key.persistence == .readWrite
    self.schedule = key.saveSchedule
  }

  var context: SharedKeyContext<Value> { SharedKeyContext(persistence: self) }

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
      return (action, guarded.machine.saveError, previous)
    }
    withExtendedLifetime(previous) {}
    return (action, result)
  }

  /// Loads the stored value into the box; keeps the default and records the error if the store is unreadable.
  @usableFromInline
  func load() {
    do {
      if let stored = try key.load(context: context) {
        let replaced = box.withLock { value -> Value in
          let replaced = value
          value = stored
          return replaced
        }
        withExtendedLifetime(replaced) {}  // Released after the lock.
      }
    } catch {
      decide { $0.loadErrorReported(error) }
    }
  }

  /// Starts watching the store.
  @usableFromInline
  func subscribe() {
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
  /// `save()` is waiting: at most one save per delay, and a change is saved no later than one delay after it was
  /// made.
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
        do {
          try await SaveScope.$persistence.withValue(ObjectIdentifier(self)) {
            try await key.save(change.value, context: context)
          }
          outcome = nil
        } catch {
          outcome = error
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
    let sleeper = Task { try await clock.sleep(for: delay) }
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
  /// When the last save failed and nothing changed since, the current value is saved again.
  func flush() async throws {
    guard savesChanges else { return }
    let target = sequence.load(ordering: .relaxed)
    let current = box.value
    let error = await withUnsafeContinuation { (waiter: Waiter) in
      // Decided and registered under one lock, so no save can finish between the check and the registration.
      let (action, sleeper, result, previous) = state.withLock {
        guarded -> (Machine.FlushAction, Task<Void, any Error>?, (any Error)?, Machine.Held) in
        let previous = guarded.machine.held
        let action = guarded.machine.flushRequested(target: target, current: current, waiter: waiter)
        var sleeper: Task<Void, any Error>?
        if case .wait(wakeSaveTask: true) = action { sleeper = guarded.sleeper.take() }
        return (action, sleeper, guarded.machine.saveError, previous)
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
  func update(fromStore value: Value, read: StoreRead? = nil) -> Bool {
    let fromWithinSave = read == nil && SaveScope.persistence == ObjectIdentifier(self)
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
    let (action, result) = decideWithResult {
      $0.storeValueApplied(
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

  var loadError: (any Error)? { state.withLock { $0.machine.loadError } }
  var saveError: (any Error)? { state.withLock { $0.machine.saveError } }
}

/// The value whose key's save runs in the current task, so an update the key reports from inside its own save is
/// known as what the store holds after that save.
enum SaveScope {
  @TaskLocal static var persistence: ObjectIdentifier?
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
