public import Foundation

extension QueryStore {
  /// Sets the value of `query` to one the program obtained itself, as if a fetch had brought it at `updatedAt`,
  /// making the query if the store keeps none: the post a mutation created, the detail of an item a list fetched.
  ///
  /// ```swift
  /// func postCreated(_ post: Post, api: API) {
  ///   let store = SharedRegistry.current.queries
  ///   store.setFetchedValue(post, for: .query(["posts", post.id]) { try await api.post(post.id) })
  /// }
  /// ```
  ///
  /// As ``setFetchedState(for:startingWith:updatedAt:_:)``, with the value as the whole state.
  ///
  /// - Parameters:
  ///   - value: The value.
  ///   - query: The query, made with this value if the store keeps no query under its key.
  ///   - updatedAt: When the value was obtained; now by default. ``QueryOptions/staleTime`` counts from it.
  /// - Returns: Whether the value was set: `false` when the store keeps a query of another state type under the key.
  @discardableResult
  public func setFetchedValue<Value: Sendable>(
    _ value: Value,
    for query: Query<OperationState<Value>>,
    updatedAt: Date = Date()
  ) -> Bool {
    setFetchedState(for: query, startingWith: OperationState(), updatedAt: updatedAt) { $0.value = value }
  }

  /// Sets the pages of the paginated `query` as `body` writes them, as if a fetch had brought them at `updatedAt`,
  /// making the query if the store keeps none.
  ///
  /// ```swift
  /// func draftPublished(_ post: Post, feed: Query<PaginatedState<Int, [Post]>>) {
  ///   SharedRegistry.current.queries.setFetchedState(for: feed) { feed in
  ///     if !feed.pages.isEmpty { feed.pages[0].insert(post, at: 0) }
  ///   }
  /// }
  /// ```
  ///
  /// As ``setFetchedState(for:startingWith:updatedAt:_:)``, starting from no pages: for a query the store does not keep
  /// yet, `body` finds `pages` empty (the edit above then changes nothing), and seeds it with
  /// ``PaginatedState/replacePages(ids:pages:hasNextPage:hasPreviousPage:)``.
  ///
  /// - Parameters:
  ///   - query: The query, made with no pages if the store keeps none under its key.
  ///   - updatedAt: When the pages were obtained; now by default. ``QueryOptions/staleTime`` counts from it.
  ///   - body: Writes the pages (``PaginatedState/pages``, ``PaginatedState/replacePages(ids:pages:hasNextPage:hasPreviousPage:)``).
  /// - Returns: Whether the state was set: `false` when the store keeps a query of another state type under the key.
  @discardableResult
  public func setFetchedState<PageID: Hashable & Sendable, Page: Sendable>(
    for query: Query<PaginatedState<PageID, Page>>,
    updatedAt: Date = Date(),
    _ body: (inout PaginatedState<PageID, Page>) -> Void
  ) -> Bool {
    setFetchedState(for: query, startingWith: PaginatedState(), updatedAt: updatedAt, body)
  }

  /// Sets the state of `query` as `body` writes it, as if a fetch had brought it at `updatedAt`, making the query
  /// (from `initialState`, or from the query's own ``Query/initialState(_:updatedAt:)``) if the store keeps none.
  ///
  /// ```swift
  /// func profileLearned(_ profile: Profile, query: Query<ProfileState>) {
  ///   SharedRegistry.current.queries.setFetchedState(for: query, startingWith: ProfileState()) { $0.profile = profile }
  /// }
  /// ```
  ///
  /// Unlike ``update(_:as:_:)``, which edits a cached state and leaves its age alone, this writes data: the state
  /// shows a success with no error, its ``OperationTracking/dataUpdatedAt`` is `updatedAt`, and the query counts as
  /// fetched then, so holders refetch only once it is ``QueryOptions/staleTime`` old (an invalidation is answered
  /// by it). A fetch under way goes on: it still shows as fetching, and writes its own value when it ends. Every
  /// holder's listeners hear about the change once; the state it replaces is released after the lock. It counts as
  /// a use, so the query is kept for another ``QueryOptions/gcTime``.
  ///
  /// - Parameters:
  ///   - query: The query.
  ///   - initialState: The state the query starts from when the store makes it.
  ///   - updatedAt: When the data was obtained; now by default.
  ///   - body: Writes the data.
  /// - Returns: Whether the state was set: `false` when the store keeps a query of another state type under the key.
  @discardableResult
  public func setFetchedState<State: OperationTrackable>(
    for query: Query<State>,
    startingWith initialState: State,
    updatedAt: Date = Date(),
    _ body: (inout State) -> Void
  ) -> Bool {
    let age = Duration.seconds(max(0, Date().timeIntervalSince(updatedAt)))
    while true {
      // A record made here is kept until its value is set: no other new query evicts it meanwhile.
      var made: Shared<State>?
      let madeFrom = { query.initial?.state ?? initialState }
      guard let stopwatch = recordStopwatch(of: query, initialState: madeFrom, keeping: &made) else { return false }
      // The clock is the caller's code: read outside the lock.
      let now = stopwatch.elapsed()
      let shared = state.withLock { state -> Shared<State>? in
        guard let record = state.record(named: query.key, as: State.self),
          record.stopwatch.isSame(as: stopwatch)
        else { return nil }
        record.valueSet(obtainedAt: now - age)
        use(record, in: &state)
        return record.shared
      }
      // Collected or removed between the two locks: made again.
      guard let shared else { continue }
      QueryFetchExecutor.writeData(into: shared) { state in
        body(&state)
        state.operation.markSet(at: updatedAt)
      }
      withExtendedLifetime(made) {}  // Set: the value is let go only now.
      persistedValueChanged(query.key)
      return true
    }
  }

  // MARK: Earlier names

  /// The earlier name of ``setFetchedValue(_:for:updatedAt:)``, whose name now says that the value counts as
  /// fetched.
  ///
  /// - Parameters:
  ///   - value: The value.
  ///   - query: The query, made with this value if the store keeps no query under its key.
  ///   - updatedAt: When the value was obtained; now by default.
  /// - Returns: Whether the value was set: `false` when the store keeps a query of another state type under the key.
  @available(*, deprecated, renamed: "setFetchedValue(_:for:updatedAt:)")
  @discardableResult
  public func setValue<Value: Sendable>(
    _ value: Value,
    for query: Query<OperationState<Value>>,
    updatedAt: Date = Date()
  ) -> Bool {
    setFetchedValue(value, for: query, updatedAt: updatedAt)
  }

  /// The earlier name of ``setFetchedState(for:updatedAt:_:)``, whose name now says that the pages count as
  /// fetched.
  ///
  /// - Parameters:
  ///   - query: The query, made with no pages if the store keeps none under its key.
  ///   - updatedAt: When the pages were obtained; now by default.
  ///   - body: Writes the pages.
  /// - Returns: Whether the state was set: `false` when the store keeps a query of another state type under the key.
  @available(*, deprecated, renamed: "setFetchedState(for:updatedAt:_:)")
  @discardableResult
  public func setState<PageID: Hashable & Sendable, Page: Sendable>(
    for query: Query<PaginatedState<PageID, Page>>,
    updatedAt: Date = Date(),
    _ body: (inout PaginatedState<PageID, Page>) -> Void
  ) -> Bool {
    setFetchedState(for: query, updatedAt: updatedAt, body)
  }

  /// The earlier name of ``setFetchedState(for:startingWith:updatedAt:_:)``, whose name now says that the state
  /// counts as fetched.
  ///
  /// - Parameters:
  ///   - query: The query.
  ///   - initialState: The state the query starts from when the store makes it.
  ///   - updatedAt: When the data was obtained; now by default.
  ///   - body: Writes the data.
  /// - Returns: Whether the state was set: `false` when the store keeps a query of another state type under the key.
  @available(*, deprecated, renamed: "setFetchedState(for:startingWith:updatedAt:_:)")
  @discardableResult
  public func setState<State: OperationTrackable>(
    for query: Query<State>,
    startingWith initialState: State,
    updatedAt: Date = Date(),
    _ body: (inout State) -> Void
  ) -> Bool {
    setFetchedState(for: query, startingWith: initialState, updatedAt: updatedAt, body)
  }
}
