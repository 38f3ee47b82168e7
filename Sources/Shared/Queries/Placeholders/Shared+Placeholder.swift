extension Shared {
  /// What this holder shows of its query: the query's value, or `placeholder` (flagged) while it has none.
  ///
  /// ```swift
  /// func showPost(api: API) -> SharedReader<ShownState<Post>> {
  ///   @Shared(.query(["posts", 42]) { try await api.post(42) }) var post = OperationState<Post>()
  ///   return $post.placeholder(Post(id: 42, title: "Loading…"))
  /// }
  /// ```
  ///
  /// The placeholder is this holder's, not the query's: it is never written into the query's state, so other
  /// holders, ``QueryStore/cachedValue(for:as:)``, ``QueryStore/fetch(_:servingStale:)->Value`` and staleness never see it,
  /// and the query fetches exactly as it would without it. Each screen can show a placeholder of its own (a
  /// skeleton row here, a cached summary there). ``ShownState/isPlaceholder`` is `true` while it shows; the
  /// status stays the query's (idle or pending until the first fetch returns).
  ///
  /// The reader stores nothing: it reads this value, and its listeners hear each change of it.
  ///
  /// - Parameter placeholder: The value to show while the query has none.
  /// - Returns: A reader of what to show.
  public func placeholder<Success: Sendable>(_ placeholder: Success) -> SharedReader<ShownState<Success>>
  where Value == OperationState<Success> {
    SharedReader(
      source: DerivedSelection(
        parent: self, transform: { ShownState($0, placeholder: placeholder) },
        isEqual: equality(for: ShownState<Success>.self)))
  }
}
