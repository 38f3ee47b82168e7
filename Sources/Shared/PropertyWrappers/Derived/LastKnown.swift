import Reactive
import Synchronization

/// The last non-`nil` value of a shared optional.
final class LastKnown<Value: Sendable>: Sendable {
  private let storage: Lock<Value>
  private let token = Lock<ObserverToken?>(nil)

  init(_ value: Value) {
    storage = Lock(value)
  }

  /// Keeps the observer that feeds this value registered for as long as this object lives.
  func follow(_ observer: ObserverToken) {
    token.withLock { $0 = observer }
  }

  var value: Value { storage.withLock { $0 } }

  func store(_ value: Value) {
    storage.withLockReleasingAfter { stored in
      defer { stored = value }
      return (result: (), released: stored)
    }
  }
}
