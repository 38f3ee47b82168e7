import Synchronization

/// Which query a value belongs to, kept with the value so that ``Shared/refetch()`` and the page fetches can find it.
@usableFromInline
final class QueryLink<State: OperationTrackable>: Sendable {
  /// Not generic, so that an awaited fresh value reads it with no generic code (its kind is a `QueryKind<State>`).
  private let state = Lock<QueryLinkTarget?>(nil)

  @usableFromInline
  init() {}

  /// The store and the query, while the store exists.
  var target: (store: QueryStore, key: QueryKey, kind: QueryKind<State>)? {
    state.withLock { target in
      guard let target, let store = target.store else { return nil }
      // Only `link(to:key:kind:epoch:)` stores a kind: a `QueryKind<State>`.
      return (store, target.key, target.kind as! QueryKind<State>)
    }
  }

  /// The store, the query's name and the time of its record, in one lock, while the store exists.
  @usableFromInline
  var record: (store: QueryStore, key: QueryKey, epoch: Stopwatch)? {
    state.withLock { target in
      // Read in place: copying the target would copy its weak reference.
      guard let store = target?.store, let key = target?.key, let epoch = target?.epoch else { return nil }
      return (store, key, epoch)
    }
  }

  /// The time of the record this value belongs to in `store`, if it is linked to one.
  func epoch(in store: QueryStore) -> Stopwatch? {
    state.withLock { target in target?.store === store ? target?.epoch : nil }
  }

  func link(to store: QueryStore, key: QueryKey, kind: QueryKind<State>, epoch: Stopwatch) {
    let replaced = state.withLock { target in
      defer { target = QueryLinkTarget(store: store, key: key, kind: kind, epoch: epoch) }
      return target
    }
    withExtendedLifetime(replaced) {}  // Its fetcher's captures are released after the lock.
  }
}

/// The query a ``QueryLink`` names.
private struct QueryLinkTarget {
  /// Weak: the store holds the value, so the value must not hold the store.
  weak var store: QueryStore?
  let key: QueryKey
  /// The query's `QueryKind<State>`.
  let kind: any Sendable
  /// The time of the query's record, so that a new holder reads its clock without asking the store.
  let epoch: Stopwatch
}
