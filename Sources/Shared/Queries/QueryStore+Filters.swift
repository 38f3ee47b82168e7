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
    if !filter.isExact, filter.predicate == nil, !filter.hasQueryConditions, refetching == .held {
      return invalidate(matching: filter.key)
    }
    let refetchesNow = refetching.refetchesNow
    let visited = forEachRecord(matching: filter, heard: .invalidated) { _, record in
      let action = record.invalidated(refetchesNow: refetchesNow)
      // A query that does not refetch only notes it: no generic planning.
      if case .none = action { return .none }
      return record.effect(of: action, store: self)
    }
    persistedValuesInvalidated(filter.persisted(visited.keys))
    return visited.count
  }

  // MARK: Refetching

  /// Fetches again now every query `filter` reaches; returns how many were asked to.
  ///
  /// ```swift
  /// let store = SharedRegistry.current.queries
  /// store.refetch(.prefix(["posts"]))                       // every cached post, held or not
  /// store.refetch(.prefix(["posts"]).only(.active).stale()) // the stale ones a screen shows
  /// store.refetch(.all.matching { query in query.status == .error })
  /// ```
  ///
  /// Each query refetches as ``refetch(_:)-(QueryKey)`` refetches one: it joins a refetch under way or asked for, a
  /// paginated query fetches every loaded page again, and a query nobody holds is fetched too (its value stays
  /// cached for its ``QueryOptions/gcTime``). A disabled query is refetched as well, as an explicit refetch of one
  /// is; narrow the filter with ``QueryFilter/matching(_:)`` and ``QueryFilter/Candidate/isEnabled`` to leave it.
  /// Unlike ``invalidate(_:refetching:)``, nothing is marked stale: a query that is not refetched keeps its
  /// freshness.
  ///
  /// The filter's predicates are your code: they run on the calling thread, outside the store's lock. A query
  /// removed or made again while they run is left alone and not counted.
  ///
  /// - Parameter filter: Which queries: a prefix or an exact key, and optionally their type, staleness, fetch
  ///   status and predicates.
  /// - Returns: How many queries were asked to refetch.
  @discardableResult
  public func refetch(_ filter: QueryFilter) -> Int {
    forEachRecord(matching: filter) { state, record in
      self.use(record, in: &state)
      return record.refetch(store: self)
    }.count
  }

  /// How many of the queries `filter` reaches are fetching now: TanStack Query's `isFetching(filters)`.
  ///
  /// ```swift
  /// let store = SharedRegistry.current.queries
  /// if store.fetchingCount(.prefix(["posts"]).only(.active)) > 0 { showSpinner() }
  /// ```
  ///
  /// A query counts while its ``OperationTracking/isFetching`` is `true` (a fetch, a refetch, a page fetch, a retry
  /// or its wait; not a fetch paused for the network; a fetch status the filter names is replaced). It reads the store once: to follow the count as it
  /// changes, observe ``activity(matching:)`` (a key prefix), which counts the same fetches.
  ///
  /// - Parameter filter: Which queries; ``QueryFilter/all`` for every one.
  /// - Returns: How many of them are fetching.
  public func fetchingCount(_ filter: QueryFilter) -> Int {
    acceptedCandidates(of: filter.fetchStatus(.fetching)).count
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
    persistedValuesRemoved(filter.persisted(visited.keys))
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
  /// Holders keep showing the state they have, detached from the store: invalidations, ``refetch(_:)-(QueryKey)`` and
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
    persistedValuesRemoved(filter.persisted(visited.keys))
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
  ) -> (count: Int, acted: Int, keys: [QueryKey]) {
    // The keys are gathered for an attached inspector, and for a filter with query conditions (the persisted cache
    // follows the queries visited, not every key under the filter's).
    let inspects = (heard != nil && services.inspector.isAttached) || filter.hasQueryConditions
    var keys: [QueryKey] = []
    let effects: [QueryRecordEffect]
    if filter.predicate != nil || filter.hasQueryConditions {
      let accepted = acceptedCandidates(of: filter)
      guard !accepted.isEmpty else { return (0, 0, []) }
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
    if let heard, !keys.isEmpty, services.inspector.isAttached {
      inspected(onlyActed ? zip(keys, effects).filter { !$0.1.isNone }.map(\.0) : keys, heard)
    }
    var acted = 0
    for effect in effects where !effect.isNone {
      acted += 1
      effect()
    }
    return (effects.count, acted, filter.hasQueryConditions ? keys : [])
  }

  /// The keys (with their records' times) of the queries `filter` reaches: the key part and the records' parts under
  /// the lock, then, after it, the key predicate, and the query conditions on what each query shows (reading its
  /// value and its clock). A caller that acts on them checks under the lock again that each record is still the one
  /// listed (``Stopwatch/isSame(as:)``).
  func acceptedCandidates(of filter: QueryFilter) -> [(key: QueryKey, stopwatch: Stopwatch)] {
    let conditions = filter.hasQueryConditions
    var listed = state.withLock { state in
      Self.records(matching: filter, in: state).map { record in
        (key: record.key, stopwatch: record.stopwatch, parts: conditions ? record.filterParts() : nil)
      }
    }
    // What each query shows is read first, and the parts let go of the values they hold before any predicate runs:
    // a query removed and made again by a predicate must not find its old value still held here, which would give
    // the new record the old one's time and so pass it for the query listed.
    let candidates = listed.map { $0.parts?.candidate() }
    let keys = listed.map { (key: $0.key, stopwatch: $0.stopwatch) }
    listed.removeAll()
    var accepted: [(key: QueryKey, stopwatch: Stopwatch)] = []
    for (listedKey, candidate) in zip(keys, candidates) {
      if let predicate = filter.predicate, !predicate(listedKey.key) { continue }
      if let candidate, !filter.accepts(candidate) { continue }
      accepted.append(listedKey)
    }
    return accepted
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

extension QueryFilter {
  /// The filter the persisted cache follows after a verb visited `visited` with this filter: this one, or, with
  /// query conditions (which the cache's entries cannot be tested on), exactly the keys visited.
  func persisted(_ visited: [QueryKey]) -> QueryFilter {
    guard hasQueryConditions else { return self }
    let keys = Set(visited)
    return QueryFilter(key: key, isExact: isExact) { keys.contains($0) }
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
