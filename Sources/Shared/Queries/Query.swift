/// The key of a query: a ``QueryKey`` and the fetcher that produces its value.
///
/// ```swift
/// @Shared(.query(["posts", 42]) { try await api.post(42) }) var post = OperationState<Post>()
/// ```
///
/// Every holder of the same query key shares one ``OperationState``. The first holder fetches; a holder that appears
/// while a fetch runs joins it; a holder that appears when the value is stale (see ``QueryOptions/staleTime``) shows
/// the stale value and refetches. Invalidate with ``QueryStore/invalidate(matching:)``.
public struct Query<State: OperationTrackable>: SharedReaderKey, MemoryOnlyKey {
  /// The shared value: the query's state.
  public typealias Value = State

  /// The query's name.
  public let key: QueryKey
  /// How the query caches, refetches and retries.
  public let options: QueryOptions
  let fetch: @Sendable (QueryYield<State>) async throws -> State.Success
  /// Where the fetcher is written, to tell two fetchers for one key apart.
  let fetcherLocation: CodeLocation
  /// A single or a paginated query, with what a paginated one needs to fetch its pages.
  let kind: QueryKind<State>

  init(
    key: QueryKey,
    options: QueryOptions,
    fetch: @escaping @Sendable (QueryYield<State>) async throws -> State.Success,
    fetcherLocation: CodeLocation,
    kind: QueryKind<State> = .single
  ) {
    self.key = key
    self.options = options
    self.fetch = fetch
    self.fetcherLocation = fetcherLocation
    self.kind = kind
  }

  /// The registry identity: the query key.
  public var id: QueryKey { key }
  /// A query's value is freed only after ``QueryOptions/gcTime`` without holders.
  public var lifetime: SharedKeyLifetime { .whileHeld }

  /// Registers the holder with the query store, which fetches if the value is missing, stale or invalidated.
  func holderDidAppear(_ shared: Shared<State>, in registry: SharedRegistry) {
    registry.queries.demand(self, holder: shared, in: registry)
  }
}

extension Query: CustomStringConvertible {
  /// The key as it reads in code.
  public var description: String { ".query(\(key))" }
}

/// Lets a fetcher show values before its final one, such as a cached value and then a live one.
///
/// ```swift
/// @Shared(.query(["feed"]) { partial in
///   if let cached = cache.feed { partial.yield(cached) }
///   return try await api.feed()
/// }) var feed = OperationState<[Item]>()
/// ```
///
/// Each yielded value is stored at once (the status stays ``OperationStatus/pending``); the fetcher's return
/// value is the final one.
public struct QueryYield<State: OperationTrackable>: Sendable {
  let shared: Shared<State>

  /// Shows `value` now, while the fetch goes on.
  ///
  /// - Parameter value: An intermediate value.
  public func yield(_ value: State.Success) {
    // The value it replaces is released after the lock: its `deinit` may read this same value.
    shared.withLockReleasingReplaced { $0.applySuccess(value) }
  }
}

extension SharedReaderKey {
  /// A query named `key` whose value `fetch` produces.
  ///
  /// ```swift
  /// @Shared(.query(["posts", 42]) { try await api.post(42) }) var post = OperationState<Post>()
  /// ```
  ///
  /// - Parameters:
  ///   - key: The query's name.
  ///   - options: Caching, refetching and retrying.
  ///   - fileID: Where the fetcher is written (filled in for you).
  ///   - line: The line of the fetcher (filled in for you).
  ///   - fetch: Produces the value.
  /// - Returns: The query key.
  public static func query<State: OperationTrackable>(
    _ key: QueryKey,
    options: QueryOptions = QueryOptions(),
    fileID: String = #fileID,
    line: Int = #line,
    _ fetch: @escaping @Sendable () async throws -> State.Success
  ) -> Self where Self == Query<State> {
    Query(
      key: key, options: options, fetch: { _ in try await fetch() },
      fetcherLocation: CodeLocation(fileID: fileID, line: line))
  }

  /// A query named `key` whose fetcher can show intermediate values before its final one.
  ///
  /// - Parameters:
  ///   - key: The query's name.
  ///   - options: Caching, refetching and retrying.
  ///   - fileID: Where the fetcher is written (filled in for you).
  ///   - line: The line of the fetcher (filled in for you).
  ///   - fetch: Produces the value; may yield intermediate ones first.
  /// - Returns: The query key.
  public static func query<State: OperationTrackable>(
    _ key: QueryKey,
    options: QueryOptions = QueryOptions(),
    fileID: String = #fileID,
    line: Int = #line,
    yielding fetch: @escaping @Sendable (QueryYield<State>) async throws -> State.Success
  ) -> Self where Self == Query<State> {
    Query(key: key, options: options, fetch: fetch, fetcherLocation: CodeLocation(fileID: fileID, line: line))
  }
}
