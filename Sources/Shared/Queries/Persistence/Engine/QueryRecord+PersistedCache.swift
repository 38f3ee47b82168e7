import Foundation

/// A cached query whose value the persisted cache can hold: the record of an ``OperationState`` of a `Codable`
/// value. The store finds such records with a dynamic cast, under its lock.
protocol PersistableQueryRecord: AnyObject {
  /// What the persisted cache needs to read the query's value, or to set a restored one, after the store's lock.
  /// Call under the store's lock.
  func cacheAccess(store: QueryStore) -> QueryCacheAccess
}

/// How the persisted cache reads one query's value and sets a restored one: made under the store's lock, used after
/// it (it keeps the value's box, or the value of a query that sleeps, until then).
struct QueryCacheAccess {
  /// Reads the value the store wrote (without the optimistic changes of mutations under way), encodes it, and says
  /// when it was obtained. Runs the value's `encode(to:)` and the query's clock: call after every lock.
  let read: (JSONEncoder) -> QueryCacheRead
  /// Sets the value of `entry` (decoding it here) unless the query's own value is as recent; call after every lock.
  let restore: (QueryCacheEntry, JSONDecoder) -> QueryCacheRestoreOutcome
}

/// What reading a query's value for the persisted cache found.
enum QueryCacheRead {
  /// The value as JSON, obtained at `updatedAt`; a value invalidated since has no time of its own
  /// (`updatedAt` `nil`): it keeps the time it had, or `fallback`.
  case value(Data, updatedAt: Date?, fallback: Date?)
  /// The query has no value (none fetched yet, or reset).
  case noValue
  /// The value could not be encoded.
  case failed(QueryCacheProblem)
}

/// What setting a restored value did.
enum QueryCacheRestoreOutcome {
  case restored
  /// The query has a value obtained at the same time or later: it was kept.
  case keptNewer
  case failed(QueryCacheProblem)
}

extension QueryRecord: PersistableQueryRecord where State: PersistableQueryState {
  func cacheAccess(store: QueryStore) -> QueryCacheAccess {
    let kept = keptValue
    // A sleeping value shows the optimistic changes pending on it; their layer keeps the value without them.
    let confirmedWhileSleeping = kept.sleeping == nil ? nil : store.changes.layer(for: key, as: State.self)?.confirmed
    let fetchedAt = self.fetchedAt
    let stopwatch = self.stopwatch
    let query = self.query
    // A query whose values decide their own staleTime stores the time their freshness counts from (see
    // `PersistedQueryCache.Entry.updatedAt`), which only the record's time knows; so does a paginated query, whose
    // pages are as old as their last fetch of every page (or first page), whatever pages were added since.
    let storesOwnDate = definition.staleness == nil && !query.kind.isPaginated
    let owner = WeakQueryStore(store: store)
    /// The value as the store last wrote it, and the time it was obtained on the wall clock (`nil` once invalidated).
    let current = { () -> (state: State, obtainedAt: Date?)? in
      guard let state = kept.root.map(Self.confirmedState(of:)) ?? confirmedWhileSleeping ?? kept.sleeping else {
        return nil
      }
      // The value's own `dataUpdatedAt`, exactly: a fetch, a set value and a restore write it as the record counts
      // the value fetched (its `updatedAt` also moves when a refetch starts or fails, so it is not the value's
      // date). Otherwise the value is dated by its age on the record's time (read after the lock).
      let obtainedAt = fetchedAt.map { fetchedAt in
        (storesOwnDate ? state.operation.dataUpdatedAt : nil)
          ?? Date(timeIntervalSinceNow: -(stopwatch.elapsed() - fetchedAt).timeInterval)
      }
      return (state, obtainedAt)
    }
    return QueryCacheAccess(
      read: { encoder in
        guard let current = current() else { return .noValue }
        do {
          guard let data = try current.state.encodedValue(with: encoder) else { return .noValue }
          return .value(data, updatedAt: current.obtainedAt, fallback: current.state.operation.dataUpdatedAt)
        } catch {
          return .failed(.unencodableValue(key: query.key, reason: String(describing: error)))
        }
      },
      restore: { entry, decoder in
        guard let store = owner.store else { return .keptNewer }
        if let current = current(), current.state.hasValue,
          (current.obtainedAt ?? current.state.operation.dataUpdatedAt ?? .distantPast) >= entry.updatedAt
        {
          return .keptNewer
        }
        let restored: State
        do {
          // A paginated query keeps at most its maxPages of the restored pages.
          restored = query.kind.kept(restored: try State.restoredState(from: entry.value, with: decoder))
        } catch {
          return .failed(.undecodableValue(key: entry.key, reason: String(describing: error)))
        }
        store.setFetchedState(for: query, startingWith: restored, updatedAt: entry.updatedAt) {
          $0.takeValue(from: restored)
        }
        if entry.isInvalidated { store.invalidate(.exactly(entry.key)) }
        return .restored
      })
  }

  /// The value in `root` as the store last wrote it: without the changes of mutations under way, which are
  /// shown over it (see ``OptimisticLayer``).
  private static func confirmedState(of root: SharedRoot<State>) -> State {
    root.box.withAttachment(AttachedLayer<State>.self) { $0?.layer.confirmed } ?? root.box.value
  }
}
