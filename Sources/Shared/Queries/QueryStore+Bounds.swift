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
      if settings.inspector.isAttached { inspected(evicted.map(\.key), .collected) }
      withExtendedLifetime(evicted) {}  // Their values are released after the lock.
    }
  }

  /// Runs one sweeper for the queries of this store on `clock`, checking them every `interval` (then every quarter
  /// of the shortest `gcTime` among them), until none is left.
  func startSweeper(on clock: any Clock<Duration>, key: QueryClockKey, interval: Duration) {
    // Weak, and detached so it does not inherit (and keep alive) the task-local registry: a store whose registry is
    // gone stops sweeping and is freed with its queries.
    Task.detached { [weak self] in
      let stopwatch = Stopwatch(clock)
      var interval = interval
      while true {
        do { try await clock.sleep(for: interval) } catch { return }
        guard let self, let next = self.sweep(key, now: stopwatch.elapsed()) else { return }
        interval = next
      }
    }
  }

  /// One garbage check of every query on the clock `key` at `now` (the sweeper's own time): removes those unused
  /// for their whole `gcTime`, and those over the capacity. Returns when to check next, or `nil` when no query on
  /// that clock is left (the sweeper stops).
  ///
  /// The queries are checked a batch at a time, each batch under the lock, so that a large store never holds its
  /// lock for long; a batch whose place in the list was removed meanwhile ends the check (the next one covers the
  /// rest).
  private func sweep(_ key: QueryClockKey, now: Duration) -> Duration? {
    var next: Duration?
    var cursor: SweepCursor?
    var isFirstBatch = true
    while true {
      let batch = state.withLock { [cursor] state -> SweepBatch in
        var batch = SweepBatch()
        var record = isFirstBatch ? state.bounds.oldest : cursor.flatMap { state.record(at: $0) }
        var visited = 0
        while let current = record, visited < Self.sweepBatchSize {
          visited += 1
          record = current.newer
          guard current.clockKey == key else { continue }
          if current.gcTick(now: now) == .collect {
            state.remove(current)
            batch.removed.append(current)
          } else {
            batch.next = min(batch.next ?? current.gcCheckInterval, current.gcCheckInterval)
            if let box = current.sleepIfUnused() { batch.released.append(box) }
          }
        }
        batch.cursor = record.map { SweepCursor(key: $0.key, id: ObjectIdentifier($0)) }
        guard record == nil else { return batch }
        batch.removed += state.evictOverCapacity()
        if state.bounds.sweptClocks[key] == 0 {
          state.bounds.sweptClocks[key] = nil
          batch.isLast = true
        }
        return batch
      }
      if settings.inspector.isAttached { inspected(batch.removed.map(\.key), .collected) }
      withExtendedLifetime((batch.removed, batch.released)) {}  // Their values are released after the lock.
      if let interval = batch.next { next = min(next ?? interval, interval) }
      if batch.isLast { return nil }
      guard let following = batch.cursor else { break }
      cursor = following
      isFirstBatch = false
    }
    // Queries on this clock remain even if none was reached this time (the check ended early): the same pace.
    return next ?? previousInterval(for: key)
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
    var next: Duration?
    /// Where the next batch starts; `nil` when the check is done.
    var cursor: SweepCursor?
    /// Whether no query on the clock is left.
    var isLast = false
  }

  /// How many queries one batch of a garbage check visits under the lock.
  static var sweepBatchSize: Int { 1_024 }

  /// The pace for a clock whose check reached none of its queries: that of the shortest `gcTime` in the store.
  private func previousInterval(for key: QueryClockKey) -> Duration {
    state.withLock { state in
      var shortest: Duration?
      var record = state.bounds.oldest
      while let current = record {
        record = current.newer
        if current.clockKey == key { shortest = min(shortest ?? current.gcCheckInterval, current.gcCheckInterval) }
      }
      return shortest ?? .seconds(1)
    }
  }

  /// How often the sweeper checks a query whose `gcTime` is `gcTime`.
  static func gcCheckInterval(gcTime: Duration) -> Duration {
    gcTime > .zero ? gcTime / checksPerGCTime : .seconds(1)
  }
}

extension QueryStore.State {
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
