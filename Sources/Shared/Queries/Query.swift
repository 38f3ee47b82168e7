/// The key of a query: a ``QueryKey`` and the fetcher that produces its value.
///
/// ```swift
/// func showPost(api: API) {
///   @Shared(.query(["posts", 42]) { try await api.post(42) }) var post = OperationState<Post>()
///   render(post)
/// }
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
  /// How the query caches, refetches and retries: the options it was made with, or, when it was made without, the
  /// library's defaults until a store gives it its own (``QueryStore/defaultOptions``).
  public let options: QueryOptions
  /// Whether the query was made without options of its own: the store it enters gives it its defaults.
  let usesDefaultOptions: Bool
  /// The query's own fetcher, as it was written.
  let fetcher: QueryFetcher<State>
  /// Where the fetcher is written, to tell two fetchers for one key apart.
  let fetcherLocation: CodeLocation
  /// A single or a paginated query, with what a paginated one needs to fetch its pages.
  let kind: QueryKind<State>
  /// The state a record made for this query starts with, and when it was obtained; see ``initialState(_:updatedAt:)``.
  let initial: QueryInitialState<State>?
  /// How long each fetched value stays fresh, decided by the value; see ``staleTime(_:)``.
  var staleness: QueryStaleness<State>?

  init(
    key: QueryKey,
    options: QueryOptions?,
    fetch: @escaping QueryRecord<State>.Body,
    fetcherLocation: CodeLocation,
    kind: QueryKind<State> = .single
  ) {
    self.init(key: key, options: options, fetcher: .full(fetch), fetcherLocation: fetcherLocation, kind: kind)
  }

  init(
    key: QueryKey,
    options: QueryOptions?,
    fetcher: QueryFetcher<State>,
    fetcherLocation: CodeLocation,
    kind: QueryKind<State> = .single,
    initial: QueryInitialState<State>? = nil
  ) {
    self.key = key
    self.options = options ?? QueryOptions()
    self.usesDefaultOptions = options == nil
    self.fetcher = fetcher
    self.fetcherLocation = fetcherLocation
    self.kind = kind
    self.initial = initial
  }

  /// The query named `key` of `definition`, with its fetcher and kind: a query a record keeps in parts, made whole.
  init(key: QueryKey, definition: QueryDefinition, fetcher: QueryFetcher<State>, kind: QueryKind<State>) {
    self.key = key
    self.options = definition.options
    self.usesDefaultOptions = definition.usesDefaultOptions
    self.fetcher = fetcher
    self.fetcherLocation = definition.fetcherLocation
    self.kind = kind
    self.initial = nil  // The record exists: an initial state has nothing left to start.
  }

  /// The registry identity: the query key.
  public var id: QueryKey { key }
  /// A query's value is freed only after ``QueryOptions/gcTime`` without holders.
  public var lifetime: SharedKeyLifetime { .whileHeld }

  /// This query with `defaults` as its options, if it was made without options of its own.
  func withDefaultOptions(_ defaults: QueryOptions) -> Self {
    guard usesDefaultOptions else { return self }
    var query = Self(
      key: key, options: defaults, fetcher: fetcher, fetcherLocation: fetcherLocation, kind: kind, initial: initial)
    query.staleness = staleness
    return query
  }

  /// Registers the holder with the query store, which fetches if the value is missing, stale or invalidated.
  func holderDidAppear(_ shared: Shared<State>, in registry: SharedRegistry) {
    registry.queries.addHolder(self, holder: shared, in: registry)
  }

  /// A query's value: written through its optimistic changes.
  static var namesQueryValue: Bool { true }
}

extension Query: CustomStringConvertible {
  /// The key as it reads in code.
  public var description: String { ".query(\(key))" }
}

extension SharedReaderKey {
  /// A query named `key` whose value `fetch` produces.
  ///
  /// ```swift
  /// func showPost(api: API) {
  ///   @Shared(.query(["posts", 42]) { try await api.post(42) }) var post = OperationState<Post>()
  ///   render(post)
  /// }
  /// ```
  ///
  /// Fetches run as ``QueryOptions/operation`` says: retries, a timeout for each attempt, modifiers.
  ///
  /// - Parameters:
  ///   - key: The query's name.
  ///   - options: Caching, refetching, and how each fetch runs; the store's ``QueryStore/defaultOptions`` when
  ///     omitted.
  ///   - fileID: Where the fetcher is written (filled in for you).
  ///   - line: The line of the fetcher (filled in for you).
  ///   - fetch: Produces the value.
  /// - Returns: The query key.
  public static func query<State: OperationTrackable>(
    _ key: QueryKey,
    options: QueryOptions? = nil,
    fileID: String = #fileID,
    line: Int = #line,
    _ fetch: @escaping @Sendable () async throws -> State.Success
  ) -> Self where Self == Query<State> {
    Query(
      key: key, options: options, fetcher: .plain(fetch),
      fetcherLocation: CodeLocation(fileID: fileID, line: line))
  }

  /// A query named `key` whose fetcher receives its attempt's context: the attempt number, the clock, and a way to
  /// show values before its final one.
  ///
  /// ```swift
  /// func showFeed(api: API, cache: Cache) {
  ///   @Shared(
  ///     .query(["feed"]) { context in
  ///       if let cached = cache.feed { context.yield(cached) }  // shown at once; still fetching
  ///       return try await api.feed()
  ///     }) var feed = OperationState<[Item]>()
  ///   render(feed)
  /// }
  /// ```
  ///
  /// A yielded value is stored at once (``OperationTrackable/applySuccess(_:)``) while the fetch runs; the fetcher's
  /// return value is the final one. A value yielded after the fetch ended, or from a cancelled fetch, is dropped.
  ///
  /// - Parameters:
  ///   - key: The query's name.
  ///   - options: Caching, refetching, and how each fetch runs; the store's ``QueryStore/defaultOptions`` when
  ///     omitted.
  ///   - fileID: Where the fetcher is written (filled in for you).
  ///   - line: The line of the fetcher (filled in for you).
  ///   - fetch: Produces the value, given its attempt's context; may yield intermediate values first.
  /// - Returns: The query key.
  public static func query<State: OperationTrackable>(
    _ key: QueryKey,
    options: QueryOptions? = nil,
    fileID: String = #fileID,
    line: Int = #line,
    _ fetch: @escaping @Sendable (OperationContext<State.Success>) async throws -> State.Success
  ) -> Self where Self == Query<State> {
    Query(
      key: key, options: options, fetcher: .contextual(fetch),
      fetcherLocation: CodeLocation(fileID: fileID, line: line))
  }
}
