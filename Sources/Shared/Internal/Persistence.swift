import Reactive
import Synchronization

/// Connects one keyed value to its key's store: schedules saves after changes, applies changes from the store,
/// and keeps the last load and save errors.
///
/// Saves never overlap: one task at a time drains the newest pending value into ``SharedKey/save(_:context:)``.
/// Every change takes a sequence number under the box's lock, so a store update can tell which pending change is
/// older than itself.
@usableFromInline
final class Persistence<Value: Sendable>: Sendable {
  let key: any SharedKey<Value>
  let box: ReactiveBox<Value>
  @usableFromInline let savesChanges: Bool
  private let schedule: SharedSaveSchedule
  private let sequence = Atomic<UInt64>(0)
  private let state = Lock(State())
  private let subscription = Lock<SharedSubscription?>(nil)

  private struct State: ~Copyable {
    /// The newest change not handed to a save yet, and its sequence number.
    var pending: (value: Value, sequence: UInt64)?
    /// The sequence number of the newest change taken from the store.
    var storeSequence: UInt64 = 0
    /// The sequence number of the newest change whose save has finished, successfully or not.
    var savedSequence: UInt64 = 0
    var isDraining = false
    /// Set while a `save()` waits: the drain skips its delay.
    var flushRequested = false
    var sleeper: Task<Void, any Error>?
    var flushWaiters: [(target: UInt64, continuation: UnsafeContinuation<Void, Never>)] = []
    var loadError: (any Error)?
    var saveError: (any Error)?
    /// What keeps the value alive while a save is pending, so a new holder finds it instead of reloading the store.
    var keepAlive: AnyObject?
  }

  @usableFromInline
  init(key: any SharedKey<Value>, box: ReactiveBox<Value>) {
    self.key = key
    self.box = box
    self.savesChanges = key.persistence == .readWrite
    self.schedule = key.saveSchedule
  }

  var context: SharedKeyContext<Value> { SharedKeyContext(persistence: self) }

  /// Loads the stored value into the box; keeps the default and records the error if the store is unreadable.
  @usableFromInline
  func load() {
    do {
      if let stored = try key.load(context: context) {
        box.withLock { $0 = stored }
      }
    } catch {
      setLoadError(error)
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
  func changed(_ value: Value, sequence: UInt64, owner: any AnyObject & Sendable) {
    guard savesChanges else { return }
    let (startsDrain, replaced) = state.withLock { state -> (Bool, Value?) in
      guard sequence > (state.pending?.sequence ?? 0), sequence > state.storeSequence else { return (false, nil) }
      let replaced = state.pending?.value
      state.pending = (value, sequence)
      if state.keepAlive == nil { state.keepAlive = owner }
      guard !state.isDraining else { return (false, replaced) }
      state.isDraining = true
      return (true, replaced)
    }
    withExtendedLifetime(replaced) {}  // Released after the lock.
    if startsDrain {
      Task { await self.drain() }
    }
  }

  private enum DrainStep {
    case save(Value, sequence: UInt64)
    case finished([UnsafeContinuation<Void, Never>], keepAlive: AnyObject?)
  }

  /// Saves pending changes until none is left, waiting the schedule's delay before each save unless a `save()`
  /// is waiting: at most one save per delay, and a change is saved no later than one delay after it was made.
  private func drain() async {
    while true {
      await waitForDelay()
      let step = state.withLock { state -> DrainStep in
        state.sleeper = nil
        if let pending = state.pending.take() { return .save(pending.value, sequence: pending.sequence) }
        // Under the same lock as the last take: a change after this starts a new drain.
        state.isDraining = false
        state.flushRequested = false
        defer {
          state.flushWaiters = []
          state.keepAlive = nil
        }
        return .finished(state.flushWaiters.map(\.continuation), keepAlive: state.keepAlive)
      }
      switch step {
      case .save(let value, let sequence):
        let outcome: (any Error)?
        do {
          try await key.save(value, context: context)
          outcome = nil
        } catch {
          outcome = error
        }
        let ready = state.withLock { state -> [UnsafeContinuation<Void, Never>] in
          state.savedSequence = max(state.savedSequence, sequence)
          state.saveError = outcome
          if outcome == nil { state.loadError = nil }
          if state.storeSequence > sequence && state.pending == nil {
            // The store changed while this older value was being written over it: write what memory now holds,
            // which includes the store's change, so the two agree again.
            state.pending = (box.value, state.storeSequence)
          }
          let ready = state.flushWaiters.filter { $0.target <= state.savedSequence }.map(\.continuation)
          state.flushWaiters.removeAll { $0.target <= state.savedSequence }
          if state.flushWaiters.isEmpty { state.flushRequested = false }
          return ready
        }
        for waiter in ready { waiter.resume() }
      case .finished(let waiters, let keepAlive):
        for waiter in waiters { waiter.resume() }
        withExtendedLifetime(keepAlive) {}
        return
      }
    }
  }

  /// Sleeps for the schedule's delay, unless a `save()` is waiting or arrives meanwhile.
  private func waitForDelay() async {
    guard schedule.delay > .zero else { return }
    let clock = schedule.clock
    let delay = schedule.delay
    let sleeper = Task { try await clock.sleep(for: delay) }
    let sleeps = state.withLock { state -> Bool in
      guard !state.flushRequested, state.pending != nil else { return false }
      state.sleeper = sleeper
      return true
    }
    if sleeps {
      _ = try? await sleeper.value
    } else {
      sleeper.cancel()
    }
  }

  /// Saves now every change made before this call, and waits until they are saved; throws the error of the last
  /// save. Changes made meanwhile do not keep it waiting.
  ///
  /// When the last save failed and nothing changed since, the current value is saved again.
  func flush() async throws {
    guard savesChanges else { return }
    let target = sequence.load(ordering: .relaxed)
    let current = box.value
    await withUnsafeContinuation { (waiter: UnsafeContinuation<Void, Never>) in
      // Decided and registered under one lock, so no drain can finish between the check and the registration.
      let decision = state.withLock { state -> (resumesNow: Bool, startsDrain: Bool, sleeper: Task<Void, any Error>?) in
        if state.pending == nil && !state.isDraining {
          guard state.saveError != nil else { return (true, false, nil) }
          state.pending = (current, max(state.savedSequence, target))
        } else if state.pending == nil && state.savedSequence >= target {
          return (true, false, nil)
        }
        state.flushRequested = true
        state.flushWaiters.append((target, waiter))
        let startsDrain = !state.isDraining
        state.isDraining = true
        return (false, startsDrain, state.sleeper)
      }
      if decision.resumesNow {
        waiter.resume()
        return
      }
      decision.sleeper?.cancel()
      if decision.startsDrain {
        Task { await self.drain() }
      }
    }
    if let error = saveError { throw error }
  }

  // MARK: Changes made in the store

  /// Applies a value read from the store; drops older unsaved changes so they cannot overwrite it.
  func update(fromStore value: Value) {
    let storeSequence = box.withLock { stored -> UInt64 in
      stored = value
      return nextSequence()
    }
    let dropped = state.withLock { state -> Value? in
      state.storeSequence = max(state.storeSequence, storeSequence)
      state.loadError = nil
      guard let pending = state.pending, pending.sequence < storeSequence else { return nil }
      state.pending = nil
      return pending.value
    }
    withExtendedLifetime(dropped) {}  // Released after the lock.
  }

  func setLoadError(_ error: (any Error)?) {
    state.withLock { $0.loadError = error }
  }

  /// How many `save()` calls are waiting; lets tests know a flush has registered.
  var flushWaiterCount: Int { state.withLock { $0.flushWaiters.count } }

  var loadError: (any Error)? { state.withLock { $0.loadError } }
  var saveError: (any Error)? { state.withLock { $0.saveError } }
}
