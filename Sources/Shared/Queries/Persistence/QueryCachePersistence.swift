/// How a ``QueryStore`` persists its query cache: where, which queries, for how long, and how often it writes.
///
/// ```swift
/// let persistence = QueryCachePersistence(
///   persister: .file(cacheURL),
///   version: "2",                       // a new version of the app that changes its values drops the old cache
///   maxAge: .seconds(7 * 24 * 3_600),   // values older than a week are not restored
///   filter: .prefix(["posts"]))         // only the posts
/// ```
///
/// Pass it to ``QueryStore/persistCache(_:)``.
public struct QueryCachePersistence: Sendable {
  /// Where the cache is kept.
  public var persister: any QueryCachePersister
  /// The version of the cache: a stored cache of another version is dropped as a whole when it is restored. Change
  /// it when a new version of the app changes the types of persisted values.
  public var version: String
  /// How old a value may be and still be restored (its ``PersistedQueryCache/Entry/updatedAt``, on the wall
  /// clock); older values are dropped, at a restore and whenever the whole cache is written. One day by default.
  public var maxAge: Duration
  /// Which queries are persisted: a key prefix, an exact key, and optionally a predicate on the key. Every query
  /// by default. Only queries whose state is an ``OperationState`` of a `Codable` value, or a ``PaginatedState``
  /// whose page identifiers and pages are `Codable` (persisted with its pages in order, each with its identifier),
  /// are persisted; the others are left out whatever the filter says.
  ///
  /// The predicate is your code: it runs outside every lock of the library, when a query's value changes and at a
  /// restore. The filter chooses keys: one with query conditions (``QueryFilter/hasQueryConditions``: a type,
  /// staleness, fetch status or query predicate, which a persisted value has no holder or fetch to answer) is a
  /// programming error, stopped with a precondition failure.
  public var filter: QueryFilter
  /// How long a change waits before it is written, so that the changes made meanwhile are written with it: one
  /// write per interval at most while changes keep coming. One second by default.
  public var throttle: Duration
  /// The clock that measures ``throttle``; pass a ``ManualClock`` in tests.
  public var clock: any Clock<Duration>
  /// Called with every problem as it happens (a cache dropped, a value left out, a failed write), outside every
  /// lock of the library; `nil` by default.
  public var onProblem: (@Sendable (QueryCacheProblem) -> Void)?

  /// How to persist the cache with `persister`.
  ///
  /// ```swift
  /// let persistence = QueryCachePersistence(persister: .file(cacheURL), throttle: .seconds(2))
  /// ```
  ///
  /// - Parameters:
  ///   - persister: Where the cache is kept: ``QueryCachePersister/file(_:)``, or a persister of your own.
  ///   - version: The version of the cache; the empty string by default.
  ///   - maxAge: How old a value may be and still be restored; one day by default.
  ///   - filter: Which queries are persisted; all of them by default.
  ///   - throttle: How long a change waits before it is written; one second by default.
  ///   - clock: The clock that measures `throttle`.
  ///   - onProblem: Called with every problem as it happens.
  public init(
    persister: any QueryCachePersister,
    version: String = "",
    maxAge: Duration = .seconds(86_400),
    filter: QueryFilter = .all,
    throttle: Duration = .seconds(1),
    clock: any Clock<Duration> = ContinuousClock(),
    onProblem: (@Sendable (QueryCacheProblem) -> Void)? = nil
  ) {
    precondition(maxAge >= .zero, "A query cache's maxAge cannot be negative: \(maxAge)")
    precondition(throttle >= .zero, "A query cache's throttle cannot be negative: \(throttle)")
    precondition(
      !filter.hasQueryConditions,
      "A query cache's filter chooses keys: a type, staleness, fetch status or query predicate cannot apply to it")
    self.persister = persister
    self.version = version
    self.maxAge = maxAge
    self.filter = filter
    self.throttle = throttle
    self.clock = clock
    self.onProblem = onProblem
  }
}

extension QueryFilter {
  /// Whether `key` is one the filter reaches: its key part, then its predicate (the app's code: call outside every
  /// lock).
  func accepts(_ key: QueryKey) -> Bool {
    guard isExact ? key == self.key : key.hasPrefix(self.key) else { return false }
    return predicate?(key) ?? true
  }
}
