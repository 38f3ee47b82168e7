import Foundation

extension QueryStore {
  // MARK: Awaiting values

  /// The time of the record of `query`, made with no holder (and nothing fetched) if the store keeps none; `nil`
  /// when the store keeps a query of another state type under its key.
  func recordStopwatch<Value: Sendable>(of query: Query<OperationState<Value>>) -> Stopwatch? {
    var made: Shared<OperationState<Value>>?
    return recordStopwatch(of: query, keeping: &made)
  }

  /// The time of the record of `query`, made with no holder (and nothing fetched) if the store keeps none; `nil`
  /// when the store keeps a query of another state type under its key. The value of a record made here is put in
  /// `made`, which keeps the record until the caller's request is in (see ``value(named:stopwatch:query:keeping:accepting:)``).
  ///
  /// A record nobody holds and nothing fetches is the first to go when a new query takes the store over its
  /// capacity: one made for a caller and let go before its request is in could be evicted by another caller's new
  /// record, made again and evicted again, for as long as callers of other new keys keep stepping in.
  func recordStopwatch<Value: Sendable>(
    of query: Query<OperationState<Value>>,
    keeping made: inout Shared<OperationState<Value>>?
  ) -> Stopwatch? {
    recordStopwatch(of: query, initialState: { OperationState<Value>() }, keeping: &made)
  }

  /// The time of the record of `query`, made with no holder (and nothing fetched) from `initialState` if the store
  /// keeps none; `nil` when the store keeps a query of another state type under its key.
  func recordStopwatch<State: OperationTrackable>(of query: Query<State>, initialState: () -> State) -> Stopwatch? {
    var made: Shared<State>?
    return recordStopwatch(of: query, initialState: initialState, keeping: &made)
  }

  /// The time of the record of `query`, made from `initialState` as ``recordStopwatch(of:keeping:)`` makes it.
  func recordStopwatch<State: OperationTrackable>(
    of query: Query<State>,
    initialState: () -> State,
    keeping made: inout Shared<State>?
  ) -> Stopwatch? {
    let found = state.withLock { state -> Stopwatch?? in
      guard let record = state.record(named: query.key) else { return .none }
      return .some((record as? QueryRecord<State>)?.stopwatch)
    }
    if let found { return found }
    // Made through the registry, so that a holder that appears later shares this value.
    let registry = registry ?? SharedRegistry()
    let value = Shared<State>(reference: registry.reference(memoryOnly: query, defaultValue: initialState))
    attach(query, holder: value, in: registry, asHolder: false)
    made = value  // Held: no new query evicts the record before its time is read, nor before it is asked.
    return state.withLock { ($0.record(named: query.key, as: State.self))?.stopwatch }
  }

  /// The box of the value of the query named `key` when that value is fresh: fetched less than its `staleTime` ago
  /// with no invalidation since; `nil` when it is not, or when the store keeps no such query, or one of another
  /// state type than `stateType`, or one that does not measure from `stopwatch` (a record removed and made again).
  ///
  /// The cheap path of an awaiting caller: one lock, one lookup and no generic code; everything else asks
  /// ``value(named:stopwatch:query:keeping:accepting:)``. The clock is read after the lock, so no earlier than the moment the
  /// record was asked: a value it finds young enough was fresh then.
  @usableFromInline
  func freshValueBox(named key: QueryKey, stopwatch: Stopwatch?, stateType: ObjectIdentifier) -> AnyObject? {
    let peeked = state.withLock { state -> QueryValuePeek? in
      guard let record = state.record(named: key),
        let peeked = record.valuePeeked(stopwatch: stopwatch, stateType: stateType)
      else { return nil }
      state.bounds.use(record)  // The most recently used, for the capacity.
      return peeked
    }
    guard let peeked, peeked.isFresh else { return nil }
    services.instruments.record(.cacheHit(key))
    return peeked.box
  }

  /// Asks the record named `key` (measuring from `stopwatch`) for a refresh if its value is missing, stale or
  /// invalidated at `now`; `made` (the value of a record just made for this request) is let go once it is asked.
  func prefetch<State: OperationTrackable>(
    _ key: QueryKey,
    stopwatch: Stopwatch,
    now: Duration,
    as type: State.Type,
    keeping made: inout Shared<State>?
  ) {
    let effect = state.withLock { state -> QueryRecordEffect in
      guard let record = state.record(named: key, as: type, stopwatch: stopwatch) else { return .none }
      use(record, in: &state)
      return record.prefetch(now: now, store: self)
    }
    made = nil  // Asked: a fetch it starts keeps the record, and does not count as a holder.
    effect()
  }

  /// The value of the query named `key`, if the store keeps it with state type `State`.
  @usableFromInline
  func cachedShared<State: OperationTrackable>(_ key: QueryKey, as type: State.Type) -> Shared<State>? {
    state.withLock { state in
      let record = state.record(named: key, as: type, stopwatch: nil)
      record?.wakeIfSleeping(in: registry, store: self)
      return record?.shared
    }
  }

  /// The values of state type `State` whose keys start with `prefix`.
  func cachedShareds<State: OperationTrackable>(
    matching prefix: QueryKey,
    as _: State.Type
  ) -> [(key: QueryKey, value: Shared<State>)] {
    state.withLock { state in
      var values: [(key: QueryKey, value: Shared<State>)] = []
      state.root.node(at: prefix.parts)?.visitRecords { record in
        guard let record = record as? QueryRecord<State> else { return }
        record.wakeIfSleeping(in: registry, store: self)
        values.append((record.key, record.shared))
      }
      return values
    }
  }

  /// The value of the query named `key` (whose record measures from `stopwatch`), cached as `acceptance` allows, or
  /// fetched; `nil` if the store keeps another query under its key. A cancelled caller stops waiting with a
  /// `CancellationError`; the fetch goes on if anyone else needs it.
  ///
  /// A record collected meanwhile is made again from `query`; with no `query` (a holder's call, whose record is
  /// never collected), the answer is `nil`. `made`: the value of a record just made for this caller (see
  /// ``recordStopwatch(of:keeping:)``), let go once the record is asked, before the fetch it starts runs.
  func value<Value: Sendable>(
    named key: QueryKey,
    stopwatch: Stopwatch,
    query: Query<OperationState<Value>>?,
    keeping made: inout Shared<OperationState<Value>>?,
    accepting acceptance: QueryRecordMachine.Acceptance
  ) async throws -> Value? {
    try await awaitState(
      named: key, stopwatch: stopwatch, query: query, initialState: { OperationState<Value>() }, keeping: &made,
      accepting: acceptance, answer: { $0.value }, answerFetched: { $0 })
  }

  /// The state of the query named `key` (whose record measures from `stopwatch`) as `answer` reads it: from the cached
  /// state when `acceptance` allows and `answer` finds what it needs there, otherwise from the state a fetch leaves;
  /// `nil` if the store keeps another query under its key. For any state type (a paginated query's, a domain
  /// type's); ``value(named:stopwatch:query:keeping:accepting:)`` is its form for an `OperationState`.
  ///
  /// A record collected meanwhile is made again from `query` (starting from `initialState`); with no `query` (a
  /// holder's call, whose record is never collected), the answer is `nil`. With `answerFetched`, a fetch's own
  /// result answers (a value the app wrote since does not); otherwise the state the fetch left.
  func awaitState<State: OperationTrackable, Answer>(
    named key: QueryKey,
    stopwatch: Stopwatch,
    query: Query<State>?,
    initialState: () -> State,
    keeping made: inout Shared<State>?,
    accepting acceptance: QueryRecordMachine.Acceptance,
    answer: (State) -> Answer?,
    answerFetched: ((State.Success) -> Answer)? = nil
  ) async throws -> Answer? {
    var stopwatch = stopwatch
    var refetches = false
    while true {
      // The clock is the caller's code: read outside the lock.
      let now = refetches ? .zero : stopwatch.elapsed()
      let reply = state.withLock { state -> QueryRecord<State>.ValueAnswer in
        guard let record = state.record(named: key, as: State.self, stopwatch: stopwatch) else { return .gone }
        use(record, in: &state)
        return refetches
          ? record.refreshRequested(store: self)
          : record.valueRequested(now: now, accepting: acceptance, store: self)
      }
      made = nil  // Asked: the fetch it starts keeps the record (and does not count as a holder), or it served.
      switch reply {
      case .cached(let shared, let effect):
        effect()
        services.instruments.record(.cacheHit(key))
        if let answered = answer(shared.wrappedValue) { return answered }
        refetches = true  // Reset by the app since it was fetched: fetch it again.
      case .awaitWork(let id, let work, let effect):
        // Work measured before this caller's effect launched anything was started by another caller: joined.
        var joined: (any WorkMeasurement)?
        if let instrument = services.instruments.current {
          instrument.record(.cacheMiss(key))
          joined = work.measurement
        }
        effect()
        joined?.joined()
        let fetched = try await withTaskCancellationHandler {
          try await work.value(as: State.Success.self)
        } onCancel: {
          self.cancelRequest(id, of: work, key: key, as: State.self)
        }
        if let answerFetched { return answerFetched(fetched) }
        // The work wrote its result before it ended: the state it left answers.
        if let shared = cachedShared(key, as: State.self), let answered = answer(shared.wrappedValue) {
          return answered
        }
        refetches = true  // Reset or removed by the app meanwhile: fetch it again.
      case .gone:
        // Collected between two locks: the query is made again.
        guard let query, let remade = recordStopwatch(of: query, initialState: initialState, keeping: &made) else {
          return nil
        }
        stopwatch = remade
        refetches = false
      }
    }
  }

  /// Asks the query named `key` for `work`, done by `body`, after the work already under way; returns its task.
  ///
  /// Cancelling the task stops this caller's wait at once; the work itself is cancelled (or, while it waits its
  /// turn, withdrawn) only when nobody else needs it: another caller, a holder, an invalidation.
  func request<State: OperationTrackable>(
    _ work: QueryRecordMachine.Work,
    key: QueryKey,
    as _: State.Type,
    body: @escaping QueryRecord<State>.Body
  ) -> OperationTask<State.Success>? {
    let planned = state.withLock { state -> (QueryRecordMachine.WorkID, QueryWork, QueryRecordEffect)? in
      guard let record = state.record(named: key, as: State.self) else { return nil }
      use(record, in: &state)
      return record.request(work, body: body, store: self)
    }
    guard let (id, work, effect) = planned else { return nil }
    effect()
    let store = WeakQueryStore(store: self)
    return OperationTask(
      task: Task {
        try await withTaskCancellationHandler {
          try await work.value(as: State.Success.self)
        } onCancel: {
          store.store?.cancelRequest(id, of: work, key: key, as: State.self)
        }
      })
  }

  /// A caller of the unit of work `id` cancelled its task.
  func cancelRequest<State: OperationTrackable>(
    _ id: QueryRecordMachine.WorkID,
    of work: QueryWork,
    key: QueryKey,
    as _: State.Type
  ) {
    let effect = state.withLockReleasingAfter { state -> (result: QueryRecordEffect, released: QueryWork?) in
      guard let record = state.record(named: key, as: State.self) else { return (.none, nil) }
      let (withdrawn, effect) = record.cancelRequested(id, work: work)
      return (effect, withdrawn)
    }
    effect()
  }

  /// The fetching that the work `id` of the query named `key` left showing was ended; starts what follows.
  func settled<State: OperationTrackable>(_ id: QueryRecordMachine.WorkID, key: QueryKey, as _: State.Type) {
    let effect = state.withLock { state in
      (state.record(named: key, as: State.self))?.settled(id, store: self) ?? .none
    }
    effect()
  }
}
