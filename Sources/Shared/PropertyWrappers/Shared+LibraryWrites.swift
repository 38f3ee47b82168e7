extension Shared {
  /// `withLock` for a change the library makes to a user's value (a success applied, a reset, an error stored).
  ///
  /// Whatever the change replaces is released after the lock: a value's `deinit` may read this same shared value,
  /// and releasing it under the lock would deadlock on it. The copy of the old value that makes this possible is a
  /// retain per reference it holds; a collection the change mutates in place is copied once.
  @inlinable
  func withLockReleasingReplaced<Result>(_ body: (inout Value) -> Result) -> Result {
    let (result, previous) = withLock { value -> (Result, Value) in
      let previous = value
      return (body(&value), previous)
    }
    withExtendedLifetime(previous) {}  // The old value goes here, after the lock.
    return result
  }
}
