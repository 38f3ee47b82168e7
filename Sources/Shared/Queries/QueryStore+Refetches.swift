extension QueryStore {
  /// A refetch an invalidation joined as an awaiting caller.
  struct JoinedRefetch: Sendable {
    let key: QueryKey
    let id: QueryRecordMachine.WorkID
    let work: QueryWork
  }

  // MARK: Awaiting the refetches of an invalidation

  /// Marks the queries `filter` reaches as stale, as ``invalidate(_:refetching:)`` does, and waits until the
  /// refetches it set off have ended: "refreshed", not only "marked".
  ///
  /// ```swift
  /// func refreshPosts() async throws {
  ///   let store = SharedRegistry.current.queries
  ///   let report = try await store.invalidateAndAwaitRefetches(.prefix(["posts"]))
  ///   print("refreshed \(report.succeeded.count) of \(report.invalidatedCount)")
  /// }
  /// ```
  ///
  /// The queries refetched are the ones `refetching` names (the held ones by default). For each, the wait ends with
  /// the refetch that answers the invalidation: the one it starts, a refetch already queued, or, when a fetch was
  /// under way, the refetch that follows it, so every value it returns after was fetched after the invalidation.
  /// A query that does not refetch now is not waited for.
  ///
  /// Nothing a refetch does makes this throw: a refetch that fails (after its retries) is in
  /// ``QueryRefetchReport/failures``, and its query shows the error as usual; one the app cancels, resets or removes
  /// meanwhile is in ``QueryRefetchReport/cancelled``. Cancelling the calling task stops the wait at once with a
  /// `CancellationError`; the refetches go on for the queries' holders, and a refetch only this caller awaited is
  /// cancelled, as for any awaiting caller.
  ///
  /// - Parameters:
  ///   - filter: Which queries: a prefix, an exact key, and optionally a predicate on the key.
  ///   - refetching: Which of them fetch again now: the held ones, all of them, or none.
  /// - Returns: How many queries were marked, and how each refetch ended.
  /// - Throws: `CancellationError` when the calling task is cancelled before the refetches ended.
  @discardableResult
  public func invalidateAndAwaitRefetches(
    _ filter: QueryFilter,
    refetching: QueryRefetchScope = .held
  ) async throws -> QueryRefetchReport {
    let (count, joined) = invalidateJoiningRefetches([filter], refetching: refetching)
    var refetches = try await awaitRefetches(joined)
    refetches.invalidatedCount = count
    return refetches
  }

  /// Marks the queries `filters` reach as stale, as ``invalidate(_:refetching:)`` does, and joins the refetch that
  /// answers the invalidation of each query that refetches now; returns how many queries were marked, and the
  /// refetches joined (a query reached by two filters is joined twice).
  func invalidateJoiningRefetches(
    _ filters: [QueryFilter],
    refetching: QueryRefetchScope
  ) -> (count: Int, joined: [JoinedRefetch]) {
    let refetchesNow = refetching.refetchesNow
    // Filled under the store's lock (a lock of its own: the visit is `@Sendable`).
    let joined = Lock<[JoinedRefetch]>([])
    var count = 0
    var persisted: [QueryFilter] = []
    for filter in filters {
      let visited = forEachRecord(matching: filter, heard: .invalidated) { _, record in
        // Whether the query refetches is decided once, for both: it is held or not as the invalidation saw it.
        let refetches = refetchesNow ?? record.isHeld
        let invalidation = record.effect(of: record.invalidated(refetchesNow: refetches), store: self)
        let (refetch, effect) = record.refetchAnsweringInvalidation(refetches: refetches, store: self)
        if let refetch {
          let refetch = JoinedRefetch(key: record.key, id: refetch.id, work: refetch.work)
          joined.withLock { $0.append(refetch) }
        }
        return invalidation.then(effect)
      }
      count += visited.count
      persisted.append(filter.persisted(visited.keys))
    }
    for filter in persisted { persistedValuesInvalidated(filter) }
    return (count, joined.withLock { $0 })
  }

  /// Waits until every refetch in `joined` ended, and says how each did; a cancelled caller stops waiting at once,
  /// with a `CancellationError`, and leaves every refetch it joined (one nobody else needs is cancelled).
  func awaitRefetches(_ joined: [JoinedRefetch]) async throws -> QueryRefetchReport {
    guard !joined.isEmpty else { return QueryRefetchReport() }
    let store = WeakQueryStore(store: self)
    let ended = await withTaskCancellationHandler {
      var ended: [(key: QueryKey, outcome: QueryWork.Outcome)] = []
      for refetch in joined { ended.append((refetch.key, await refetch.work.result())) }
      return ended
    } onCancel: {
      for refetch in joined { store.store?.leaveRefetch(refetch) }
    }
    try Task.checkCancellation()
    var refetches = QueryRefetchReport()
    for (key, outcome) in ended {
      switch outcome {
      case .success:
        refetches.succeeded.insert(key)
      case .failure(let error) where error is CancellationError:
        refetches.cancelled.insert(key)
      case .failure(let error):
        refetches.failures[key] = error
      }
    }
    return refetches
  }

  /// A caller stopped waiting for the refetch `refetch` it joined.
  private func leaveRefetch(_ refetch: JoinedRefetch) {
    let effect = state.withLockReleasingAfter { state -> (result: QueryRecordEffect, released: QueryWork?) in
      // A record removed (or made again) meanwhile no longer runs this work: there is nobody to tell.
      guard let record = state.record(named: refetch.key) else { return (.none, nil) }
      let (withdrawn, effect) = record.cancelRequested(refetch.id, work: refetch.work)
      return (effect, withdrawn)
    }
    effect()
  }
}
