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
  /// The sweeper of each clock the store's queries measure time on, while one of them is left.
  var sweepers: [QueryClockKey: QuerySweeper] = [:]
  /// The generation of the next sweeper task: never reused, so that no task mistakes itself for a later one.
  private var nextGeneration: UInt64 = 0

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

  /// Links a new record as the most recently used; returns the sweeper task to start after the lock: the clock's
  /// first, or one that replaces a task sleeping longer than the record may wait for its first check.
  mutating func add(_ record: any QueryRecordProtocol) -> QuerySweeper.Start? {
    append(record)
    nextGeneration += 1
    let interval = record.gcCheckInterval
    guard sweepers[record.clockKey] != nil else {
      let sweeper = QuerySweeper(generation: nextGeneration, stopwatch: record.stopwatch, interval: interval)
      sweepers[record.clockKey] = sweeper
      return sweeper.start
    }
    return sweepers[record.clockKey]?.added(interval: interval, generation: nextGeneration)
  }

  /// Whether `record` is in the list.
  func contains(_ record: any QueryRecordProtocol) -> Bool {
    record.older != nil || oldest === record
  }

  /// Notes a use of `record`: it becomes the most recently used.
  mutating func use(_ record: any QueryRecordProtocol) {
    guard newest !== record, contains(record) else { return }
    detach(record)
    append(record)
  }

  /// Takes `record` out of the list (it is being removed), and out of its clock's count.
  mutating func unlink(_ record: any QueryRecordProtocol) {
    guard contains(record) else { return }
    if let count = sweepers[record.clockKey]?.count { sweepers[record.clockKey]?.count = max(0, count - 1) }
    detach(record)
  }

  /// Takes `record` out of the list only: it stays in the store (a use moves it to the newest end).
  private mutating func detach(_ record: any QueryRecordProtocol) {
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
