public import Synchronization

/// What a mutation changes in cached queries when it starts (see ``OptimisticMutation``): each change shows at
/// once in every holder of the query, lasts through the query's fetches and edits while the mutation runs, and is
/// dropped if the mutation fails or is cancelled.
///
/// ```swift
/// func insert(_ draft: Post, into cache: OptimisticCache) {
///   cache.update(["feed"], as: PaginatedState<Int, [Post]>.self) { feed in
///     if !feed.pages.isEmpty { feed.pages[0].insert(draft, at: 0) }
///   }
/// }
/// ```
///
/// The rule: a query keeps its confirmed value and the changes of the mutations under way, in the order the mutations
/// started, and shows the confirmed value with every pending change applied. Every write that is not an optimistic
/// change (a fetch's value, a page, ``QueryStore/update(_:as:_:)``, ``QueryStore/setFetchedValue(_:for:updatedAt:)``,
/// ``QueryStore/setFetchedState(for:startingWith:updatedAt:_:)``, a holder's `withLock`, a hydration, a restore) goes
/// to the confirmed value, and the value shown is recomputed. So a fetch cannot wipe a change out, an edit made
/// meanwhile is kept, and a page fetched meanwhile does not repeat a change.
///
/// - A change whose mutation fails or is cancelled is dropped, and the value recomputed: exactly that change goes,
///   every other mutation's change and every write made meanwhile stay. No undo step is needed.
/// - A change whose mutation succeeds becomes part of the confirmed value, and stays until a fetch (the refetch the
///   mutation's invalidation starts) brings the server's data.
/// - The changes are kept with the query, not with its value's box: they outlive a query that sleeps and wakes, and
///   a change made to a value restored from a persisted cache (``QueryStore/persistCache(_:)``) and not used yet
///   shows as soon as its query is made.
/// - The state's operation tracking (its status, `isFetching`) is always the confirmed value's.
///
/// The value persisted, dehydrated or read by a fetch's `isStale` rule is the confirmed value.
public struct OptimisticCache: Sendable {
  /// The store whose queries the changes are made to.
  @usableFromInline let store: QueryStore
  /// The changes made so far, to keep or drop when the mutation ends.
  @usableFromInline let changes = OptimisticChangeSet()
  /// Whether a change to a query the store keeps nothing of yet waits for it (a queued mutation's, which must show
  /// whichever of the persisted cache, the holders and the queue's restore comes first at launch).
  @usableFromInline let waitsForQuery: Bool

  init(store: QueryStore, waitsForQuery: Bool = false) {
    self.store = store
    self.waitsForQuery = waitsForQuery
  }

  /// Changes the cached state of the query named `key`, of state type `type`, as `apply` says, until the mutation
  /// ends.
  ///
  /// ```swift
  /// cache.update(["posts", post.id], as: OperationState<Post>.self) { $0.value?.title = title }
  /// ```
  ///
  /// `apply` runs now on the query's confirmed value with the other pending changes, and again each time the
  /// confirmed value is written, under the value's lock: it must only compute and write.
  ///
  /// - Parameters:
  ///   - key: The query's name.
  ///   - type: The query's state type: ``OperationState`` of the value, ``PaginatedState``, or a type of your own.
  ///   - apply: The change.
  /// - Returns: ``QueryUpdateResult/updated`` when the store keeps such a query with that state type, or a
  ///   persisted value waiting for it; otherwise the query is left alone and the result says why:
  ///   ``QueryUpdateResult/notCached`` (a normal outcome: a query nobody loaded has nothing to show the change in) or
  ///   ``QueryUpdateResult/typeMismatch(expected:found:)`` (a mistake, also recorded in
  ///   ``SharedRegistry/diagnostics`` and printed to standard error). A ``MutationQueue`` entry's change is kept
  ///   whatever the store keeps (and ``QueryUpdateResult/updated``): it shows in the query as soon as the query is
  ///   made, or restored from a persisted cache.
  @inlinable
  @discardableResult
  public func update<State: OperationTrackable>(
    _ key: QueryKey,
    as type: State.Type,
    _ apply: @escaping @Sendable (inout State) -> Void
  ) -> QueryUpdateResult {
    let id = OptimisticChangeSet.nextID.add(1, ordering: .relaxed).newValue
    guard let started = store.startChange(id, on: key, as: type, waitsForQuery: waitsForQuery, apply: apply) else {
      return store.missedUpdate(of: key, as: type)
    }
    // One object for both ends, which the closure uses as its context; the store is kept once, by the set.
    let ending = OptimisticChangeEnd(id: id, key: key, started: started)
    changes.append(OptimisticChangeSet.Change { keeps, store in ending.end(keeps: keeps, in: store) }, in: store)
    return .updated
  }

  /// Changes the cached state of the query named `key` as `update.apply` says, until the mutation ends.
  ///
  /// The same as ``update(_:as:_:)-(_,_,(State)->Void)`` with `update.apply`: a change that ends in failure or
  /// cancellation is dropped and the value recomputed, so `update.rollback` is not run on a cached query (it would
  /// undo the other mutations' changes made since, if it restored a value it captured). It is kept for
  /// ``Shared/run(_:policy:optimistic:isolation:_:onAttempt:onSuccess:onError:onSettled:)-(_,_,_,_,()->Value.Success,_,_,_,_)``
  /// on a value that is not a query.
  ///
  /// - Parameters:
  ///   - key: The query's name.
  ///   - type: The query's state type.
  ///   - update: The change (`apply`).
  /// - Returns: What the change did, as ``update(_:as:_:)-(_,_,(State)->Void)`` says.
  @inlinable
  @discardableResult
  public func update<State: OperationTrackable>(
    _ key: QueryKey,
    as type: State.Type,
    _ update: OptimisticUpdate<State>
  ) -> QueryUpdateResult {
    self.update(key, as: type, update.apply)
  }
}

/// How one change ends: kept or dropped in its query's value (see ``QueryStore/endChange(_:_:on:keeps:)``).
@usableFromInline
final class OptimisticChangeEnd<State: OperationTrackable>: Sendable {
  @usableFromInline let id: UInt64
  @usableFromInline let key: QueryKey
  @usableFromInline let started: QueryStore.StartedChange<State>

  @inlinable
  init(id: UInt64, key: QueryKey, started: QueryStore.StartedChange<State>) {
    self.id = id
    self.key = key
    self.started = started
  }

  /// The change's mutation ended: the change is kept (`keeps`) or dropped, in `store`, where it started.
  @inlinable
  func end(keeps: Bool, in store: QueryStore) {
    store.endChange(id, started, on: key, keeps: keeps)
  }
}

/// The changes one mutation made, to keep or undo once, when it ends.
@usableFromInline
final class OptimisticChangeSet: Sendable {
  @usableFromInline
  init() {}

  /// A change made, with what ending it does: keeping it (`true`) or undoing it, in the store it was made in.
  @usableFromInline
  struct Change: Sendable {
    let end: @Sendable (_ keeps: Bool, _ store: QueryStore) -> Void

    @usableFromInline
    init(end: @escaping @Sendable (_ keeps: Bool, _ store: QueryStore) -> Void) {
      self.end = end
    }
  }

  /// Identifies each change of every mutation, so that one value's changes never share an identifier.
  @usableFromInline static let nextID = Atomic<UInt64>(0)

  /// The changes made and the store they were made in (one store for all: a mutation's ``OptimisticCache`` has
  /// one), kept until the mutation ends, so that no change holds the store itself.
  private struct Contents {
    var store: QueryStore?
    var changes: [Change] = []
    var isEnded = false
  }

  private let state = Lock(Contents())

  /// Adds `change`, made in `store`.
  @usableFromInline
  func append(_ change: Change, in store: QueryStore) {
    let ended = state.withLock { state -> Bool in
      guard !state.isEnded else { return true }
      if state.store == nil { state.store = store }
      state.changes.append(change)
      return false
    }
    // A change made after its mutation ended (from a start step that outlived it) is undone at once.
    if ended { change.end(false, store) }
  }

  /// The mutation succeeded: every change stays. Only the first of `keep` and `undo` does anything.
  func keep() {
    guard let (store, changes) = end() else { return }
    for change in changes { change.end(true, store) }
  }

  /// The mutation failed or was cancelled: every change is undone, the latest first.
  func undo() {
    guard let (store, changes) = end() else { return }
    for change in changes.reversed() { change.end(false, store) }
  }

  /// The store and the changes made in it, the first time the mutation ends with a change made.
  private func end() -> (QueryStore, [Change])? {
    state.withLock { state -> (QueryStore, [Change])? in
      guard !state.isEnded else { return nil }
      state.isEnded = true
      guard let store = state.store else { return nil }
      defer { (state.store, state.changes) = (nil, []) }
      return (store, state.changes)
    }
  }
}
