import Hummingbird
import Synchronization

/// The event streams a running server has open, so that stopping it ends each one (a server waits for its answers
/// to end before it stops, and an event stream never ends on its own).
final class OpenEventStreams: Sendable {
  typealias Continuation = AsyncStream<ByteBuffer>.Continuation

  private struct State {
    var isClosed = false
    var nextID = 0
    var continuations: [Int: Continuation] = [:]
  }

  private let state = Mutex(State())

  /// A new stream's number, for ``register(_:as:)`` and ``unregister(_:)``.
  func makeID() -> Int {
    state.withLock { state in
      defer { state.nextID += 1 }
      return state.nextID
    }
  }

  /// Registers `continuation` as `id` until its stream ends; false when the server is stopping (the caller finishes
  /// it).
  func register(_ continuation: Continuation, as id: Int) -> Bool {
    state.withLock { state in
      guard !state.isClosed else { return false }
      state.continuations[id] = continuation
      return true
    }
  }

  /// Forgets the stream `id`, which ended.
  func unregister(_ id: Int) {
    // The continuation is released after the lock: releasing it may run its termination handler.
    let removed = state.withLock { $0.continuations.removeValue(forKey: id) }
    _ = removed
  }

  /// Refuses new streams and ends every open one.
  func closeAll() {
    let open = state.withLock { state in
      state.isClosed = true
      defer { state.continuations = [:] }
      return Array(state.continuations.values)
    }
    for continuation in open { continuation.finish() }
  }
}
