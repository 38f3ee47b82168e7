import Synchronization

/// Lets one task at a time use a resource; the others wait their turn in order, without blocking a thread.
final class AsyncSemaphore: Sendable {
  private struct State {
    var taken = false
    var waiters: [CheckedContinuation<Void, Never>] = []
  }

  private let state = Mutex(State())

  /// Waits until the resource is free and takes it.
  func wait() async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let resumeNow = state.withLock { state -> Bool in
        guard state.taken else {
          state.taken = true
          return true
        }
        state.waiters.append(continuation)
        return false
      }
      if resumeNow { continuation.resume() }
    }
  }

  /// Gives the resource to the next waiter, or frees it.
  func signal() {
    let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
      guard !state.waiters.isEmpty else {
        state.taken = false
        return nil
      }
      return state.waiters.removeFirst()
    }
    next?.resume()
  }
}
