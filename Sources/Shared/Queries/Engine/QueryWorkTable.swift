/// The units of work of one query record, by identifier, kept with no generic code.
///
/// A record runs one unit of work at a time and queues few: the first is kept inline, so a new query starts its
/// first fetch without allocating or hashing into a table. The work is not generic (``QueryWork``), so neither is
/// the table: the record, which is generic, instantiates no metadata of a dictionary of its own work type.
struct QueryWorkTable {
  private enum Storage {
    case empty
    case one(QueryRecordMachine.WorkID, QueryWork)
    case many([QueryRecordMachine.WorkID: QueryWork])
  }

  private var storage = Storage.empty

  /// Whether no unit of work is kept.
  var isEmpty: Bool {
    if case .empty = storage { true } else { false }
  }

  /// The unit of work `id`, if it is kept.
  subscript(id: QueryRecordMachine.WorkID) -> QueryWork? {
    switch storage {
    case .empty: nil
    case .one(let stored, let work): stored == id ? work : nil
    case .many(let works): works[id]
    }
  }

  /// Keeps `work` as the unit of work `id`, replacing one kept under it.
  mutating func insert(_ work: QueryWork, for id: QueryRecordMachine.WorkID) {
    switch storage {
    case .empty:
      storage = .one(id, work)
    case .one(let stored, let existing):
      storage = stored == id ? .one(id, work) : .many([stored: existing, id: work])
    case .many(var works):
      storage = .empty  // The table is uniquely referenced while it changes.
      works[id] = work
      storage = .many(works)
    }
  }

  /// Forgets the unit of work `id` and returns it, if it was kept; the table is freed with its last entry.
  mutating func remove(_ id: QueryRecordMachine.WorkID) -> QueryWork? {
    switch storage {
    case .empty:
      return nil
    case .one(let stored, let work):
      guard stored == id else { return nil }
      storage = .empty
      return work
    case .many(var works):
      storage = .empty  // The table is uniquely referenced while it changes.
      let removed = works.removeValue(forKey: id)
      storage = works.isEmpty ? .empty : .many(works)
      return removed
    }
  }
}
