/// What a filter's query conditions need of a record, read under the store's lock; the value is read, and the clock
/// asked, after it (``candidate()``).
struct QueryFilterParts: Sendable {
  let key: QueryKey
  let stopwatch: Stopwatch
  let isHeld: Bool
  let isEnabled: Bool
  /// When the value was fetched (or set), with no invalidation since.
  let fetchedAt: Duration?
  let staleTime: Duration
  /// Reads the value's tracking: the box's current value, or the value a sleeping query keeps.
  let operation: @Sendable () -> OperationTracking

  /// What the filter's conditions see: reads the value and the clock (the program's code: after the lock).
  func candidate() -> QueryFilter.Candidate {
    let isStale = fetchedAt.map { stopwatch.elapsed() - $0 >= staleTime } ?? true
    return QueryFilter.Candidate(
      key: key, operation: operation(), isStale: isStale, isActive: isHeld, isEnabled: isEnabled)
  }
}

extension QueryRecord {
  func filterParts() -> QueryFilterParts {
    // Asked before the closure below holds the box, which would count as a holder.
    let isHeld = self.isHeld
    let operation: @Sendable () -> OperationTracking
    if let root = keptValue.root {
      operation = { root.box.versionedValue.value.operation }
    } else {
      let kept = keptValue.sleeping?.operation ?? OperationTracking()
      operation = { kept }
    }
    return QueryFilterParts(
      key: key, stopwatch: stopwatch, isHeld: isHeld, isEnabled: machine.isEnabled, fetchedAt: fetchedAt,
      staleTime: staleTime, operation: operation)
  }
}
