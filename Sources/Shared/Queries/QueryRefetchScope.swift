/// Which invalidated queries fetch again at once: the held ones, all of them, or none.
///
/// ```swift
/// store.invalidate(.prefix(["posts"]), refetching: .all)   // warm the cache for screens not shown yet
/// store.invalidate(.prefix(["posts"]), refetching: .none)  // stale now, fetched by their next holder or caller
/// ```
///
/// Whatever the choice, an invalidated query's value counts as stale: the next holder, awaiting caller or
/// ``QueryStore/refetchStale(on:matching:)`` trigger fetches it.
public enum QueryRefetchScope: Sendable, Equatable {
  /// Queries with a holder, an iteration or an observer fetch now; the others when they are next needed. The
  /// default.
  case held
  /// Every invalidated query fetches now, held or not. An unheld query is kept while its fetch runs, then for its
  /// ``QueryOptions/gcTime``.
  case all
  /// No query fetches now. A fetch already under way is still followed by another when it ends, as for every
  /// invalidation, if the query is held then: the value it brings predates the invalidation.
  case none
}

/// The earlier name of ``QueryRefetchScope``, which says which invalidated queries refetch.
@available(*, deprecated, renamed: "QueryRefetchScope")
public typealias QueryRefetch = QueryRefetchScope
