/// What went wrong with a persisted query cache. None of these stops the app: a cache that cannot be read is
/// dropped, a value that cannot be stored is left out, and a failed write is tried again.
///
/// ```swift
/// let persistence = QueryCachePersistence(persister: .file(cacheURL), onProblem: { problem in
///   log("query cache: \(problem)")
/// })
/// ```
///
/// ``QueryStore/persistCache(_:)`` returns the problem that made it drop a stored cache, in
/// ``QueryCacheRestore/problem``; ``QueryCachePersistence/onProblem`` hears of every problem, as it happens; and
/// ``QueryStore/flushPersistedCache()`` throws the error of the write it waited for.
public enum QueryCacheProblem: Error, Sendable, Hashable, CustomStringConvertible {
  /// The persister could not load the cache (``QueryCachePersister/load()`` threw): the store starts without it,
  /// and the next write replaces it.
  case unreadable(reason: String)
  /// The cache's file is in use by another process (see ``FileQueryCachePersister``): this store neither restores
  /// nor writes it, and keeps its queries in memory only. Call ``QueryStore/persistCache(_:)`` again once the other
  /// process is gone, or give each process a file of its own.
  case inUse(reason: String)
  /// The stored bytes are not a cache: its header is damaged or cut short, or they are something else altogether.
  /// The cache is dropped, and replaced at the next write. (A cache whose end only is damaged is restored up to there:
  /// ``cutShort(droppedBytes:reason:)``.)
  case corrupt(reason: String)
  /// The end of the stored cache was cut short or damaged (a write torn by a kill or a power loss): the changes
  /// before it are restored, the last `droppedBytes` bytes are not, and the next write saves the whole cache again.
  case cutShort(droppedBytes: Int, reason: String)
  /// The cache was written in a layout this version of the library does not read (a later version wrote it). It
  /// is dropped.
  case unsupportedFormat(Int)
  /// The cache was written for another ``QueryCachePersistence/version`` of the app: it is dropped as a whole.
  case versionMismatch(stored: String, expected: String)
  /// Saving the cache failed (``QueryCachePersister/save(_:)`` or ``QueryCachePersister/remove()`` threw). The
  /// values stay in memory; the next change or flush writes them again.
  case unwritable(reason: String)
  /// A stored value did not decode as the value of the query that asked for it (its type changed, and the
  /// ``QueryCachePersistence/version`` did not): the value is dropped, and the query fetches as if none was stored.
  case undecodableValue(key: QueryKey, reason: String)
  /// A query's value could not be encoded (its `encode(to:)` threw): that query is not persisted.
  case unencodableValue(key: QueryKey, reason: String)
  /// A query's key has a part of a type a cache cannot hold (see ``PersistedQueryCache/Entry/key``): the query is
  /// not persisted.
  case unsupportedKey(QueryKey)

  /// A sentence naming the problem and what was done about it.
  public var description: String {
    switch self {
    case .unreadable(let reason): "The query cache could not be loaded (\(reason)); the store starts without it."
    case .inUse(let reason):
      "The query cache's file is in use (\(reason)); this store does not restore or write it."
    case .corrupt(let reason): "The stored query cache is not valid (\(reason)); it was dropped."
    case .cutShort(let droppedBytes, let reason):
      "The end of the stored query cache was cut short (\(reason)); its last \(droppedBytes) bytes were dropped "
        + "and the changes before them restored."
    case .unsupportedFormat(let format):
      "The stored query cache has layout \(format), which this version of the library does not read; it was dropped."
    case .versionMismatch(let stored, let expected):
      "The stored query cache is of version \"\(stored)\", not \"\(expected)\"; it was dropped."
    case .unwritable(let reason):
      "The query cache could not be saved (\(reason)); it is kept in memory and saved again at the next change."
    case .undecodableValue(let key, let reason):
      "The stored value of query \(key) does not decode as its value (\(reason)); it was dropped."
    case .unencodableValue(let key, let reason):
      "The value of query \(key) cannot be encoded (\(reason)); it is not persisted."
    case .unsupportedKey(let key):
      "Query \(key) has a key part of a type a query cache cannot hold; it is not persisted."
    }
  }
}
