public import Foundation

extension Query {
  /// This query, starting with `state` when the store has nothing cached for it: the state shows at once, as a
  /// success obtained at `updatedAt`, and ``QueryOptions/staleTime`` counts from then.
  ///
  /// ```swift
  /// func showFeed(api: API, saved: PaginatedState<Int, [Post]>, savedAt: Date) {
  ///   let nextPage: @Sendable ([Post], Int) -> Int? = { page, id in page.isEmpty ? nil : id + 1 }
  ///   let feed: Query<PaginatedState<Int, [Post]>> = .paginatedQuery(["feed"], initialPage: 0, nextPage: nextPage) {
  ///     id in try await api.feed(page: id)
  ///   }
  ///   @Shared(feed.initialState(saved, updatedAt: savedAt)) var shown = PaginatedState<Int, [Post]>()
  /// }
  /// ```
  ///
  /// The state is used only when the store makes the query's record: by the first holder, or by the first
  /// ``QueryStore/fetch(_:servingStale:)->Value``, ``QueryStore/prefetch(_:)-(Query<OperationState<Value>>)`` or
  /// ``QueryStore/setFetchedState(for:updatedAt:_:)`` of its key. A query the store keeps already, or a holder's
  /// default value, is not replaced. A first holder fetches only if the state is stale: obtained `staleTime` or more
  /// before. The time is read on the wall clock (`Date`), and the state's ``OperationTracking/dataUpdatedAt`` (and
  /// ``OperationTracking/updatedAt``) is set to it.
  ///
  /// - Parameters:
  ///   - state: The state to start with; its status is set to success.
  ///   - updatedAt: When the state was obtained; now by default.
  /// - Returns: The query, with its initial state.
  public func initialState(_ state: State, updatedAt: Date = Date()) -> Query {
    var query = Query(
      key: key, options: usesDefaultOptions ? nil : options, fetcher: fetcher, fetcherLocation: fetcherLocation,
      kind: kind, initial: QueryInitialState(state, updatedAt: updatedAt))
    query.staleness = staleness
    return query
  }

  /// This query, starting with `value` when the store has nothing cached for it: a list seeds the detail of each of
  /// its items, a value kept from an earlier launch shows at once. As ``initialState(_:updatedAt:)``.
  ///
  /// ```swift
  /// func showPost(_ post: Post, listedAt: Date, api: API) {
  ///   let query: Query<OperationState<Post>> = .query(["posts", post.id]) { try await api.post(post.id) }
  ///   @Shared(query.initialValue(post, updatedAt: listedAt)) var detail = OperationState<Post>()
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - value: The value to start with.
  ///   - updatedAt: When the value was obtained; now by default.
  /// - Returns: The query, with its initial value.
  public func initialValue<Value: Sendable>(_ value: Value, updatedAt: Date = Date()) -> Query
  where State == OperationState<Value> {
    initialState(OperationState(value: value), updatedAt: updatedAt)
  }
}
