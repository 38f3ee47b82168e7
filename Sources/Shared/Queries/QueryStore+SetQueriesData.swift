extension QueryStore {
  /// Changes the state of every cached query `filter` reaches, as ``update(_:as:_:)`` changes one: TanStack Query's
  /// `setQueriesData`.
  ///
  /// ```swift
  /// let store = SharedRegistry.current.queries
  /// let report = store.setQueriesData(.prefix(["posts"]), as: OperationState<Post>.self) { key, post in
  ///   post.value?.title += " (edited)"
  /// }
  /// print("edited \(report.count) posts; skipped \(report.mismatched)")
  /// ```
  ///
  /// Each query is written as ``update(_:as:_:)`` writes one: in place, through its holders' lock (every holder
  /// hears the change once; the replaced value is released after the lock), as a use of the query, and as an edit
  /// that does not count as fetched (the query keeps its age, its status and its staleness; a fetch under way still
  /// writes its value when it ends). A query under an optimistic change is written in its confirmed value, as any
  /// write is, and shows the change on top.
  ///
  /// A query the filter reaches whose state type is not `type` (a ``PaginatedState`` under a prefix of
  /// ``OperationState`` queries, say) is not written: its key is in the report's
  /// ``QueryUpdateReport/mismatched``, never skipped without a word. A query removed or made again while the
  /// filter's predicates run is left alone and in neither list.
  ///
  /// `body` is your code: it runs after the store's lock, once per query, under that query's value lock as a
  /// `withLock` body does. The filter's predicates run before it, outside every lock.
  ///
  /// - Parameters:
  ///   - filter: Which queries: a prefix or an exact key, and optionally their type, staleness, fetch status and
  ///     predicates.
  ///   - type: The queries' state type.
  ///   - body: Changes one query's state, given its key.
  /// - Returns: The keys written, and those skipped for another state type.
  @discardableResult
  public func setQueriesData<State: OperationTrackable>(
    _ filter: QueryFilter,
    as type: State.Type,
    _ body: (QueryKey, inout State) -> Void
  ) -> QueryUpdateReport {
    let accepted = acceptedCandidates(of: filter)
    var report = QueryUpdateReport()
    let (written, mismatched) = state.withLock { state in
      var written: [(key: QueryKey, shared: Shared<State>)] = []
      var mismatched: [QueryKey] = []
      for candidate in accepted {
        guard let found = state.record(named: candidate.key), found.stopwatch.isSame(as: candidate.stopwatch)
        else { continue }
        guard let record = found as? QueryRecord<State> else {
          mismatched.append(candidate.key)
          continue
        }
        record.touch()
        use(record, in: &state)
        written.append((record.key, record.shared))
      }
      return (written, mismatched)
    }
    report.mismatched = mismatched
    for (key, shared) in written {
      shared.withLockReleasingReplaced { value in body(key, &value) }
      persistedValueChanged(key)
      report.updated.append(key)
    }
    return report
  }
}
