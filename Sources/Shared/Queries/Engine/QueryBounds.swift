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
    detach(record)
    append(record)
  }

  /// Takes `record` out of the list (it is being removed), and out of its clock's count.
  mutating func unlink(_ record: any QueryRecordProtocol) {
    guard contains(record) else { return }
    if let count = sweptClocks[record.clockKey] { sweptClocks[record.clockKey] = max(0, count - 1) }
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
