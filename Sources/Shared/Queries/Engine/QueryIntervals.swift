/// One timer of a store: the queries on one clock that refetch every `interval`.
struct QueryIntervalKey: Hashable, Sendable {
  let clock: QueryClockKey
  let interval: Duration
}

/// The queries of a store that refetch on an interval, by timer: each timer runs while it has queries.
///
/// Only touched under the store's lock. Holds the records strongly, as the store's key tree does; a record leaves
/// when the store removes it.
struct QueryIntervals: ~Copyable {
  private(set) var timers: [QueryIntervalKey: [ObjectIdentifier: any QueryRecordProtocol]] = [:]

  /// Adds a new record; returns its timer's key if that timer must start (it had no queries, so it stopped or
  /// never ran).
  mutating func add(_ record: any QueryRecordProtocol) -> QueryIntervalKey? {
    guard let key = record.intervalKey else { return nil }
    let starts = timers[key] == nil
    timers[key, default: [:]][ObjectIdentifier(record)] = record
    return starts ? key : nil
  }

  /// Removes a record the store removed.
  mutating func remove(_ record: any QueryRecordProtocol) {
    guard let key = record.intervalKey else { return }
    timers[key]?[ObjectIdentifier(record)] = nil
  }

  /// The records of the timer `key` for one tick; `nil` once it has none, which stops it (a record added later
  /// starts it again).
  mutating func tick(_ key: QueryIntervalKey) -> Dictionary<ObjectIdentifier, any QueryRecordProtocol>.Values? {
    guard let records = timers[key], !records.isEmpty else {
      timers[key] = nil
      return nil
    }
    return records.values
  }
}
