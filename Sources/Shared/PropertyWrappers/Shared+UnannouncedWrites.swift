extension Shared {
  /// `withLock` for a change the library makes to a user's value (a success applied, a reset, an error stored).
  ///
  /// Whatever the change replaces is released after the lock: a value's `deinit` may read this same shared value,
  /// and releasing it under the lock would deadlock on it. The copy of the old value that makes this possible is a
  /// retain per reference it holds; a collection the change mutates in place is copied once.
  ///
  /// A query's value is written as a holder's `withLock` writes it (to its confirmed value while optimistic changes
  /// are pending), but not announced to its store: the store's own writes tell it what it needs.
  @inlinable
  func withLockReleasingReplaced<Result>(_ body: (inout Value) -> Result) -> Result {
    let (result, previous) = withLockUnannounced { value -> (Result, Value) in
      let previous = value
      return (body(&value), previous)
    }
    withExtendedLifetime(previous) {}  // The old value goes here, after the lock.
    return result
  }

  /// `withLock` for a change the library makes, which the value releases itself: a query's value is written to its
  /// confirmed value while optimistic changes are pending, and its store is not told.
  @inlinable
  func withLockUnannounced<Result>(_ body: (inout Value) -> Result) -> Result {
    if case .root(let root) = reference, root.isQueryValue {
      return root.withLockConfirming(announcing: false, body)
    }
    return withLock(body)
  }
}
