extension SharedInspector {
  /// Acts on the query named `key`, as a devtools panel does.
  ///
  /// ```swift
  /// let inspector = SharedRegistry.current.inspector
  /// inspector.perform(.forceError(message: "The server is down"), on: ["todos"])
  /// // … look at how the screen shows it …
  /// inspector.perform(.restore, on: ["todos"])
  /// ```
  ///
  /// ``InspectorAction/forceLoading`` and ``InspectorAction/forceError(message:)`` keep the state they replace (the
  /// first one, when forced twice in a row) for ``InspectorAction/restore``; a query that sleeps (nobody used it at
  /// the last garbage check) cannot be forced. A fetch that ends after a force writes its result as usual and ends the
  /// forced state: restoring then changes nothing and returns `false`, and a force after that keeps the fetched
  /// state, so restoring never goes back past it.
  ///
  /// - Parameters:
  ///   - action: What to do.
  ///   - key: The query's key.
  /// - Returns: Whether the store had the query (for ``InspectorAction/restore``: whether a forced state was put
  ///   back; for ``InspectorAction/refetch``: whether a fetch started or was joined).
  @discardableResult
  public func perform(_ action: InspectorAction, on key: QueryKey) -> Bool {
    guard let queries = registry?.existingQueries else { return false }
    let id = InspectedKey.id(kind: .query, name: key.description)
    switch action {
    case .refetch:
      return queries.refetch(key)
    case .invalidate:
      return queries.invalidate(.exactly(key)) > 0
    case .reset:
      forget(key)
      return queries.reset(.exactly(key)) > 0
    case .remove:
      forget(key)
      return queries.remove(.exactly(key)) > 0
    case .forceLoading, .forceError:
      guard let forced = queries.force(action, key: key) else { return false }
      keepForced(forced, for: key)
      publish(id, .forced(action))
      return true
    case .restore:
      guard let forced = forget(key), queries.restore(forced, key: key) else { return false }
      publish(id, .restored)
      return true
    }
  }

  /// Acts on the query whose ``InspectedKey/id`` is `id`, as a web inspector names it.
  ///
  /// ```swift
  /// SharedRegistry.current.inspector.perform(.invalidate, onKeyWithID: #"query:["todos"]"#)
  /// ```
  ///
  /// - Parameters:
  ///   - action: What to do.
  ///   - id: The query's identity in an inspection (`query:` and its key).
  /// - Returns: Whether a query of the store has that identity and the action applied (see ``perform(_:on:)``).
  @discardableResult
  public func perform(_ action: InspectorAction, onKeyWithID id: String) -> Bool {
    guard id.hasPrefix("\(InspectedKey.Kind.query.rawValue):"), let queries = registry?.existingQueries else {
      return false
    }
    let key = queries.inspectedKeys().first {
      InspectedKey.id(kind: .query, name: $0.description) == id
    }
    guard let key else { return false }
    return perform(action, on: key)
  }
}
