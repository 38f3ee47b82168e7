extension QueryStore {
  /// The most queries the store keeps; `nil` (the default) keeps every query until its ``QueryOptions/gcTime``
  /// passes unused.
  ///
  /// ```swift
  /// func boundTheCache() {
  ///   let store = SharedRegistry.current.queries
  ///   store.capacity = 1_000
  /// }
  /// ```
  ///
  /// When a new query would take the store over its capacity, the least recently used queries that nobody holds
  /// and that fetch nothing are removed first, at once, however recently they were fetched. A query that is held
  /// (by a holder, an iteration, an observer), fetching, or awaited is never removed from under its users: when
  /// every query is in use the store goes over its capacity, and comes back to it as they are released (at the next
  /// garbage check or the next new query). A use is a new holder, an awaited value, a refetch, a prefetch or a
  /// write through ``update(_:as:_:)``. Lowering the capacity removes the queries over it at once.
  ///
  /// Zero keeps only the queries in use. A query made for a caller (``fetch(_:servingStale:)->Value``,
  /// ``prefetch(_:)-(Query<OperationState<Value>>)``) counts as in use until the caller's request is in, so callers
  /// of new keys never evict each other's query before it fetches.
  public var capacity: Int? {
    get { state.withLock { $0.bounds.capacity } }
    set {
      precondition(newValue.map { $0 >= 0 } ?? true, "A query store's capacity cannot be negative: \(newValue!)")
      let evicted = state.withLock { state in
        state.bounds.capacity = newValue
        return state.evictOverCapacity()
      }
      if services.inspector.isAttached { inspected(evicted.map(\.key), .collected) }
      instrumentRemoved(evicted, .evicted)
      persistedValuesCollected(evicted)
      withExtendedLifetime(evicted) {}  // Their values are released after the lock.
    }
  }

  /// Runs the sweeper task `start` for the queries of this store on `clock`: it checks them after its first wait,
  /// then as often as they need (see ``QuerySweeper``), until none is left or another task replaces it.
  func startSweeper(_ start: QuerySweeper.Start, on clock: any Clock<Duration>, key: QueryClockKey) {
    start.replaced?.cancel()
    // Weak, and detached so it does not inherit (and keep alive) the task-local registry: a store whose registry is
    // gone stops sweeping and is freed with its queries.
    let task = Task.detached { [weak self] in
      // A task that replaces another checks at once.
      var wait = start.firstWait > .zero ? start.firstWait : nil
      while true {
        if let wait {
          do { try await clock.sleep(for: wait, waitingFor: .garbageCheck) } catch { return }
        }
        guard let self, let next = self.sweep(key, generation: start.generation, now: start.stopwatch.elapsed())
        else { return }
        wait = next
      }
    }
    let isReplaced = state.withLock { $0.bounds.sweepers[key]?.keep(task, generation: start.generation) ?? true }
    if isReplaced { task.cancel() }
  }

  /// One garbage check of every query on the clock `key` at `now` (the sweeper's own time) by the sweeper task of
  /// `generation`: removes those unused for their whole `gcTime`, and those over the capacity. Returns when to check
  /// next (the soonest any query needs it), or `nil` when no query on that clock is left or another task replaced
  /// this one (the task stops).
  ///
  /// The queries are checked a batch at a time, each batch under the lock, so that a large store never holds its
  /// lock for long; a batch whose place in the list was removed meanwhile ends the check, and the next check comes
  /// as soon as any query on the clock needs it.
  private func sweep(_ key: QueryClockKey, generation: UInt64, now: Duration) -> Duration? {
    var next: Duration?
    var cursor: SweepCursor?
    var isFirstBatch = true
    while true {
      let batch = state.withLock { [cursor, next] state -> SweepBatch in
        var batch = SweepBatch()
        guard state.bounds.sweepers[key]?.isCurrent(generation) == true else {
          batch.isLast = true
          return batch
        }
        var record = isFirstBatch ? state.bounds.oldest : cursor.flatMap { state.record(at: $0) }
        let endsEarly = !isFirstBatch && record == nil
        var visited = 0
        while let current = record, visited < Self.sweepBatchSize {
          visited += 1
          record = current.newer
          guard current.clockKey == key else { continue }
          if current.gcTick(now: now) == .collect {
            state.remove(current)
            batch.removed.append(current)
          } else {
            let needed = current.nextGCCheck(now: now)
            batch.next = min(batch.next ?? needed, needed)
            if let box = current.sleepIfUnused() { batch.released.append(box) }
          }
        }
        batch.cursor = record.map { SweepCursor(key: $0.key, id: ObjectIdentifier($0)) }
        guard record == nil else { return batch }
        batch.removed += state.evictOverCapacity()
        guard let count = state.bounds.sweepers[key]?.count, count > 0 else {
          state.bounds.sweepers[key] = nil
          batch.isLast = true
          return batch
        }
        // A check that ended early did not reach every query: the next comes when any of them needs it.
        var needed = next
        if let soonest = endsEarly ? state.nextGCCheck(key, now: now) : batch.next {
          needed = min(needed ?? soonest, soonest)
        }
        let pace = needed ?? Self.gcCheckInterval(gcTime: .zero)
        state.bounds.sweepers[key]?.pace = pace
        batch.next = pace
        return batch
      }
      if services.inspector.isAttached { inspected(batch.removed.map(\.key), .collected) }
      instrumentRemoved(batch.removed, .collected)
      persistedValuesCollected(batch.removed)
      withExtendedLifetime((batch.removed, batch.released)) {}  // Their values are released after the lock.
      if batch.isLast { return nil }
      guard let following = batch.cursor else { return batch.next }
      if let interval = batch.next { next = min(next ?? interval, interval) }
      cursor = following
      isFirstBatch = false
    }
  }

  /// Where a garbage check goes on after a batch: the record it reached, by key and identity (no reference to a
  /// record leaves the lock).
  struct SweepCursor: Sendable {
    let key: QueryKey
    let id: ObjectIdentifier
  }

  /// What one batch of a garbage check found.
  private struct SweepBatch {
    var removed: [any QueryRecordProtocol] = []
    /// The boxes of the queries that went to sleep.
    var released: [Any] = []
    /// When the queries this batch checked need the next check; after the last batch, when the next check comes.
    var next: Duration?
    /// Where the next batch starts; `nil` when the check is done.
    var cursor: SweepCursor?
    /// Whether the sweeper stops: no query on the clock is left, or another task replaced it.
    var isLast = false
  }

  /// How many queries one batch of a garbage check visits under the lock.
  static var sweepBatchSize: Int { 1_024 }

  /// Tells an attached instrument that `records` left the store for `reason`; call after the lock.
  func instrumentRemoved(_ records: [any QueryRecordProtocol], _ reason: QueryRemovalReason) {
    guard !records.isEmpty, let instrument = services.instruments.current else { return }
    instrument.record(.queriesRemoved(records.map(\.key), reason: reason, remaining: count))
  }

  /// How often the sweeper checks a query whose `gcTime` is `gcTime`.
  static func gcCheckInterval(gcTime: Duration) -> Duration {
    gcTime > .zero ? gcTime / checksPerGCTime : .seconds(1)
  }
}

extension QueryStore.Records {
  /// When the queries on the clock `key` need the next garbage check after one at `now`; `nil` when none is left.
  func nextGCCheck(_ key: QueryClockKey, now: Duration) -> Duration? {
    var soonest: Duration?
    var record = bounds.oldest
    while let current = record {
      record = current.newer
      guard current.clockKey == key else { continue }
      let needed = current.nextGCCheck(now: now)
      soonest = min(soonest ?? needed, needed)
    }
    return soonest
  }

  /// The record a garbage check reached, if it is still in the store and in the recency list.
  func record(at cursor: QueryStore.SweepCursor) -> (any QueryRecordProtocol)? {
    guard let record = root.node(at: cursor.key.parts)?.record, ObjectIdentifier(record) == cursor.id,
      bounds.contains(record)
    else { return nil }
    return record
  }

  /// Removes `record` from the tree and the recency list; call under the lock, and release the record after it.
  mutating func remove(_ record: any QueryRecordProtocol) {
    bounds.unlink(record)
    intervals.remove(record)
    guard let node = root.node(at: record.key.parts), node.record === record else { return }
    node.record = nil
    count -= 1
    root.prune(record.key.parts[...])
  }

  /// Removes the least recently used queries nobody uses until the store is within its capacity; returns them, to
  /// be released after the lock.
  mutating func evictOverCapacity() -> [any QueryRecordProtocol] {
    guard let capacity = bounds.capacity, count > capacity else { return [] }
    var evicted: [any QueryRecordProtocol] = []
    var record = bounds.oldest
    while count > capacity, let current = record {
      record = current.newer
      if current.evicted() == .collect {
        remove(current)
        evicted.append(current)
      }
    }
    return evicted
  }
}
