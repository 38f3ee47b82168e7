/// What a write to a cached query did: ``QueryStore/update(_:as:_:)`` and an optimistic
/// ``OptimisticCache/update(_:as:_:)-(_,_,(State)->Void)`` say whether they changed anything, and why not.
///
/// ```swift
/// func rename(_ id: Int, to title: String, in store: QueryStore) {
///   switch store.update(["posts", id], as: OperationState<Post>.self, { $0.value?.title = title }) {
///   case .updated: break
///   case .notCached: print("post \(id) is not loaded: nothing to rename")
///   case .typeMismatch(let expected, let found): print("post \(id) holds \(found), not \(expected)")
///   }
/// }
/// ```
///
/// Nothing is written unless the result is ``updated``. A write to a query that is not cached is a normal outcome (a
/// detail screen never opened has nothing to change), so it is only returned. A write with a state type other than
/// the query's can never succeed, so it is also recorded in the registry's ``SharedRegistry/diagnostics`` and
/// printed to standard error once per key and pair of types, in every build, as a holder of the wrong type is.
public enum QueryUpdateResult: Sendable, Hashable {
  /// The state was changed (for an optimistic change: the change shows, or waits for its query, see
  /// ``OptimisticCache/update(_:as:_:)-(_,_,(State)->Void)``).
  case updated
  /// The store keeps no query of that key (and no persisted value waits for it): nothing was changed.
  case notCached
  /// The store keeps the query with another state type: nothing was changed. Both types are named as
  /// `String(reflecting:)` names them.
  case typeMismatch(expected: String, found: String)

  /// Whether the state was changed: the result is ``updated``.
  ///
  /// ```swift
  /// let changed = store.update(["posts", 42], as: OperationState<Post>.self) { $0.value?.title = "Edited" }.isUpdated
  /// ```
  public var isUpdated: Bool {
    if case .updated = self { return true }
    return false
  }
}
