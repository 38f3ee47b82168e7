import Foundation

extension QueryCacheEngine: FlushParticipant {
  var flushDescription: String { "the persisted query cache" }

  /// Writes the changes that wait for the throttle (or for a write under way), removals included, on the exiting
  /// thread, when the cache is kept by a ``FileQueryCachePersister``; a persister of the program's own can only be
  /// written by awaiting, so it is written by ``SharedRegistry/flush()`` and not here.
  ///
  /// It takes what waits under the engine's lock, releases it, reads and encodes the changed values (the program's
  /// `encode(to:)`, after every lock), and writes through the file store's ordered write with a number above every
  /// write started so far: a write still under way on the pool lands before it or is skipped after it. It appends a
  /// frame of the changed entries when the stored log takes one and no write is storing its bytes, and writes the
  /// whole cache otherwise (so that skipping that write, or torn bytes it leaves, lose nothing). A cache left with
  /// no entry is removed, as a write that empties it does, in the same order. The engine's own state is left as it
  /// is: the process is ending.
  func flushBeforeExit() throws {
    guard let pending = pendingAtExit(), let file = pending.options.persister as? FileQueryCachePersister else {
      return
    }
    let accesses = pending.keys.isEmpty ? [:] : store.store?.cacheAccesses(for: pending.keys) ?? [:]
    let encoder = JSONEncoder()
    let now = Date()
    var entries = pending.entries
    for (key, access) in accesses {
      switch access.read(encoder) {
      case .value(let data, let updatedAt, let fallback):
        guard let keyBytes = QueryKeyCoding.bytes(of: key) else { continue }
        entries[key] = QueryCacheEntry(
          key: key, keyBytes: Data(keyBytes), value: data, updatedAt: updatedAt, fallback: fallback,
          replacing: entries[key], now: now)
      case .noValue:
        entries[key] = nil
      case .failed:
        continue
      }
    }
    withExtendedLifetime(accesses) {}
    if pending.appends, !entries.isEmpty {
      // The changed entries appended after the stored log: a frame, as a write made now would append it.
      var puts: [QueryCacheEntry] = []
      var removals: [Data] = []
      for key in pending.keys.union(pending.dirty) {
        if let entry = entries[key] {
          puts.append(entry)
        } else if let bytes = Self.keyBytes(key) {
          removals.append(bytes)
        }
      }
      try file.appendNow(QueryCacheFormat.frame(putting: puts, removing: removals), sequence: pending.sequence)
      return
    }
    let oldest = now.addingTimeInterval(-pending.options.maxAge.timeInterval)
    let kept = entries.values.filter { !$0.isObtained(before: oldest) }
    guard !kept.isEmpty else {
      try file.removeNow(sequence: pending.sequence)
      return
    }
    try file.saveNow(
      QueryCacheFormat.encode(version: pending.options.version, savedAt: now, entries: kept),
      sequence: pending.sequence)
  }
}
