import Synchronization

extension Shared where Value: OperationTrackable {
  /// Holds the query named by `query`, fetching it if nobody holds it yet or its value is stale.
  ///
  /// ```swift
  /// func showPost(api: API) {
  ///   @Shared(.query(["posts", 42]) { try await api.post(42) }) var post = OperationState<Post>()
  ///   render(post)
  /// }
  /// ```
  ///
  /// A query's state lives in memory (fetching is its store), and every holder may write it.
  ///
  /// - Parameters:
  ///   - wrappedValue: The state to start from when nobody holds the query yet.
  ///   - query: The query.
  @inlinable
  public init(wrappedValue: @autoclosure () -> Value, _ query: Query<Value>) {
    let registry = SharedRegistry.current
    // The registry's part is specialized where it is called, as for any in-memory key (a query's value has no
    // store: a root that leaves the registry after its last holder).
    self.init(
      reference: registry.reference(for: query, defaultValue: wrappedValue) { value, registration in
        guard let registration else { return .box(ReactiveBox(value)) }
        return .root(SharedRoot(memoryOnly: value, registration: registration, isQueryValue: true))
      })
    // The value's query link is found here too, specialized for `Value`: a new key makes it.
    var link: QueryLink?
    if case .root(let root) = reference { link = root.box.attachment(QueryLink.self, make: QueryLink.init) }
    registry.queries.addHolder(query, holder: self, link: link, in: registry, writer: QueryValueWriter())
  }

  /// Fetches this query again now, joining a refetch of it that is under way or asked for.
  ///
  /// ```swift
  /// $post.refetch()
  /// ```
  ///
  /// The same as ``QueryStore/refetch(_:)-(QueryKey)`` with the query's key. A paginated query fetches every loaded page again,
  /// as ``Shared/refetchAll()`` does (which also hands back a task to wait for). A page fetch under way finishes
  /// first; a refetch that an invalidation overtook is not joined, another one follows it.
  ///
  /// - Returns: Whether this value is a query (other values are left alone).
  @discardableResult
  public func refetch() -> Bool {
    guard let (store, key, _) = root.attachment(QueryLink.self, make: QueryLink.init).target(as: Value.self) else {
      return false
    }
    return store.refetch(key)
  }
}

extension Shared {
  /// The value of this query: the cached one at once when it is fresh, otherwise the one a fetch brings.
  ///
  /// ```swift
  /// func showPost(api: API) async throws {
  ///   @Shared(.query(["posts", 42]) { try await api.post(42) }) var post = OperationState<Post>()
  ///   if let fresh = try await $post.fetchValue() { render(fresh) }
  /// }
  /// ```
  ///
  /// The same as ``QueryStore/fetch(_:servingStale:)->Value`` with this holder's query, instead of a loop over
  /// ``Shared/values`` that waits for a success: a fresh value returns without a suspension; a stale, invalidated
  /// or missing one joins the fetch under way or starts one. A failed fetch throws its error, after its retries; a
  /// cancelled caller stops waiting at once with a `CancellationError`, and the holder still gets a fresh value (the
  /// fetch goes on, or another follows it).
  ///
  /// - Parameter servingStale: Whether a stale cached value returns at once while a refetch runs in the
  ///   background.
  /// - Returns: The query's value, or `nil` when this value is not a query's.
  /// - Throws: The fetch's error, or `CancellationError` when the caller is cancelled.
  @inlinable
  nonisolated(nonsending) public func fetchValue<Success: Sendable>(servingStale: Bool = false) async throws -> Success?
  where Value == OperationState<Success> {
    // A query's holder reads its root directly: specialized here, with no generic code in the attachment lookup.
    let link =
      if case .root(let root) = reference {
        root.box.attachment(QueryLink.self, make: QueryLink.init)
      } else {
        root.attachment(QueryLink.self, make: QueryLink.init)
      }
    guard let (store, key, stopwatch) = link.record else { return nil }
    // A fresh value returns here, in code specialized for `Success` where it is called, as in `QueryStore.fetch`.
    if let value = store.freshValue(named: key, stopwatch: stopwatch, as: Success.self) { return value }
    return try await store.awaitValue(named: key, stopwatch: stopwatch, servingStale: servingStale)
  }
}
