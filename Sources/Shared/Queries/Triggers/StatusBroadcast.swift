import Reactive

/// A yes-or-no status and the iterations that follow it: what ``ManualOnlineStatus``, ``ManualFocus`` and the
/// platform sources share.
///
/// Each iteration gets the status it started with, then every change, in order: a change is yielded under the lock
/// (yielding runs no code of the iteration's; it resumes it later), so two changes made at once reach every
/// iteration in the order they were made.
///
/// The library's own listeners (a store's network gate) hear of a change synchronously instead, in the thread that
/// made it, after the lock: each call carries the change's sequence number, so a listener told of two changes made
/// at once in the wrong order keeps the newer one.
final class StatusBroadcast: Sendable {
  /// A listener of the library's: told each change with its sequence number, after the lock.
  typealias Listener = @Sendable (_ value: Bool, _ sequence: UInt64) -> Void

  private struct State: ~Copyable {
    var value: Bool
    /// How many changes there were: the sequence number of the value now.
    var sequence: UInt64 = 0
    var nextID = 0
    var continuations: [Int: AsyncStream<Bool>.Continuation] = [:]
    var listeners: [Int: Listener] = [:]
  }

  private let state: Lock<State>

  init(_ value: Bool) {
    state = Lock(State(value: value))
  }

  deinit {
    let continuations = state.withLock { $0.continuations }
    for continuation in continuations.values { continuation.finish() }
  }

  var value: Bool { state.withLock { $0.value } }

  /// Sets the status; iterations and listeners hear of it only if it changed.
  func set(_ value: Bool) {
    let told = state.withLock { state -> (listeners: [Listener], sequence: UInt64)? in
      guard state.value != value else { return nil }
      state.value = value
      state.sequence += 1
      for continuation in state.continuations.values { continuation.yield(value) }
      guard !state.listeners.isEmpty else { return nil }
      return (Array(state.listeners.values), state.sequence)
    }
    guard let told else { return }
    for listener in told.listeners { listener(value, told.sequence) }
  }

  /// Calls `listener` after each change, in the thread that made it, until the returned subscription is cancelled
  /// or freed; returns the status now and its sequence number, taken with the registration, so no change falls
  /// between the two.
  func listen(_ listener: @escaping Listener) -> (value: Bool, sequence: UInt64, subscription: SharedSubscription) {
    let (id, value, sequence) = state.withLock { state in
      let id = state.nextID
      state.nextID += 1
      state.listeners[id] = listener
      return (id, state.value, state.sequence)
    }
    let subscription = SharedSubscription { [weak self] in
      // Released after the lock: the listener may hold the last reference to its owner.
      self?.state.withLockReleasingAfter { (result: (), released: $0.listeners.removeValue(forKey: id)) }
    }
    return (value, sequence, subscription)
  }

  /// The status now, then each change.
  func statuses() -> AsyncStream<Bool> {
    let (stream, continuation) = AsyncStream.makeStream(of: Bool.self, bufferingPolicy: .unbounded)
    let id = state.withLock { state in
      let id = state.nextID
      state.nextID += 1
      continuation.yield(state.value)
      state.continuations[id] = continuation
      return id
    }
    continuation.onTermination = { [weak self] _ in
      // Released after the lock: the continuation is the stream's.
      self?.state.withLockReleasingAfter { (result: (), released: $0.continuations.removeValue(forKey: id)) }
    }
    return stream
  }
}
