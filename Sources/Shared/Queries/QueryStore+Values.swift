public import Reactive

extension QueryStore {
  /// The value of `query`: the cached one at once when it is fresh, otherwise the one a fetch brings.
  ///
  /// ```swift
  /// let post = try await SharedRegistry.current.queries.fetch(.query(["posts", 42]) { try await api.post(42) })
  /// return post
  /// ```
  ///
  /// No holder is needed: the store keeps the query while the fetch runs and for ``QueryOptions/gcTime`` after, and
  /// a holder that appears meanwhile shares its value. A value fetched less than ``QueryOptions/staleTime`` ago,
  /// with no invalidation since, returns without a fetch or a suspension; otherwise the caller joins the fetch under
  /// way, or starts one, so any number of concurrent callers of one key cause one fetch. A fresh value costs one
  /// lock and one lookup of the key, in code specialized where `fetch` is called, and returns on the caller's actor
  /// without leaving it. With `servingStale`, a
  /// stale cached value returns at once and is refetched in the background; only a query with no value waits.
  ///
  /// A failed fetch throws its error, after the retries of ``QueryOptions/operation``. A cancelled caller stops
  /// waiting at once with a `CancellationError`; the fetch itself is cancelled only when no other caller awaits it
  /// and no invalidation asked for it, and a held query then gets another refresh for its holders.
  ///
  /// - Parameters:
  ///   - query: The query; its fetcher is used if the store does not keep the query yet.
  ///   - servingStale: Whether a stale cached value returns at once while a refetch runs in the background.
  /// - Returns: The query's value.
  /// - Throws: The fetch's error, or `CancellationError` when the caller is cancelled, or when the store keeps a
  ///   query of another state type under the same key.
  @inlinable
  nonisolated(nonsending) public func fetch<Value: Sendable>(
    _ query: Query<OperationState<Value>>,
    servingStale: Bool = false
  ) async throws -> Value {
    // A fresh value returns here, in code specialized for `Value` where it is called: no suspension, no generic code.
    if let value = freshValue(named: query.key, stopwatch: nil, as: Value.self) { return value }
    return try await awaitValue(of: query, servingStale: servingStale)
  }

  /// The cached value of `query` whatever its age, or, when it has none yet, the one a fetch brings.
  ///
  /// ```swift
  /// let user = try await store.ensureValue(.query(["users", id]) { try await api.user(id) })
  /// ```
  ///
  /// For data that does not go stale in practice (a user's profile for one request): no refetch is started for a
  /// stale or invalidated value. Awaiting, errors and cancellation are as for ``fetch(_:servingStale:)->Value``.
  ///
  /// - Parameter query: The query.
  /// - Returns: The query's value.
  /// - Throws: The fetch's error, or `CancellationError` when the caller is cancelled, or when the store keeps a
  ///   query of another state type under the same key.
  @inlinable
  nonisolated(nonsending) public func ensureValue<Value: Sendable>(
    _ query: Query<OperationState<Value>>
  ) async throws -> Value {
    // A fresh value serves any age: it returns here, as in `fetch`.
    if let value = freshValue(named: query.key, stopwatch: nil, as: Value.self) { return value }
    return try await ensuredValue(of: query)
  }

  /// Starts fetching `query` if its value is missing, stale or invalidated, and returns at once.
  ///
  /// ```swift
  /// store.prefetch(.query(["posts", 43]) { try await api.post(43) })  // the next page a user will open
  /// ```
  ///
  /// A fetch under way is joined, and a fresh value is left alone. The store keeps the query while the fetch runs
  /// and for ``QueryOptions/gcTime`` after, so the first holder or ``fetch(_:servingStale:)->Value`` finds it cached. The
  /// fetch is the library's: no caller's cancellation stops it.
  ///
  /// - Parameter query: The query.
  public func prefetch<Value: Sendable>(_ query: Query<OperationState<Value>>) {
    var made: Shared<OperationState<Value>>?  // A record made here, kept until it is asked.
    guard let stopwatch = recordStopwatch(of: query, keeping: &made) else { return }
    // The clock is the caller's code: read outside the lock.
    prefetch(query.key, stopwatch: stopwatch, now: stopwatch.elapsed(), as: OperationState<Value>.self, keeping: &made)
  }

  /// The cached value of the query named `key`, whatever its age, without fetching.
  ///
  /// ```swift
  /// if let post = store.cachedValue(for: ["posts", 42], as: Post.self) { show(post) }
  /// ```
  ///
  /// Reading does not count as a use: it does not keep the query from being collected. A value the store's persisted
  /// cache holds for a query not made yet (restored by ``persistCache(_:)``, or hydrated) is read too, decoded as
  /// `type`.
  ///
  /// - Parameters:
  ///   - key: The query's name.
  ///   - type: The type of the query's value (`Post` for a query of `OperationState<Post>`).
  /// - Returns: The value, or `nil` when the store keeps no such query, it has no value yet, or its value is of
  ///   another type.
  public func cachedValue<Value: Sendable>(for key: QueryKey, as type: Value.Type) -> Value? {
    cachedShared(key, as: OperationState<Value>.self)?.wrappedValue.value ?? persistedValue(for: key, as: type)
  }

  /// The cached values of every query whose key starts with `prefix`, without fetching.
  ///
  /// ```swift
  /// for (key, post) in store.cachedValues(matching: ["posts"], as: Post.self) { print(key, post.title) }
  /// ```
  ///
  /// Queries with no value yet, or with a value of another type, are left out. Only the keys under `prefix` are
  /// visited, however many other queries the store keeps. Values the persisted cache holds for queries not made yet
  /// are read too, as ``cachedValue(for:as:)`` reads them.
  ///
  /// - Parameters:
  ///   - prefix: The key prefix; `["posts"]` reaches `["posts", 42]`; `[]` reaches every query.
  ///   - type: The type of the queries' values.
  /// - Returns: Each matching key with its value.
  public func cachedValues<Value: Sendable>(
    matching prefix: QueryKey,
    as type: Value.Type
  ) -> [(key: QueryKey, value: Value)] {
    let values = cachedShareds(matching: prefix, as: OperationState<Value>.self)
    // Values are read, and the borrowed ones released, after the store's lock.
    return values.compactMap { key, shared in shared.wrappedValue.value.map { (key, $0) } }
      + persistedValues(matching: prefix, as: type)
  }

  /// The value of the query named `key` when it is fresh (see ``freshValueBox(named:stopwatch:stateType:)``); `nil`
  /// otherwise, or when its value was reset by the app.
  @inlinable
  func freshValue<Value: Sendable>(named key: QueryKey, stopwatch: Stopwatch?, as _: Value.Type) -> Value? {
    let stateType = ObjectIdentifier(OperationState<Value>.self)
    guard let box = freshValueBox(named: key, stopwatch: stopwatch, stateType: stateType) else { return nil }
    // The box of a record whose state type is `OperationState<Value>`, checked under the store's lock.
    return unsafeDowncast(box, to: ReactiveBox<OperationState<Value>>.self).value.value
  }

  /// The value of `query` when it is not fresh: a stale one with `servingStale`, otherwise a fetched one.
  @usableFromInline
  func awaitValue<Value: Sendable>(of query: Query<OperationState<Value>>, servingStale: Bool) async throws -> Value {
    try await value(of: query, accepting: servingStale ? .staleWhileRefetching : .fresh)
  }

  /// The value of the query named `key`, whose record measures from `stopwatch`, when it is not fresh (a holder's
  /// call): a stale one with `servingStale`, otherwise a fetched one; `nil` when the record is gone.
  @usableFromInline
  func awaitValue<Value: Sendable>(named key: QueryKey, stopwatch: Stopwatch, servingStale: Bool) async throws -> Value?
  {
    let query: Query<OperationState<Value>>? = nil  // A holder's record is not collected: nothing to make again.
    var made: Shared<OperationState<Value>>?
    return try await value(
      named: key, stopwatch: stopwatch, query: query, keeping: &made,
      accepting: servingStale ? .staleWhileRefetching : .fresh)
  }

  /// The cached value of `query` whatever its age, or a fetched one when it has none.
  @usableFromInline
  func ensuredValue<Value: Sendable>(of query: Query<OperationState<Value>>) async throws -> Value {
    try await value(of: query, accepting: .anyAge)
  }

  /// The value of `query` as `acceptance` allows.
  private func value<Value: Sendable>(
    of query: Query<OperationState<Value>>,
    accepting acceptance: QueryRecordMachine.Acceptance
  ) async throws -> Value {
    var made: Shared<OperationState<Value>>?  // A record made here, kept until it is asked.
    guard let stopwatch = recordStopwatch(of: query, keeping: &made),
      let value = try await value(
        named: query.key, stopwatch: stopwatch, query: query, keeping: &made, accepting: acceptance)
    else { throw CancellationError() }
    return value
  }
}
