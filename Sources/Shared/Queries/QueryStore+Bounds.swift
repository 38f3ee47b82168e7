/// Which clock a query measures its time on, so that the queries of one store on one clock share one sweeper.
///
/// A clock that is an object (a ``ManualClock``) is one clock per instance; a clock that is a value
/// (`ContinuousClock`, `SuspendingClock`) is one clock per type.
struct QueryClockKey: Hashable, Sendable {
  private let id: ObjectIdentifier

  init(_ clock: any Clock<Duration>) {
    if type(of: clock) is AnyClass {
      id = ObjectIdentifier(clock as AnyObject)
    } else {
      id = ObjectIdentifier(type(of: clock))
    }
  }
}

/// What bounds a store's memory: its queries from the least to the most recently used, its capacity, and the
/// clocks it runs a sweeper on.
///
/// Only touched under the ``QueryStore``'s lock. The recency list links the records themselves (two references
/// each, no node of its own); the store breaks the links as it removes a record, and when it goes.
struct QueryBounds: ~Copyable {
  /// The least recently used query.
  private(set) var oldest: (any QueryRecordProtocol)?
  /// The most recently used query.
  private(set) var newest: (any QueryRecordProtocol)?
  /// The most queries the store keeps; `nil`: no limit.
  var capacity: Int?
  /// How many queries each clock measures, while a sweeper runs on it.
  var sweptClocks: [QueryClockKey: Int] = [:]

  init() {}

  deinit {
    // The links are strong both ways: break them so the records are freed with the store.
    var record = oldest
    while let current = record {
      record = current.newer
      current.older = nil
      current.newer = nil
    }
  }

  /// Links a new record as the most recently used; returns whether its clock needs a sweeper.
  mutating func add(_ record: any QueryRecordProtocol) -> Bool {
    append(record)
    let count = sweptClocks[record.clockKey]
    sweptClocks[record.clockKey] = (count ?? 0) + 1
    return count == nil
  }

  /// Whether `record` is in the list.
  func contains(_ record: any QueryRecordProtocol) -> Bool {
    record.older != nil || oldest === record
  }

  /// Notes a use of `record`: it becomes the most recently used.
  mutating func use(_ record: any QueryRecordProtocol) {
    guard newest !== record, contains(record) else { return }
    unlink(record)
    append(record)
  }

  /// Takes `record` out of the list (it is being removed).
  mutating func unlink(_ record: any QueryRecordProtocol) {
    guard contains(record) else { return }
    if let count = sweptClocks[record.clockKey] { sweptClocks[record.clockKey] = max(0, count - 1) }
    let older = record.older
    let newer = record.newer
    if let older { older.newer = newer } else if oldest === record { oldest = newer }
    if let newer { newer.older = older } else if newest === record { newest = older }
    record.older = nil
    record.newer = nil
  }

  private mutating func append(_ record: any QueryRecordProtocol) {
    record.older = newest
    record.newer = nil
    if let newest { newest.newer = record } else { oldest = record }
    newest = record
  }
}

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
  /// Zero keeps only the queries in use.
  public var capacity: Int? {
    get { state.withLock { $0.bounds.capacity } }
    set {
      precondition(newValue.map { $0 >= 0 } ?? true, "A query store's capacity cannot be negative: \(newValue!)")
      let evicted = state.withLock { state in
        state.bounds.capacity = newValue
        return state.evictOverCapacity()
      }
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

/// Where a garbage check goes on after a batch: the record it reached, by key and identity (no reference to a record
/// leaves the lock).
struct SweepCursor: Sendable {
  let key: QueryKey
  let id: ObjectIdentifier
}

extension QueryStore.State {
  /// The record a garbage check reached, if it is still in the store and in the recency list.
  func record(at cursor: SweepCursor) -> (any QueryRecordProtocol)? {
    guard let record = root.node(at: cursor.key.parts)?.record, ObjectIdentifier(record) == cursor.id,
      bounds.contains(record)
    else { return nil }
    return record
  }

  /// Removes `record` from the tree and the recency list; call under the lock, and release the record after it.
  mutating func remove(_ record: any QueryRecordProtocol) {
    bounds.unlink(record)
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
