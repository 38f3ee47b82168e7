/// Which cached queries a store-wide call reaches: every key under a prefix, one exact key, and optionally only the
/// queries that are active or inactive, stale or fresh, fetching, paused or idle, or that a test of your own accepts.
///
/// ```swift
/// let store = SharedRegistry.current.queries
/// store.invalidate(.prefix(["posts"]))                         // ["posts"], ["posts", 42], ["posts", 42, "comments"]
/// store.invalidate(.exactly(["posts", 42]))                    // that query only
/// store.remove(.prefix(["posts"]).satisfying { $0.parts.count == 2 })  // ["posts", 42], not its comments
/// store.refetch(.prefix(["posts"]).only(.active).stale())      // the held posts whose value is stale
/// store.reset(.all.matching { query in query.status == .error })  // every query that shows an error
/// ```
///
/// It is TanStack Query's query filter, in one type:
///
/// | TanStack Query | here |
/// |---|---|
/// | `queryKey`, `exact` | ``key``, ``isExact`` (``prefix(_:)``, ``exactly(_:)``, ``all``) |
/// | `type: 'active' \| 'inactive' \| 'all'` | ``type`` (``only(_:)``): active is held by a holder, an iteration, an observer or a fetch under way |
/// | `stale` | ``stale`` (``stale(_:)``) |
/// | `fetchStatus: 'fetching' \| 'paused' \| 'idle'` | ``fetchStatus`` (``fetchStatus(_:)``) |
/// | `predicate: (query) => boolean` | ``queryPredicate`` (``matching(_:)``), over a ``Candidate``; ``predicate`` (``satisfying(_:)``) over the key alone |
///
/// ``QueryStore/invalidate(_:refetching:)``, ``QueryStore/refetch(_:)-(QueryFilter)``, ``QueryStore/cancel(_:)``,
/// ``QueryStore/reset(_:)``, ``QueryStore/remove(_:)``, ``QueryStore/setQueriesData(_:as:_:)`` and
/// ``QueryStore/fetchingCount(_:)`` take one. The key part is matched in the store's key tree, so a filter visits
/// only the queries under its key, however many others there are. Every other test is applied after the store's
/// lock, to what the query showed when the store listed it; your predicates run there, on the calling thread, and a
/// query that is removed or made again meanwhile is left alone.
///
/// The persisted query cache (``QueryCachePersistence/filter``, ``QueryStore/dehydrate(_:version:)``) chooses
/// keys: it takes a filter of key conditions only (``hasQueryConditions`` is `false`).
public struct QueryFilter: Sendable {
  /// The key, or the prefix of the keys, that the filter reaches.
  public var key: QueryKey
  /// Whether only ``key`` itself matches (`true`), or every key that starts with it (`false`).
  public var isExact: Bool
  /// A further test on each key that ``key`` reaches, or `nil` for none.
  ///
  /// It is your code: it runs outside the store's lock, on the caller's thread, once per candidate query. A query
  /// that is removed or made again while it runs is left alone.
  public var predicate: (@Sendable (QueryKey) -> Bool)?
  /// Whether only active queries (held by a holder, an iteration, an observer or a fetch under way), only inactive
  /// ones, or both; ``QueryType/all`` by default.
  public var type: QueryType = .all
  /// Only the queries whose value is stale (`true`) or fresh (`false`); `nil`, the default, for both. A query is
  /// stale when it has no value fetched or set, was invalidated, or its value is older than its
  /// ``QueryOptions/staleTime`` on its clock.
  public var stale: Bool?
  /// Only the queries fetching, paused (a fetch waits for the network) or idle; `nil`, the default, for all.
  public var fetchStatus: FetchStatus?
  /// A further test on each query that the other conditions accept, given what it shows; `nil` for none.
  ///
  /// It is your code: it runs outside the store's lock, on the caller's thread, once per candidate query. A query
  /// that is removed or made again while it runs is left alone.
  public var queryPredicate: (@Sendable (Candidate) -> Bool)?

  /// A filter of `key` (an exact key when `isExact`, otherwise a prefix), with an optional further test.
  ///
  /// ```swift
  /// let filter = QueryFilter(key: ["posts"], isExact: false) { key in key.parts.count == 2 }
  /// ```
  ///
  /// - Parameters:
  ///   - key: The key or key prefix.
  ///   - isExact: Whether only `key` itself matches.
  ///   - predicate: A further test on each key reached, run outside the store's lock.
  public init(key: QueryKey, isExact: Bool, predicate: (@Sendable (QueryKey) -> Bool)? = nil) {
    self.key = key
    self.isExact = isExact
    self.predicate = predicate
  }

  /// Every query whose key starts with `prefix`; `[]` reaches every query.
  ///
  /// ```swift
  /// store.invalidate(.prefix(["posts"]))
  /// ```
  ///
  /// - Parameter prefix: The key prefix; `["posts"]` reaches `["posts", 42]` and `["posts", 42, "comments"]`.
  /// - Returns: The filter.
  public static func prefix(_ prefix: QueryKey) -> Self {
    Self(key: prefix, isExact: false)
  }

  /// The query named `key` and no other.
  ///
  /// ```swift
  /// store.invalidate(.exactly(["posts", 42]))
  /// ```
  ///
  /// - Parameter key: The query's key.
  /// - Returns: The filter.
  public static func exactly(_ key: QueryKey) -> Self {
    Self(key: key, isExact: true)
  }

  /// Every query in the store.
  ///
  /// ```swift
  /// store.cancel(.all)
  /// ```
  public static var all: Self { .prefix([]) }

  /// This filter, narrowed to the keys that `predicate` accepts as well.
  ///
  /// ```swift
  /// store.invalidate(.prefix(["posts"]).satisfying { key in key.parts.last as? Int == 42 })
  /// ```
  ///
  /// The predicate is your code: it runs outside the store's lock, once per query this filter's key reaches. It
  /// replaces no test of its own: an earlier predicate must hold too.
  ///
  /// - Parameter predicate: A test on a query's key.
  /// - Returns: The narrowed filter.
  public func satisfying(_ predicate: @escaping @Sendable (QueryKey) -> Bool) -> Self {
    var narrowed = self
    if let earlier = self.predicate {
      narrowed.predicate = { key in earlier(key) && predicate(key) }
    } else {
      narrowed.predicate = predicate
    }
    return narrowed
  }

  /// This filter, narrowed to the active or the inactive queries.
  ///
  /// ```swift
  /// store.invalidate(.prefix(["posts"]).only(.inactive), refetching: .none)  // what no screen shows
  /// ```
  ///
  /// - Parameter type: ``QueryType/active`` for the queries something holds, ``QueryType/inactive`` for the others.
  /// - Returns: The narrowed filter.
  public func only(_ type: QueryType) -> Self {
    var narrowed = self
    narrowed.type = type
    return narrowed
  }

  /// This filter, narrowed to the stale queries (or, with `false`, to the fresh ones).
  ///
  /// ```swift
  /// store.refetch(.prefix(["posts"]).stale())
  /// ```
  ///
  /// - Parameter isStale: Whether the queries reached are the stale ones (`true`, the default) or the fresh ones.
  /// - Returns: The narrowed filter.
  public func stale(_ isStale: Bool = true) -> Self {
    var narrowed = self
    narrowed.stale = isStale
    return narrowed
  }

  /// This filter, narrowed to the queries in `status`.
  ///
  /// ```swift
  /// store.cancel(.all.fetchStatus(.paused))  // give up the fetches waiting for the network
  /// ```
  ///
  /// - Parameter status: Fetching, paused or idle.
  /// - Returns: The narrowed filter.
  public func fetchStatus(_ status: FetchStatus) -> Self {
    var narrowed = self
    narrowed.fetchStatus = status
    return narrowed
  }

  /// This filter, narrowed to the queries that `predicate` accepts, given what each shows.
  ///
  /// ```swift
  /// store.invalidate(.prefix(["posts"]).matching { query in query.status == .error && query.isActive })
  /// ```
  ///
  /// The predicate is your code: it runs outside the store's lock, once per query that the filter's other
  /// conditions accept. It replaces no test of its own: an earlier one must hold too.
  ///
  /// - Parameter predicate: A test on what a query shows.
  /// - Returns: The narrowed filter.
  public func matching(_ predicate: @escaping @Sendable (Candidate) -> Bool) -> Self {
    var narrowed = self
    if let earlier = queryPredicate {
      narrowed.queryPredicate = { query in earlier(query) && predicate(query) }
    } else {
      narrowed.queryPredicate = predicate
    }
    return narrowed
  }

  /// Whether the filter tests more than keys: a ``type``, ``stale``, ``fetchStatus`` or ``queryPredicate``.
  ///
  /// ```swift
  /// assert(!QueryFilter.prefix(["posts"]).satisfying { $0.parts.count == 2 }.hasQueryConditions)
  /// ```
  public var hasQueryConditions: Bool {
    type != .all || stale != nil || fetchStatus != nil || queryPredicate != nil
  }

  /// Whether `candidate` passes the conditions other than the key: the type, staleness, fetch status, then the
  /// query predicate (the app's code: call outside every lock).
  func accepts(_ candidate: Candidate) -> Bool {
    switch type {
    case .all: break
    case .active: guard candidate.isActive else { return false }
    case .inactive: guard !candidate.isActive else { return false }
    }
    if let stale, candidate.isStale != stale { return false }
    if let fetchStatus, candidate.fetchStatus != fetchStatus { return false }
    return queryPredicate?(candidate) ?? true
  }
}
