import Synchronization

/// Where a ``QueryStore`` keeps its persisted-cache engine, made the first time the store persists or hydrates a
/// cache: a store that does neither pays one atomic load per place the engine would hear of.
final class QueryCacheSlot: Sendable {
  private let made = AtomicLazyReference<QueryCacheEngine>()

  init() {}

  /// The engine, if one was made.
  var engine: QueryCacheEngine? {
    made.load()
  }

  /// The engine, made for `store` if there is none yet.
  func engine(makingFor store: QueryStore) -> QueryCacheEngine {
    if let engine = made.load() { return engine }
    return made.storeIfNil(QueryCacheEngine(store: store))
  }
}
