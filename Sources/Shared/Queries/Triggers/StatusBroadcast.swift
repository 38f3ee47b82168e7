import Reactive

/// A yes-or-no status and the iterations that follow it: what ``ManualOnlineStatus``, ``ManualFocus`` and the
/// platform sources share.
///
/// Each iteration gets the status it started with, then every change, in order: a change is yielded under the lock
/// (yielding runs no code of the iteration's; it resumes it later), so two changes made at once reach every
/// iteration in the order they were made.
final class StatusBroadcast: Sendable {
  private struct State: ~Copyable {
    var value: Bool
    var nextID = 0
    var continuations: [Int: AsyncStream<Bool>.Continuation] = [:]
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

  /// Sets the status; iterations hear of it only if it changed.
  func set(_ value: Bool) {
    state.withLock { state in
      guard state.value != value else { return }
      state.value = value
      for continuation in state.continuations.values { continuation.yield(value) }
    }
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
      let removed = self?.state.withLock { $0.continuations.removeValue(forKey: id) }
      withExtendedLifetime(removed) {}
    }
    return stream
  }
}
