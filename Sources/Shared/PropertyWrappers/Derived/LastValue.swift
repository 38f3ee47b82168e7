import Synchronization

/// The last value an observer was called with, to skip repeats; before the first change, how to compute the value
/// the observer started from.
///
/// Observers of one value are never called concurrently, so the comparison, which runs the value's `==` (and, at the
/// first change, the getters that compute the starting value) and so runs outside the lock, cannot race with another
/// call.
final class LastValue<Value: Sendable>: Sendable {
  private enum Stored: Sendable {
    /// Computes the value the observer started from; called by the first change.
    case start(@Sendable () -> Value)
    case value(Value)
  }

  private let storage: Lock<Stored>

  /// - Parameter start: Computes the value the observer started from, outside every lock.
  init(startingFrom start: @escaping @Sendable () -> Value) {
    storage = Lock(.start(start))
  }

  /// Stores `value` and returns `true`, unless it equals the stored one.
  func replace(with value: Value, unlessEqual isEqual: (Value, Value) -> Bool) -> Bool {
    let stored = storage.withLock { $0 }
    let previous: Value
    switch stored {
    case .value(let last): previous = last
    case .start(let start): previous = start()
    }
    let isRepeat = isEqual(previous, value)
    // A repeat of the starting value is stored too, so the start, and the parent's value it keeps, are let go.
    if isRepeat, case .value = stored { return false }
    // The value replaced holds the app's value: released after the lock.
    storage.withLockReleasingAfter { stored in
      defer { stored = .value(value) }
      return (result: (), released: stored)
    }
    return !isRepeat
  }
}
