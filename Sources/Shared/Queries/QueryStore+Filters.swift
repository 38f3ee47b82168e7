extension QueryStore {
  // MARK: Invalidation choices

  /// Marks the queries `filter` reaches as stale, and refetches now those that `refetching` names.
  ///
  /// ```swift
  /// let store = SharedRegistry.current.queries
  /// store.invalidate(.exactly(["posts", 42]))                     // that post only, not its comments
  /// store.invalidate(.prefix(["posts"]), refetching: .all)        // held or not, fetch them now
  /// store.invalidate(.prefix(["posts"]).satisfying { key in key.parts.count == 2 }, refetching: .none)
  /// ```
  ///
  /// With ``QueryRefetchScope/held`` (the default), queries with holders refetch now and the others when next needed,
  /// as ``invalidate(matching:)`` does. A fetch under way is followed by another, so a held query ends on a value
  /// fetched after the invalidation.
  ///
  /// A filter's predicate is your code: it runs on the calling thread, outside the store's lock, once per query the
  /// filter's key reaches. A query that is removed or made again while it runs is left alone.
  ///
  /// - Parameters:
  ///   - filter: Which queries: a prefix, an exact key, and optionally a predicate on the key.
  ///   - refetching: Which of them fetch again now: the held ones, all of them, or none.
  /// - Returns: How many queries were marked.
  @discardableResult
  public func invalidate(_ filter: QueryFilter, refetching: QueryRefetchScope = .held) -> Int {
    if !filter.isExact, filter.predicate == nil, refetching == .held { return invalidate(matching: filter.key) }
    let refetchesNow = refetching.refetchesNow
    let visited = forEachRecord(matching: filter, heard: .invalidated) { _, record in
      let action = record.invalidated(refetchesNow: refetchesNow)
      // A query that does not refetch only notes it: no generic planning.
      if case .none = action { return .none }
      return record.effect(of: action, store: self)
    }
    persistedValuesInvalidated(filter)
    return visited.count
  }

  // MARK: Cancelling, resetting, removing

  /// Cancels the fetches of the queries `filter` reaches, putting back the status each showed before.
  ///
  /// ```swift
  /// store.cancel(.prefix(["posts"]))   // before an optimistic update, so no fetch overwrites it
  /// store.update(["posts", 42], as: OperationState<Post>.self) { $0.value?.title = "Edited" }
  /// ```
  ///
  /// A fetch under way is cancelled (its fetcher sees the task's cancellation) and the query's status goes back to
  /// the one it replaced, with the value it had; fetches waiting their turn (page fetches, a refetch) never run.
  /// Everyone awaiting one of them, ``fetch(_:servingStale:)->Value`` callers and page fetch tasks alike, gets a
  /// `CancellationError`. No fetch follows from the cancel: the query stays as it was (stale, if it was
  /// invalidated), and fetches again when a holder, a caller, a refetch or an invalidation next asks. A fetch whose
  /// value is already being written is not stopped.
  ///
  /// - Parameter filter: Which queries.
  /// - Returns: How many queries had a fetch cancelled.
  @discardableResult
  public func cancel(_ filter: QueryFilter) -> Int {
    forEachRecord(matching: filter, heard: .cancelled, onlyActed: true) { _, record in
      record.stopFetches(removing: false)
    }.acted
  }

  /// Puts the queries `filter` reaches back in their initial state, and fetches the held ones again.
  ///
  /// ```swift
  /// store.reset(.prefix(["posts"]))   // after switching accounts: show a first load, not the other account's posts
  /// ```
  ///
  /// Each query's value goes back to its initial state (``OperationTrackable/resetToInitialState()``: no value,
  /// status idle, no error, no failures), its fetches under way are cancelled as ``cancel(_:)`` cancels them (everyone
  /// awaiting one gets a `CancellationError`), and nothing fetched before counts as fresh any more. A query with
  /// holders fetches again at once (a first load, pending); the others fetch when a holder or a caller next asks.
  /// Queries nobody used lately, whose value the store keeps without a box, are reset too. A disabled query is
  /// reset and fetches only when asked to.
  ///
  /// A fetch whose value is already being written when the reset comes is not stopped: the query is reset right
  /// after that write, which counts as nothing fetched.
  ///
  /// - Parameter filter: Which queries.
  /// - Returns: How many queries were reset.
  @discardableResult
  public func reset(_ filter: QueryFilter) -> Int {
    let visited = forEachRecord(matching: filter, heard: .reset) { _, record in record.reset(store: self) }
    persistedValuesRemoved(filter)
    return visited.count
  }

  /// Removes the queries `filter` reaches from the store.
  ///
  /// ```swift
  /// store.remove(.prefix(["users", userID]))   // after signing out: nothing of the user stays cached
  /// ```
  ///
  /// The store forgets each query at once, as garbage collection would after ``QueryOptions/gcTime``: a value
  /// nobody holds is released (after the lock), and its fetch under way is cancelled, as ``cancel(_:)`` does. A
  /// fetched value whose write had not landed when the removal came is dropped: holders never see a fetch under
  /// way after the removal.
  ///
  /// Holders keep showing the state they have, detached from the store: invalidations, ``refetch(_:)`` and
  /// ``Shared/refetch()`` no longer reach them, and ``Shared/fetchValue(servingStale:)->Success?`` returns `nil`. The query is
  /// made again, and fetched, when a new holder appears or a caller asks the store for it; a new holder shares the
  /// value the current holders show.
  ///
  /// - Parameter filter: Which queries.
  /// - Returns: How many queries were removed.
  @discardableResult
  public func remove(_ filter: QueryFilter) -> Int {
    let visited = forEachRecord(matching: filter, heard: .removed) { state, record in
      guard state.root.node(at: record.key.parts)?.record === record else { return .none }
      let stop = record.stopFetches(removing: true)
      state.remove(record)  // From the tree and the recency list.
      // The record, and the value it keeps, are released with this effect: after the lock.
      return stop.then(QueryRecordEffect(.release(record)))
    }
    persistedValuesRemoved(filter)
    return visited.count
  }

  /// Publishes `kind` for each of `keys` to the inspector (`keys` is empty unless one is attached).
  func inspected(_ keys: [QueryKey], _ kind: @autoclosure () -> InspectionEvent.Kind) {
    guard !keys.isEmpty else { return }
    let event = kind()
    // In the order of their identities: the store's tree keeps no order of its own.
    for id in keys.map(InspectedKey.id(query:)).sorted() { services.inspector.publish(id, event) }
  }

  // MARK: Visiting

  /// Calls `act` under the lock with each query `filter` reaches, then performs what it returns after the lock;
  /// returns how many queries it was called with, and how many of those returned something to perform.
  ///
  /// Without a predicate it takes one lock. With one, the candidates' keys and clocks are collected under the lock,
  /// the predicate (the app's code) runs after it, and `act` runs under the lock again with each accepted query
  /// that is still the one collected (the same key and record time), as ``refetchStale(matching:)`` does.
  /// Visits the records `filter` matches under the store's lock, then performs what each visit returned; an attached
  /// inspector hears `heard` for each query visited (`onlyActed`: each whose visit returned something to perform),
  /// after the lock and before the effects.
  @discardableResult
  func forEachRecord(
    matching filter: QueryFilter,
    heard: InspectionEvent.Kind? = nil,
    onlyActed: Bool = false,
    _ act: @Sendable (inout Records, any QueryRecordProtocol) -> QueryRecordEffect
  ) -> (count: Int, acted: Int) {
    // The keys are gathered for an attached inspector only.
    let inspects = heard != nil && services.inspector.isAttached
    var keys: [QueryKey] = []
    let effects: [QueryRecordEffect]
    if let predicate = filter.predicate {
      let candidates = state.withLock { state in
        Self.records(matching: filter, in: state).map { (key: $0.key, stopwatch: $0.stopwatch) }
      }
      let accepted = candidates.filter { predicate($0.key) }
      guard !accepted.isEmpty else { return (0, 0) }
      effects = state.withLock { state in
        accepted.compactMap { candidate -> QueryRecordEffect? in
          guard let record = state.record(named: candidate.key),
            record.stopwatch.isSame(as: candidate.stopwatch)
          else { return nil }
          if inspects { keys.append(record.key) }
          return act(&state, record)
        }
      }
    } else {
      effects = state.withLock { state in
        Self.records(matching: filter, in: state).map { record in
          if inspects { keys.append(record.key) }
          return act(&state, record)
        }
      }
    }
    if let heard, !keys.isEmpty {
      inspected(onlyActed ? zip(keys, effects).filter { !$0.1.isNone }.map(\.0) : keys, heard)
    }
    var acted = 0
    for effect in effects where !effect.isNone {
      acted += 1
      effect()
    }
    return (effects.count, acted)
  }

  /// The queries `filter`'s key reaches, without its predicate; call under the lock.
  private static func records(
    matching filter: QueryFilter,
    in state: borrowing Records
  ) -> [any QueryRecordProtocol] {
    guard let node = state.root.node(at: filter.key.parts) else { return [] }
    if filter.isExact { return node.record.map { [$0] } ?? [] }
    var records: [any QueryRecordProtocol] = []
    node.visitRecords { records.append($0) }
    return records
  }
}

extension QueryRefetchScope {
  /// Whether an invalidated query refetches now, as ``QueryRecordProtocol/invalidated(refetchesNow:)`` takes it:
  /// `nil` for "if it is held".
  var refetchesNow: Bool? {
    switch self {
    case .held: nil
    case .all: true
    case .none: false
    }
  }
}
