/// The mutation queue's rules in the reference model.
///
/// A queued entry's optimistic change is a pending change like a mutation's (kept in ``SimulationModel/changes``,
/// numbered `-(entry + 1)` so that it is told apart from the mutations), made when the entry is queued, or read back
/// at a relaunch, whatever the store keeps of its query: it waits for the query, and shows once the query is made or
/// restored. It stays until the entry leaves the queue: kept when its run succeeded (then its query is invalidated),
/// dropped when it is discarded.
extension SimulationModel {
  static func queueChangeID(_ entry: Int) -> Int { -(entry + 1) }

  /// Entry `entry` is queued (or read back at a relaunch) with its change appending `item` to query `key`.
  mutating func queueEntryAdded(_ entry: Int, key: Int, item: Int) {
    endedItems.remove(item)
    if queries[key].exists { queries[key].maybeUsedAt = now }
    changes.append(Change(mutation: Self.queueChangeID(entry), key: key, item: item, status: .pending))
  }

  /// Entry `entry` left the queue after its run succeeded: its change stays until a fetch brings the server's data,
  /// and its query is invalidated.
  mutating func queueEntrySucceeded(_ entry: Int, key: Int, item: Int, step: Int) {
    if let index = changes.firstIndex(where: { $0.mutation == Self.queueChangeID(entry) }) {
      changes[index].status = .succeeded
    }
    ambiguous[key].insert(item)
    invalidate(key, step: step)
  }

  /// Entry `entry` was discarded (or lost at a crash before it was written): its change is dropped.
  mutating func queueEntryDropped(_ entry: Int, key: Int, item: Int) {
    changes.removeAll { $0.mutation == Self.queueChangeID(entry) }
    ambiguous[key].remove(item)
    endedItems.insert(item)
  }
}
