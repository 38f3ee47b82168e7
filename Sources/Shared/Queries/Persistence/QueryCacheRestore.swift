/// What a restore put in the store: how many values, how many were too old, and why a stored cache was dropped.
///
/// ```swift
/// func restore(_ persistence: QueryCachePersistence) async {
///   let restore = await SharedRegistry.current.queries.persistCache(persistence)
///   if let problem = restore.problem { log("query cache: \(problem)") }
///   log("restored \(restore.restored) queries")
/// }
/// ```
public struct QueryCacheRestore: Sendable, Equatable {
  /// How many values were put in the store.
  public var restored: Int
  /// How many values were older than ``QueryCachePersistence/maxAge`` (or the `maxAge` of
  /// ``QueryStore/hydrate(_:maxAge:)``), and were dropped.
  public var expired: Int
  /// How many values the ``QueryCachePersistence/filter`` no longer chose, and were dropped.
  public var excluded: Int
  /// Why the stored cache was dropped as a whole, could not be read, or was cut short
  /// (``QueryCacheProblem/cutShort(droppedBytes:reason:)``: the writes before a torn end were restored); `nil` when
  /// it was read whole (or there was none).
  public var problem: QueryCacheProblem?

  /// A restore that put `restored` values in the store.
  ///
  /// ```swift
  /// let nothing = QueryCacheRestore(restored: 0)
  /// ```
  ///
  /// - Parameters:
  ///   - restored: How many values were put in the store.
  ///   - expired: How many were too old.
  ///   - excluded: How many the filter left out.
  ///   - problem: Why the stored cache was dropped, if it was.
  public init(restored: Int, expired: Int = 0, excluded: Int = 0, problem: QueryCacheProblem? = nil) {
    self.restored = restored
    self.expired = expired
    self.excluded = excluded
    self.problem = problem
  }
}
