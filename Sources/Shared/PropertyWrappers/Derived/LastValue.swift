import Synchronization

/// The last value an observer was called with, to skip repeats.
///
/// Observers of one value are never called concurrently, so the comparison, which runs the value's `==` and so
/// runs outside the lock, cannot race with another call.
final class LastValue<Value: Sendable>: Sendable {
  private let storage: Lock<Value?>

  init(_ initial: Value?) {
    storage = Lock(initial)
  }

  /// Stores `value` and returns `true`, unless it equals the stored one.
  func replace(with value: Value, unlessEqual isEqual: (Value, Value) -> Bool) -> Bool {
    if let previous = storage.withLock({ $0 }), isEqual(previous, value) { return false }
    let replaced = storage.withLock { stored in
      defer { stored = value }
      return stored
    }
    withExtendedLifetime(replaced) {}  // Released after the lock: it is the app's value.
    return true
  }
}
