extension QueryStore {
  /// The pages of the paginated `query`: the cached ones at once when they are fresh, otherwise the ones a fetch
  /// brings (the first page, or a refetch of the loaded pages).
  ///
  /// ```swift
  /// func firstPage(of feed: Query<PaginatedState<Int, [Post]>>) async throws -> [Post] {
  ///   let loaded = try await SharedRegistry.current.queries.fetch(feed)
  ///   return loaded.pages.first ?? []
  /// }
  /// ```
  ///
  /// As ``fetch(_:servingStale:)->Value`` for a plain query: a fetch under way is joined,
  /// the store keeps the query for ``QueryOptions/gcTime`` after, and a cancelled caller stops waiting at once.
  /// Pages are fresh when their last fetch of every page, or their first page, was less than
  /// ``QueryOptions/staleTime`` ago with no invalidation since; a page fetched with ``Shared/fetchNextPage()``
  /// does not make them fresh.
  ///
  /// - Parameters:
  ///   - query: The paginated query.
  ///   - servingStale: Whether stale pages return at once, refetched in the background.
  /// - Returns: The query's state, with at least its first page loaded.
  /// - Throws: The fetch's error, or `CancellationError` when the caller is cancelled, or when the store keeps a
  ///   query of another state type under the same key.
  public func fetch<PageID: Hashable & Sendable, Page: Sendable>(
    _ query: Query<PaginatedState<PageID, Page>>,
    servingStale: Bool = false
  ) async throws -> PaginatedState<PageID, Page> {
    try await loadedPages(of: query, accepting: servingStale ? .staleWhileRefetching : .fresh)
  }

  /// The cached pages of the paginated `query` whatever their age, or, when none is loaded, the first page a
  /// fetch brings.
  ///
  /// ```swift
  /// let feed = try await store.ensureValue(feedQuery)
  /// ```
  ///
  /// - Parameter query: The paginated query.
  /// - Returns: The query's state, with at least its first page loaded.
  /// - Throws: As ``fetch(_:servingStale:)->PaginatedState<PageID,Page>``.
  public func ensureValue<PageID: Hashable & Sendable, Page: Sendable>(
    _ query: Query<PaginatedState<PageID, Page>>
  ) async throws -> PaginatedState<PageID, Page> {
    try await loadedPages(of: query, accepting: .anyAge)
  }

  /// Starts fetching the paginated `query` if its pages are missing, stale or invalidated, and returns at once: the
  /// first page of a feed a user is about to open.
  ///
  /// ```swift
  /// store.prefetch(feedQuery)
  /// ```
  ///
  /// As ``prefetch(_:)-(Query<OperationState<Value>>)`` for a plain query.
  ///
  /// - Parameter query: The paginated query.
  public func prefetch<PageID: Hashable & Sendable, Page: Sendable>(_ query: Query<PaginatedState<PageID, Page>>) {
    typealias State = PaginatedState<PageID, Page>
    var made: Shared<State>?  // A record made here, kept until it is asked.
    let initialState = { query.initial?.state ?? State() }
    guard let stopwatch = recordStopwatch(of: query, initialState: initialState, keeping: &made) else { return }
    // The clock is the caller's code: read outside the lock.
    prefetch(query.key, stopwatch: stopwatch, now: stopwatch.elapsed(), as: State.self, keeping: &made)
  }

  /// The cached state of the query named `key`, whatever its age, without fetching: a paginated query's pages, or a
  /// state type of your own.
  ///
  /// ```swift
  /// if let feed = store.cachedState(for: ["feed"], as: PaginatedState<Int, [Post]>.self) { show(feed.pages) }
  /// ```
  ///
  /// Reading does not count as a use: it does not keep the query from being collected.
  ///
  /// - Parameters:
  ///   - key: The query's name.
  ///   - type: The query's state type.
  /// - Returns: The state, or `nil` when the store keeps no such query or one of another state type.
  public func cachedState<State: OperationTrackable>(for key: QueryKey, as type: State.Type) -> State? {
    cachedShared(key, as: type)?.wrappedValue
  }

  /// The state of the paginated `query` once a page is loaded, cached as `acceptance` allows or fetched.
  private func loadedPages<PageID: Hashable & Sendable, Page: Sendable>(
    of query: Query<PaginatedState<PageID, Page>>,
    accepting acceptance: QueryRecordMachine.Acceptance
  ) async throws -> PaginatedState<PageID, Page> {
    typealias State = PaginatedState<PageID, Page>
    let initialState = { query.initial?.state ?? State() }
    var made: Shared<State>?  // A record made here, kept until it is asked.
    guard let stopwatch = recordStopwatch(of: query, initialState: initialState, keeping: &made),
      let state = try await awaitState(
        named: query.key, stopwatch: stopwatch, query: query, initialState: initialState, keeping: &made,
        accepting: acceptance, answer: { $0.pageIDs.isEmpty ? nil : $0 })
    else { throw CancellationError() }
    return state
  }
}

extension Shared {
  /// The pages of this paginated query: the cached ones at once when they are fresh, otherwise the ones a fetch
  /// brings.
  ///
  /// ```swift
  /// func showFeed(api: API) async throws {
  ///   let nextPage: @Sendable ([Post], Int) -> Int? = { page, id in page.isEmpty ? nil : id + 1 }
  ///   @Shared(.paginatedQuery(["feed"], initialPage: 0, nextPage: nextPage) { id in try await api.feed(page: id) })
  ///   var feed = PaginatedState<Int, [Post]>()
  ///   if let loaded = try await $feed.fetchValue() { render(loaded.pages) }
  /// }
  /// ```
  ///
  /// As ``QueryStore/fetch(_:servingStale:)->PaginatedState<PageID,Page>`` with this holder's query.
  ///
  /// - Parameter servingStale: Whether stale pages return at once, refetched in the background.
  /// - Returns: The query's state, with at least its first page loaded; `nil` when this value is not a query's.
  /// - Throws: The fetch's error, or `CancellationError` when the caller is cancelled.
  public func fetchValue<PageID: Hashable & Sendable, Page: Sendable>(
    servingStale: Bool = false
  ) async throws -> PaginatedState<PageID, Page>? where Value == PaginatedState<PageID, Page> {
    let link = root.attachment(QueryLink.self, make: QueryLink.init)
    guard let (store, key, stopwatch) = link.record else { return nil }
    let query: Query<Value>? = nil  // A holder's record is not collected: nothing to make again.
    var made: Shared<Value>?
    return try await store.awaitState(
      named: key, stopwatch: stopwatch, query: query, initialState: { Value() }, keeping: &made,
      accepting: servingStale ? .staleWhileRefetching : .fresh, answer: { $0.pageIDs.isEmpty ? nil : $0 })
  }
}
