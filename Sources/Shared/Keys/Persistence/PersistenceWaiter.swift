import Synchronization

/// A caller of `save()` or `load()` waiting for the store: resumed once, either by the save or load it waits for,
/// or by its own cancellation, whichever comes first.
///
/// The machine keeps waiters until the store answers, which may be never (a request that hangs); a cancelled caller
/// must not wait for that. Resuming is idempotent, so the machine's later resume of a cancelled waiter does nothing.
final class PersistenceWaiter: Sendable {
  private enum State {
    /// Not resumed yet; the continuation once the caller suspended.
    case waiting(UnsafeContinuation<(any Error)?, Never>?)
    /// Resumed before the caller suspended, with this error (`nil`: success).
    case resolved((any Error)?)
    case resumed
  }

  private let state = Lock(State.waiting(nil))

  /// Waits for `resume(returning:)`; `register` hands this waiter to the machine once the caller is suspended.
  /// A cancelled caller stops waiting at once with `CancellationError`.
  static func wait(register: (PersistenceWaiter) -> Void) async -> (any Error)? {
    let waiter = PersistenceWaiter()
    return await withTaskCancellationHandler {
      await withUnsafeContinuation { continuation in
        waiter.suspended(continuation)
        register(waiter)
      }
    } onCancel: {
      waiter.resume(returning: CancellationError())
    }
  }

  private func suspended(_ continuation: UnsafeContinuation<(any Error)?, Never>) {
    let resolved = state.withLock { state -> (any Error)?? in
      if case .resolved(let error) = state {
        state = .resumed
        return .some(error)
      }
      state = .waiting(continuation)
      return nil
    }
    if let resolved { continuation.resume(returning: resolved) }
  }

  /// Resumes the caller with `error` (`nil`: success); only the first call has an effect.
  func resume(returning error: (any Error)?) {
    let continuation = state.withLock { state -> UnsafeContinuation<(any Error)?, Never>? in
      switch state {
      case .waiting(let continuation?):
        state = .resumed
        return continuation
      case .waiting(nil):
        state = .resolved(error)
        return nil
      case .resolved, .resumed:
        return nil
      }
    }
    continuation?.resume(returning: error)
  }
}
