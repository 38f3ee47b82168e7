extension Query {
  /// This query, with each fetched value deciding how long it stays fresh: `rule` replaces
  /// ``QueryOptions/staleTime`` for the values it is given.
  ///
  /// ```swift
  /// func showPost(api: API) {
  ///   let query: Query<OperationState<Post>> = .query(["posts", 42]) { try await api.post(42) }
  ///   // A published post changes rarely; a draft is refetched by every new holder.
  ///   @Shared(query.staleTime { post in post.isPublished ? .seconds(300) : .zero }) var post = OperationState<Post>()
  /// }
  /// ```
  ///
  /// The rule runs once per fetched value, as the fetch ends, never under the store's lock; what it returns then
  /// holds until the next value (return `.zero` for a value that is stale at once, a long duration for one that
  /// never goes stale by age). An invalidated value is stale whatever the rule says. A value the program sets
  /// itself (``QueryStore/setFetchedValue(_:for:updatedAt:)``, ``initialValue(_:updatedAt:)``) goes stale after
  /// ``QueryOptions/staleTime``. As with the fetcher, the rule of the query that made a key's record applies to
  /// the key until it is collected.
  ///
  /// - Parameter rule: How long a fetched value stays fresh; zero or more.
  /// - Returns: The query, with its staleness rule.
  public func staleTime<Success: Sendable>(_ rule: @escaping @Sendable (Success) -> Duration) -> Query
  where State == OperationState<Success> {
    var query = self
    query.staleness = QueryStaleness(staleTime: { value in max(.zero, rule(value)) })
    return query
  }
}
