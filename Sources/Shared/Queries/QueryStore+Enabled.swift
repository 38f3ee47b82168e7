extension QueryStore {
  /// Turns automatic fetching of the query named `key` on or off, as ``QueryOptions/isEnabled`` does when the query
  /// is made.
  ///
  /// ```swift
  /// store.setEnabled(false, for: ["search", text])  // until the user confirms the search
  /// store.setEnabled(true, for: ["search", text])  // held and never fetched: fetches now
  /// ```
  ///
  /// Turned off, the query no longer fetches when a holder appears, when it is invalidated, on a trigger of
  /// ``refetchStale(on:matching:)``, nor again after a fetch an invalidation overtook; a fetch under way runs to its
  /// end, and explicit requests (``refetch(_:)-(QueryKey)``, ``fetch(_:servingStale:)->Value``, ``prefetch(_:)-(Query<OperationState<Value>>)``, page fetches) still
  /// fetch. Turned on, a held query whose value is missing, stale or invalidated fetches at once (joining a fetch
  /// under way); one nobody holds fetches when its next holder appears.
  ///
  /// The setting lasts as long as the store keeps the query: once it is collected, the next query made for the key
  /// starts from its own ``QueryOptions/isEnabled``.
  ///
  /// - Parameters:
  ///   - isEnabled: Whether the query fetches by itself.
  ///   - key: The query's name.
  /// - Returns: Whether the store keeps such a query; otherwise nothing changed.
  @discardableResult
  public func setEnabled(_ isEnabled: Bool, for key: QueryKey) -> Bool {
    guard let stopwatch = recordStopwatch(named: key) else { return false }
    // The clock is the caller's code: read outside the lock.
    let now = stopwatch.elapsed()
    return setEnabled(isEnabled, key: key, stopwatch: stopwatch, now: now)
  }
}

extension Shared where Value: OperationTrackable {
  /// Turns automatic fetching of this query on or off; the same as ``QueryStore/setEnabled(_:for:)`` with its key.
  ///
  /// ```swift
  /// $results.setEnabled(!searchText.isEmpty)
  /// ```
  ///
  /// Turned on, the query fetches at once if its value is missing, stale or invalidated.
  ///
  /// - Parameter isEnabled: Whether the query fetches by itself when held, stale or invalidated.
  /// - Returns: Whether this value is a query (other values are left alone).
  @discardableResult
  public func setEnabled(_ isEnabled: Bool) -> Bool {
    guard let (store, key, _) = root.attachment(QueryLink.self, make: QueryLink.init).target(as: Value.self) else {
      return false
    }
    return store.setEnabled(isEnabled, for: key)
  }
}
