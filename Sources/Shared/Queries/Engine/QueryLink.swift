import Synchronization

/// Which query a value belongs to, kept with the value so that ``Shared/refetch()`` and the page fetches can find it,
/// and a holder's write can tell the store (see ``announceWrite()``).
///
/// Not generic, so that code that knows only the value's type (a holder's `withLock`) finds it; the query's kind is
/// kept untyped and read as the state type the caller names.
@usableFromInline
final class QueryLink: Sendable {
  /// Not generic, so that an awaited fresh value reads it with no generic code (its kind is a `QueryKind<State>`).
  private let state = Lock<QueryLinkTarget?>(nil)

  @usableFromInline
  init() {}

  /// The store and the query, while the store exists, for a value of state type `State`.
  func target<State: OperationTrackable>(
    as _: State.Type
  ) -> (store: QueryStore, key: QueryKey, kind: QueryKind<State>)? {
    state.withLock { target in
      guard let target, let store = target.store else { return nil }
      // A value's link is linked with the kind of its own state type (see `link(to:key:kind:stopwatch:)`).
      return (store, target.key, target.kind as! QueryKind<State>)
    }
  }

  /// A holder wrote the value: the store hears it as it hears its own writes (the persisted cache writes it).
  @usableFromInline
  func announceWrite() {
    guard let (store, key, _) = record else { return }
    store.persistedValueChanged(key)
  }

  /// The store, the query's name and the time of its record, in one lock, while the store exists.
  @usableFromInline
  var record: (store: QueryStore, key: QueryKey, stopwatch: Stopwatch)? {
    state.withLock { target in
      // Read in place: copying the target would copy its weak reference.
      guard let store = target?.store, let key = target?.key, let stopwatch = target?.stopwatch else { return nil }
      return (store, key, stopwatch)
    }
  }

  /// The time of the record this value belongs to in `store`, if it is linked to one.
  func stopwatch(in store: QueryStore) -> Stopwatch? {
    state.withLock { target in target?.store === store ? target?.stopwatch : nil }
  }

  func link<State: OperationTrackable>(
    to store: QueryStore,
    key: QueryKey,
    kind: QueryKind<State>,
    stopwatch: Stopwatch
  ) {
    // The target replaced (its fetcher's captures) is released after the lock.
    state.withLockReleasingAfter { target in
      defer { target = QueryLinkTarget(store: store, key: key, kind: kind, stopwatch: stopwatch) }
      return (result: (), released: target)
    }
  }
}

/// The query a ``QueryLink`` names.
private struct QueryLinkTarget {
  /// Weak: the store holds the value, so the value must not hold the store.
  weak var store: QueryStore?
  let key: QueryKey
  /// The query's `QueryKind<State>`, of the value's state type.
  let kind: any Sendable
  /// The time of the query's record, so that a new holder reads its clock without asking the store.
  let stopwatch: Stopwatch
}
