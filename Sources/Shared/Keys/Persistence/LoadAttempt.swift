import Reactive

/// One call of a key's load, behind the ``SharedLoadContinuation`` it was handed: hands the outcome to the value's
/// ``Persistence`` once, whether it came before the call returned, after it, or never (the last copy of the
/// continuation went away unresumed).
///
/// Every decision is made by a ``LoadAttemptStateMachine`` under this object's lock; the persistence is called after
/// the lock is released. It refers to the persistence weakly: an outcome that arrives after every holder is gone is
/// dropped.
final class LoadAttempt<Value: Sendable>: Sendable {
  typealias Outcome = Result<Value?, any Error>

  private let state = Lock(LoadAttemptStateMachine<Outcome>())
  private let context: SharedKeyContext<Value>

  init(context: SharedKeyContext<Value>) {
    self.context = context
  }

  deinit {
    guard state.withLock({ $0.dropped() }), let persistence = context.persistence else { return }
    persistence.loadResumed(.failure(SharedLoadError.notResumed(key: String(describing: persistence.key))))
  }

  /// The key resumed the continuation.
  func resume(_ outcome: Outcome) {
    let action = state.withLock { $0.resumed(outcome) }
    if case .deliver(let outcome) = action { context.persistence?.loadResumed(outcome) }
  }

  /// The key's load returned: the outcome if it was resumed during the call, `nil` if it comes later.
  func loadReturned() -> Outcome? {
    switch state.withLock({ $0.loadReturned() }) {
    case .synchronous(let outcome): return outcome
    case .asynchronous: return nil
    }
  }
}
