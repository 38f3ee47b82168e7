extension QueryFilter {
  /// Which queries a filter reaches by whether something holds them: TanStack Query's `type`.
  ///
  /// ```swift
  /// store.invalidate(.prefix(["posts"]).only(.active))
  /// ```
  public enum QueryType: Sendable, Hashable {
    /// Every query, held or not.
    case all
    /// The queries something holds: a holder, an iteration, an observer, or a fetch under way (a prefetch's or a
    /// caller's too: unlike TanStack Query, where only observers make a query active).
    case active
    /// The queries nothing holds: kept in the store until their ``QueryOptions/gcTime`` ends.
    case inactive
  }

  /// Whether a query is fetching, waits for the network to fetch, or neither: TanStack Query's `fetchStatus`.
  ///
  /// ```swift
  /// let paused = store.fetchingCount(.all.fetchStatus(.paused))
  /// ```
  ///
  /// It is read from the query's ``OperationTracking``: ``fetching`` while ``OperationTracking/isFetching``,
  /// ``paused`` while ``OperationTracking/isPaused``.
  public enum FetchStatus: Sendable, Hashable {
    /// A fetch is under way: a first load, a refetch, a page fetch, a retry or its wait.
    case fetching
    /// A fetch waits for the network (see ``NetworkMode``).
    case paused
    /// No fetch is under way or waiting.
    case idle

    /// The fetch status `operation` shows.
    init(_ operation: OperationTracking) {
      self = operation.isFetching ? .fetching : operation.isPaused ? .paused : .idle
    }
  }

  /// What a filter's ``QueryFilter/queryPredicate`` sees of a query: a read-only view taken when the store listed
  /// it.
  ///
  /// ```swift
  /// let failedPosts = QueryFilter.prefix(["posts"]).matching { query in
  ///   query.status == .error && !query.isActive
  /// }
  /// ```
  ///
  /// The view is taken after the store's lock: the query may have moved on by the time the verb acts on it (a
  /// fetch ended, a holder appeared). A query removed or made again meanwhile is left alone.
  public struct Candidate: Sendable {
    /// The query's key.
    public let key: QueryKey
    /// How the query's operations went: status, error, failures, and whether it fetches.
    public let operation: OperationTracking
    /// Whether the value is stale: nothing fetched or set, invalidated, or older than its staleTime.
    public let isStale: Bool
    /// Whether something holds the query's value: a holder, an iteration, an observer, or a fetch under way.
    public let isActive: Bool
    /// Whether the query fetches on its own (``QueryOptions/isEnabled``, or ``QueryStore/setEnabled(_:for:)``).
    public let isEnabled: Bool

    /// The query's status: idle, pending, success or error.
    ///
    /// ```swift
    /// let failed = QueryFilter.all.matching { $0.status == .error }
    /// ```
    public var status: OperationStatus { operation.status }

    /// Whether the query is fetching, paused or idle.
    ///
    /// ```swift
    /// let waiting = QueryFilter.all.matching { $0.fetchStatus == .paused }
    /// ```
    public var fetchStatus: FetchStatus { FetchStatus(operation) }
  }
}
