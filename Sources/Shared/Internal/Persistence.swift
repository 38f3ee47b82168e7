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
  private let state = Mutex(State())
  private let subscription = Mutex<SharedSubscription?>(nil)

  private struct State: ~Copyable {
    var pending: Value?
    var pendingSequence: UInt64 = 0
    var storeSequence: UInt64 = 0
    var isDraining = false
    var flushRequested = false
    var sleeper: Task<Void, any Error>?
    var flushWaiters: [UnsafeContinuation<Void, Never>] = []
    var loadError: (any Error)?
    var saveError: (any Error)?
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

  /// Schedules a save of `value`, the result of change number `sequence`.
  func changed(_ value: Value, sequence: UInt64) {
    guard savesChanges else { return }
    let startsDrain = state.withLock { state -> Bool in
      if sequence > state.pendingSequence && sequence > state.storeSequence {
        state.pending = value
        state.pendingSequence = sequence
      }
      guard state.pending != nil, !state.isDraining else { return false }
      state.isDraining = true
      return true
    }
    if startsDrain {
      Task { await self.drain(waitingFirst: true) }
    }
  }

  /// Saves pending values until none is left; first waits for the schedule's delay unless a flush is requested.
  private func drain(waitingFirst: Bool) async {
    if waitingFirst && schedule.delay > .zero {
      let clock = schedule.clock
      let delay = schedule.delay
      let sleeper = Task { try await clock.sleep(for: delay) }
      let sleeps = state.withLock { state -> Bool in
        guard !state.flushRequested else { return false }
        state.sleeper = sleeper
        return true
      }
      if sleeps {
        _ = try? await sleeper.value
      } else {
        sleeper.cancel()
      }
    }
    while true {
      let step = state.withLock { state -> DrainStep in
        state.sleeper = nil
        if let next = state.pending.take() { return .save(next) }
        // Under the same lock as the last take: a change after this starts a new drain.
        state.isDraining = false
        state.flushRequested = false
        defer { state.flushWaiters = [] }
        return .finished(state.flushWaiters)
      }
      switch step {
      case .save(let value):
        do {
          try await key.save(value, context: context)
          state.withLock { $0.saveError = nil }
        } catch {
          state.withLock { $0.saveError = error }
        }
      case .finished(let waiters):
        for waiter in waiters { waiter.resume() }
        return
      }
    }
  }

  private enum FlushAction {
    case done
    case drain
    case wait(Task<Void, any Error>?)
  }

  private enum DrainStep {
    case save(Value)
    case finished([UnsafeContinuation<Void, Never>])
  }

  /// Saves any change not saved yet, now, and waits for it; throws the error of the last save.
  ///
  /// When the last save failed and nothing changed since, the current value is saved again.
  func flush() async throws {
    let current = box.value
    let action = state.withLock { state -> FlushAction in
      if state.isDraining {
        state.flushRequested = true
        return .wait(state.sleeper)
      }
      if state.pending == nil {
        guard state.saveError != nil, savesChanges else { return .done }
        state.pending = current
      }
      state.isDraining = true
      state.flushRequested = true
      return .drain
    }
    switch action {
    case .done:
      break
    case .drain:
      await drain(waitingFirst: false)
    case .wait(let sleeper):
      sleeper?.cancel()
      await withUnsafeContinuation { (waiter: UnsafeContinuation<Void, Never>) in
        let resumesNow = state.withLock { state -> Bool in
          guard state.isDraining else { return true }
          state.flushWaiters.append(waiter)
          return false
        }
        if resumesNow { waiter.resume() }
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
    state.withLock { state in
      state.storeSequence = max(state.storeSequence, storeSequence)
      if state.pendingSequence < storeSequence { state.pending = nil }
      state.loadError = nil
    }
  }

  func setLoadError(_ error: (any Error)?) {
    state.withLock { $0.loadError = error }
  }

  var loadError: (any Error)? { state.withLock { $0.loadError } }
  var saveError: (any Error)? { state.withLock { $0.saveError } }
}
