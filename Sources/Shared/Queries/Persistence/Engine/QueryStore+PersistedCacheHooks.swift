import Foundation

/// Where the store's paths meet its persisted cache: each is one atomic load for a store that neither persists nor
/// hydrated a cache.
extension QueryStore {
  // MARK: Restored values

  /// `query`, starting from the value the persisted cache holds for its key (as ``Query/initialState(_:updatedAt:)``
  /// starts from a state), when the store keeps no query under the key and the cached value is more recent than the
  /// query's own initial state. Decodes the value here: call outside every lock. A value that does not decode as the
  /// query's is dropped and reported, and the query starts as if none was stored.
  func restoringPersistedValue<State: OperationTrackable>(_ query: Query<State>) -> Query<State> {
    guard let engine = persistedCache.engine, let entry = engine.entry(for: query.key) else { return query }
    if let initial = query.initial, initial.updatedAt >= entry.updatedAt { return query }
    // A query that sleeps keeps its own value: only a new record starts from the cache.
    guard !contains(query.key) else { return query }
    guard let type = State.self as? any PersistableQueryState.Type else {
      engine.drop(
        entry,
        because: .undecodableValue(
          key: query.key,
          reason:
            "the query's state, \(State.self), is neither an OperationState of a Codable value nor a PaginatedState "
            + "of Codable page identifiers and pages"))
      return query
    }
    do {
      guard let state = try type.restoredState(from: entry.value, with: engine.decoder) as? State else {
        return query
      }
      // A paginated query keeps at most its maxPages of the restored pages.
      let kept = query.kind.kept(restored: state)
      return query.restoring(kept, updatedAt: entry.updatedAt, isInvalidated: entry.isInvalidated)
    } catch {
      engine.drop(entry, because: .undecodableValue(key: query.key, reason: String(describing: error)))
      return query
    }
  }

  /// The value the persisted cache holds for `key`, decoded as `Value`; for a key whose query the store does not keep
  /// with a value (a query made from the cache, or given one by a hydration, has it already).
  func persistedValue<Value: Sendable>(for key: QueryKey, as _: Value.Type) -> Value? {
    guard let engine = persistedCache.engine, let value = engine.storedValue(for: key) else { return nil }
    return Self.decode(value, as: Value.self, with: engine.decoder)
  }

  /// The values the persisted cache holds under `prefix`, decoded as `Value`, for the keys the store keeps no query
  /// under.
  func persistedValues<Value: Sendable>(matching prefix: QueryKey, as _: Value.Type) -> [(key: QueryKey, value: Value)]
  {
    guard let engine = persistedCache.engine else { return [] }
    let entries = engine.entries(under: prefix)
    guard !entries.isEmpty else { return [] }
    let kept = Set(recordKeys(under: prefix))
    return entries.compactMap { entry in
      guard !kept.contains(entry.key), let value = Self.decode(entry.value, as: Value.self, with: engine.decoder)
      else {
        return nil
      }
      return (entry.key, value)
    }
  }

  /// `json` as a `Value`, if `Value` is `Decodable` and the JSON decodes as one.
  private static func decode<Value>(_ json: Data, as _: Value.Type, with decoder: JSONDecoder) -> Value? {
    guard let decodable = Value.self as? any Decodable.Type else { return nil }
    // Opened, so that the value is decoded as its own type and never boxed in an existential on its way back.
    func decode<Decoded: Decodable>(_: Decoded.Type) -> Value? {
      guard let decoded = try? decoder.decode(Decoded.self, from: json) else { return nil }
      // `Decoded` is `Value` itself, opened from its metatype: returned as it is, with no dynamic cast.
      return unsafeBitCast(decoded, to: Value.self)
    }
    return decode(decodable)
  }

  // MARK: Changes

  /// The store wrote the value of the query named `key` (a fetch's, one the program set, an edit).
  func persistedValueChanged(_ key: QueryKey) {
    persistedCache.engine?.valueChanged(key)
  }

  /// The queries `filter` reaches were removed or reset: their persisted values go too.
  func persistedValuesRemoved(_ filter: QueryFilter) {
    persistedCache.engine?.removed(filter)
  }

  /// The collected `records` (unused for their `gcTime`, or over the capacity) hand their values to the persisted
  /// cache when a change of theirs waits for a write: the write could no longer read it. Call after the lock, before
  /// the records are released.
  func persistedValuesCollected(_ records: [any QueryRecordProtocol]) {
    guard !records.isEmpty, let engine = persistedCache.engine else { return }
    let waiting = engine.waitingKeys(among: records.map(\.key))
    guard !waiting.isEmpty else { return }
    // The records are this call's own (out of the tree, released by the caller after it): read under the lock, as
    // ``cacheAccesses(for:)`` reads the records it finds, and their accesses used after it, as that one's are.
    struct Accesses: @unchecked Sendable {
      var byKey: [QueryKey: QueryCacheAccess] = [:]
    }
    let accesses = state.withLock { _ -> Accesses in
      var accesses = Accesses()
      for record in records where waiting.contains(record.key) {
        guard let persistable = record as? any PersistableQueryRecord else { continue }
        accesses.byKey[record.key] = persistable.cacheAccess(store: self)
      }
      return accesses
    }
    engine.collected(accesses.byKey)
  }

  /// The queries `filter` reaches were invalidated: their persisted values say so.
  func persistedValuesInvalidated(_ filter: QueryFilter) {
    persistedCache.engine?.invalidated(filter)
  }

  // MARK: Reading and setting values

  /// The keys of the queries the store keeps under `prefix`.
  func recordKeys(under prefix: QueryKey) -> [QueryKey] {
    state.withLock { state in
      var keys: [QueryKey] = []
      state.root.node(at: prefix.parts)?.visitRecords { keys.append($0.key) }
      return keys
    }
  }

  /// How to read the values of the queries named `keys` that the store keeps and the cache can hold.
  func cacheAccesses(for keys: Set<QueryKey>) -> [QueryKey: QueryCacheAccess] {
    state.withLock { state in
      var accesses: [QueryKey: QueryCacheAccess] = [:]
      for key in keys {
        guard let record = state.record(named: key) as? any PersistableQueryRecord else { continue }
        accesses[key] = record.cacheAccess(store: self)
      }
      return accesses
    }
  }

  /// How to read the values of the queries under `prefix` that the store keeps and the cache can hold.
  func cacheAccesses(under prefix: QueryKey) -> [(key: QueryKey, access: QueryCacheAccess)] {
    state.withLock { state in
      var accesses: [(key: QueryKey, access: QueryCacheAccess)] = []
      state.root.node(at: prefix.parts)?.visitRecords { record in
        guard let persistable = record as? any PersistableQueryRecord else { return }
        accesses.append((record.key, persistable.cacheAccess(store: self)))
      }
      return accesses
    }
  }

  /// Puts `entries` in: into the queries the store keeps (unless their own values are as recent), and into `engine`
  /// for the others, whose queries start from them when first used. Returns how many were put in, and the problems
  /// met.
  func hydrate(_ entries: [QueryCacheEntry], engine: QueryCacheEngine) -> (restored: Int, problems: [QueryCacheProblem])
  {
    enum Found {
      case absent
      case otherType
      case present(QueryCacheAccess)
    }
    // A store restored at launch keeps no query yet: nothing to look up.
    if state.withLock({ $0.count == 0 }) { return (engine.insert(entries), []) }
    let found = state.withLock { state in
      entries.map { entry -> (QueryCacheEntry, Found) in
        guard let record = state.record(named: entry.key) else { return (entry, .absent) }
        guard let persistable = record as? any PersistableQueryRecord else { return (entry, .otherType) }
        return (entry, .present(persistable.cacheAccess(store: self)))
      }
    }
    var absent: [QueryCacheEntry] = []
    absent.reserveCapacity(entries.count)
    var restored = 0
    var problems: [QueryCacheProblem] = []
    let decoder = engine.decoder
    for (entry, found) in found {
      switch found {
      case .absent:
        absent.append(entry)
      case .otherType:
        problems.append(
          .undecodableValue(key: entry.key, reason: "the store keeps a query of another state type under this key"))
      case .present(let access):
        switch access.restore(entry, decoder) {
        case .restored: restored += 1
        case .keptNewer: break
        case .failed(let problem): problems.append(problem)
        }
      }
    }
    return (restored + engine.insert(absent), problems)
  }
}

extension Query {
  /// This query, starting from `state`, restored from a persisted cache: a success obtained at `updatedAt`, stale
  /// whatever its age if it was invalidated after that.
  func restoring(_ state: State, updatedAt: Date, isInvalidated: Bool) -> Query {
    var query = Query(
      key: key, options: usesDefaultOptions ? nil : options, fetcher: fetcher, fetcherLocation: fetcherLocation,
      kind: kind, initial: QueryInitialState(state, updatedAt: updatedAt, isInvalidated: isInvalidated))
    query.staleness = staleness
    return query
  }
}
