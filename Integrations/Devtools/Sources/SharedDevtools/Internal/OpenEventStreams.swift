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

  /// Registers `continuation` until its stream ends; false when the server is stopping (the caller finishes it).
  func register(_ continuation: Continuation) -> Int? {
    state.withLock { state in
      guard !state.isClosed else { return nil }
      let id = state.nextID
      state.nextID += 1
      state.continuations[id] = continuation
      return id
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
