import Synchronization

/// Where a ``QueryStore`` keeps its persisted-cache engine, made the first time the store persists or hydrates a
/// cache: a store that does neither pays one atomic load per place the engine would hear of.
final class QueryCacheSlot: Sendable {
  private let isMade = Atomic<Bool>(false)
  private let made = Lock<QueryCacheEngine?>(nil)

  init() {}

  /// The engine, if one was made.
  var engine: QueryCacheEngine? {
    guard isMade.load(ordering: .acquiring) else { return nil }
    return made.withLock { $0 }
  }

  /// The engine, made for `store` if there is none yet.
  func engine(makingFor store: QueryStore) -> QueryCacheEngine {
    made.withLock { made in
      if let made { return made }
      let engine = QueryCacheEngine(store: store)
      made = engine
      isMade.store(true, ordering: .releasing)
      return engine
    }
  }
}
