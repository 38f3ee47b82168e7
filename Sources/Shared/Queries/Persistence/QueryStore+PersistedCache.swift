import Foundation

extension QueryStore {
  /// Restores the query cache `persistence` keeps, then keeps it up to date: call it at launch, best before the
  /// first holder of a persisted query appears (a query made before shows the restored value once it is put in,
  /// unless its own value is more recent). A ``MutationQueue`` may be restored before or after it: its entries'
  /// optimistic changes show over the restored values either way.
  ///
  /// ```swift
  /// func launch(cacheURL: URL) async {
  ///   let store = SharedRegistry.current.queries
  ///   await store.persistCache(QueryCachePersistence(persister: .file(cacheURL), version: "2"))
  ///   // Holders made from here on show the restored values at once.
  /// }
  /// ```
  ///
  /// Each restored value shows as a success, with its original ``OperationTracking/updatedAt``, when its query is
  /// first used (by a holder, ``fetch(_:servingStale:)->Value``, ``prefetch(_:)-(Query<OperationState<Value>>)``,
  /// ``cachedValue(for:as:)``): the query's ``QueryOptions/staleTime`` then decides whether it refetches, as for a
  /// value fetched then. A value waits for its query because only the query knows the value's type and how to
  /// fetch it; a value that does not decode as the query's is dropped and reported, and the query fetches.
  ///
  /// Values older than ``QueryCachePersistence/maxAge``, and those the ``QueryCachePersistence/filter`` no longer
  /// chooses, are dropped. A cache of another ``QueryCachePersistence/version``, or one that is damaged, truncated
  /// or unreadable, is dropped as a whole and reported (in the returned ``QueryCacheRestore/problem``, and to
  /// ``QueryCachePersistence/onProblem``); the store then starts without it, and the next write replaces it.
  ///
  /// From then on, each value the store writes into a persisted query (a fetch's, one set with
  /// ``setFetchedValue(_:for:updatedAt:)`` or ``setFetchedState(for:startingWith:updatedAt:_:)``, an edit with
  /// ``update(_:as:_:)``) is written within ``QueryCachePersistence/throttle``, together with every other change made
  /// meanwhile. The value written is the one the store wrote, without the optimistic changes of mutations under way.
  /// A query removed or reset (``remove(_:)``, ``reset(_:)``) leaves the cache, and an invalidated one is restored
  /// stale. A query collected after its ``QueryOptions/gcTime`` (or evicted over ``capacity``) stays in the cache
  /// until it is older than the ``QueryCachePersistence/maxAge``, with its last value even when it is collected
  /// before the throttle's write, and starts from it when it is made again. An edit through a holder's
  /// `withLock` is written with the next change the store writes.
  ///
  /// A store of another process that persists to the same file is refused: the file is used by one process at a
  /// time (see ``FileQueryCachePersister``). The returned ``QueryCacheRestore/problem`` is then
  /// ``QueryCacheProblem/inUse(reason:)``, nothing is restored or written, and this method may be called again later.
  ///
  /// > Important: Call it once per store (again only after it found the file in use). Await ``flushPersistedCache()`` before the process ends, or a change made
  /// > within the last ``QueryCachePersistence/throttle`` is not written.
  ///
  /// - Parameter persistence: Where the cache is kept, which queries, for how long, and how often it is written.
  /// - Returns: What was restored, and why a stored cache was dropped, if it was.
  @discardableResult
  public func persistCache(_ persistence: QueryCachePersistence) async -> QueryCacheRestore {
    await persistedCache.engine(makingFor: self).startPersisting(persistence)
  }

  /// Writes the changes of the persisted cache that wait for their throttle now, and returns once they are written.
  ///
  /// ```swift
  /// func willTerminate() async {
  ///   try? await SharedRegistry.current.queries.flushPersistedCache()
  /// }
  /// ```
  ///
  /// A write under way is awaited, and followed at once by one of the changes made since. Returns at once when
  /// nothing waits to be written, or when the store does not persist its cache. Cancelling the calling task stops
  /// the wait, not the write.
  ///
  /// - Throws: ``QueryCacheProblem/unwritable(reason:)`` when the write failed (the changes stay in memory, and the
  ///   next change or flush writes them again), or `CancellationError`.
  public func flushPersistedCache() async throws {
    try await persistedCache.engine?.flush()
  }

  /// Forgets every persisted value, and removes the stored cache; returns once it is removed.
  ///
  /// ```swift
  /// func signedOut() async throws {
  ///   let store = SharedRegistry.current.queries
  ///   store.remove(.all)                       // nothing of the user stays in memory
  ///   try await store.removePersistedCache()   // nor on disk
  /// }
  /// ```
  ///
  /// The queries the store keeps are not changed, and a later change to a persisted one is persisted again.
  ///
  /// - Throws: ``QueryCacheProblem/unwritable(reason:)`` when the stored cache could not be removed, or
  ///   `CancellationError`.
  public func removePersistedCache() async throws {
    guard let engine = persistedCache.engine else { return }
    engine.removed(.all)
    try await engine.flush()
  }

  /// The values of the queries `filter` reaches, as a value: to seed a test, or to hand to another process.
  ///
  /// ```swift
  /// func handOver(to other: QueryStore) {
  ///   other.hydrate(SharedRegistry.current.queries.dehydrate(.prefix(["posts"])))
  /// }
  /// ```
  ///
  /// Holds each query with a value whose state is an ``OperationState`` of a `Codable` value and whose key has
  /// parts a cache can hold (see ``PersistedQueryCache/Entry/key``), as the store wrote it (without the optimistic
  /// changes of mutations under way), with when it was obtained; and the persisted values waiting for their query
  /// (restored, or hydrated, and not used yet). The filter's predicate runs outside every lock. Values that cannot be
  /// encoded are left out.
  ///
  /// - Parameters:
  ///   - filter: Which queries, by key: a prefix or an exact key and a key predicate; all of them by default. A
  ///     filter with query conditions (``QueryFilter/hasQueryConditions``) is a programming error, stopped with a
  ///     precondition failure: persisted values waiting for their query have no holder or fetch to test.
  ///   - version: The cache's version; by default the ``QueryCachePersistence/version`` of the store's persisted
  ///     cache, or the empty string.
  /// - Returns: The cache.
  public func dehydrate(_ filter: QueryFilter = .all, version: String? = nil) -> PersistedQueryCache {
    precondition(
      !filter.hasQueryConditions,
      "dehydrate chooses queries by key: a type, staleness, fetch status or query predicate cannot apply to it")
    let engine = persistedCache.engine
    let now = Date()
    let encoder = JSONEncoder()
    var entries: [PersistedQueryCache.Entry] = []
    let accesses = cacheAccesses(under: filter.key)
    let kept = Set(recordKeys(under: filter.key))
    for (key, access) in accesses
    where QueryKeyCoding.bytes(of: key) != nil && filter.accepts(key) {
      guard case .value(let data, let updatedAt, let fallback) = access.read(encoder) else { continue }
      let known = updatedAt == nil ? engine?.entry(for: key)?.updatedAt : nil
      entries.append(
        PersistedQueryCache.Entry(
          key: key, updatedAt: updatedAt ?? known ?? fallback ?? now, isInvalidated: updatedAt == nil, value: data))
    }
    withExtendedLifetime(accesses) {}
    for entry in engine?.entries(under: filter.key) ?? []
    where !kept.contains(entry.key) && filter.accepts(entry.key) {
      entries.append(entry.publicEntry)
    }
    return PersistedQueryCache(version: version ?? engine?.version ?? "", savedAt: now, entries: entries)
  }

  /// Puts the values of `cache` in the store, as a restore at launch does: to seed a test, or to take a cache
  /// another process handed over.
  ///
  /// ```swift
  /// func seedPosts() throws {
  ///   let post = try PersistedQueryCache.Entry(key: ["posts", 1], value: "Hello", updatedAt: Date())
  ///   SharedRegistry.current.queries.hydrate(PersistedQueryCache(entries: [post]))
  /// }
  /// ```
  ///
  /// A value whose query the store keeps replaces the query's value only when it is more recent (a fetch under way
  /// goes on, and writes its own value when it ends); the others wait for their query's first use, as restored
  /// values do (see ``persistCache(_:)``). Each shows as a success obtained at its
  /// ``PersistedQueryCache/Entry/updatedAt``, so ``QueryOptions/staleTime`` decides whether it refetches. The
  /// cache's ``PersistedQueryCache/version`` is not checked. A store that persists its cache writes the values in.
  ///
  /// - Parameters:
  ///   - cache: The values.
  ///   - maxAge: Values older than this are left out; `nil` (the default) keeps every value.
  /// - Returns: How many values were put in, and how many were too old. An entry whose key has a part a cache
  ///   cannot hold, or whose query has a value of another type, is left out.
  @discardableResult
  public func hydrate(_ cache: PersistedQueryCache, maxAge: Duration? = nil) -> QueryCacheRestore {
    let now = Date()
    let oldest = maxAge.map { now.addingTimeInterval(-$0.timeInterval) }
    let young = cache.entries.filter { entry in oldest.map { entry.updatedAt >= $0 } ?? true }
    let entries = young.compactMap(QueryCacheEntry.init)
    let engine = persistedCache.engine(makingFor: self)
    let (restored, problems) = hydrate(entries, engine: engine)
    for problem in problems { engine.report(problem) }
    return QueryCacheRestore(restored: restored, expired: cache.entries.count - young.count)
  }
}
