/// One cached query: its value (held strongly, so it outlives its holders until collected), its state machine and
/// the units of work under way.
///
/// Only touched under the ``QueryStore``'s lock (its constants excepted), which makes it safe to send: a fetch's
/// task keeps its record and asks the store's lock for each step.
final class QueryRecord<State: OperationTrackable>: QueryRecordProtocol, @unchecked Sendable {
  /// Fetches something for the query from its value (the query's fetcher, or one page), in an attempt's context.
  typealias Body = @Sendable (Shared<State>, OperationContext<State.Success>) async throws -> State.Success

  let key: QueryKey
  /// The options and fetcher location, shared with the other records of the same definition.
  let definition: QueryDefinition
  /// The query's own fetcher.
  private let fetcher: QueryFetcher<State>
  private let kind: QueryKind<State>
  let stopwatch: Stopwatch
  /// The value's box while the query is used; `nil` while it sleeps (see ``sleepIfUnused()``).
  private var root: SharedRoot<State>? {
    // A bit cast: `storedRoot` only ever holds a `SharedRoot<State>` (set here).
    // Not `Optional.map`: the record's code is not specialized, and a generic call per read cost more than the read.
    get {
      guard let stored = storedRoot else { return nil }
      return unsafeDowncast(stored, to: SharedRoot<State>.self)
    }
    set { storedRoot = newValue }
  }
  /// The box, stored untyped so that asking whether it is held (``isHeld``) needs no generic metadata: an
  /// invalidation asks that of every matched query.
  ///
  /// Unchecked: only touched under the store's lock (see the type's note), which already excludes overlapping
  /// accesses; the runtime check of every access cost more than the rest of asking whether a query is held.
  @exclusivity(unchecked) private var storedRoot: AnyObject?
  /// The value while the query sleeps: nobody used it at the last garbage check, so its box was freed.
  private var sleepingValue: State?
  /// The value's box, read by an inspection under the store's lock.
  var storedRootForInspection: AnyObject? { storedRoot }
  /// The sleeping value, read by an inspection under the store's lock.
  var sleepingValueForInspection: Any? { sleepingValue }
  // Unchecked, as `storedRoot` is.
  @exclusivity(unchecked) private(set) var machine: QueryRecordMachine
  /// The running and queued units of work, by the machine's identifiers.
  private var works = QueryWorkTable()
  var older: (any QueryRecordProtocol)?
  var newer: (any QueryRecordProtocol)?

  init(query: Query<State>, definition: QueryDefinition, root: SharedRoot<State>, stopwatch: Stopwatch, serial: UInt64)
  {
    self.key = query.key
    self.definition = definition
    self.fetcher = query.fetcher
    self.kind = query.kind
    self.storedRoot = root
    self.stopwatch = stopwatch
    // Each record's work identifiers are its own (the serial in the high bits): a fetch of a removed record that
    // reports late cannot be taken for work of the record made again under its key.
    machine = QueryRecordMachine(isEnabled: definition.options.isEnabled, identifiersAfter: serial << 32)
  }

  /// The query the record was made for.
  var query: Query<State> {
    var query = Query(key: key, definition: definition, fetcher: fetcher, kind: kind)
    query.staleness = staleness
    return query
  }

  /// How long each fetched value stays fresh, if the query decides it by the value: kept by the definition.
  private var staleness: QueryStaleness<State>? {
    definition.staleness.flatMap { $0 as? QueryStaleness<State> }
  }

  /// The time a value fetched at `at` counts as fetched at for the freshness checks, which all ask whether `now - at`
  /// is under ``QueryOptions/staleTime``: shifted by the difference between the staleTime the value decides and the
  /// query's, so that those checks apply the value's. Runs the query's rule: call outside the store's lock.
  func freshnessTime(of value: State.Success, fetchedAt at: Duration) -> Duration {
    guard let staleness else { return at }
    return at + staleness.staleTime(value) - definition.options.staleTime
  }

  var clockKey: QueryClockKey { definition.clockKey }

  var shared: Shared<State> {
    guard let root else { preconditionFailure("a sleeping query's value is used before the query is woken") }
    return Shared(reference: .root(root))
  }

  /// The value, lent to a step of the record's fetch; `nil` once the record left the store (its fetch then ends as
  /// a removed query's, as when its key names another record).
  var borrowed: Shared<State>? {
    if case .collected = machine.activity { return nil }
    guard let root else { return nil }
    return Shared(reference: .root(root))
  }

  /// Whether something besides this record refers to the value: a holder, an iteration, an observer, a fetch.
  ///
  /// Reads the box's reference count in place: no retain of the box and no generic code (an invalidation asks this
  /// of every matched query).
  var isHeld: Bool {
    guard storedRoot != nil else { return false }
    return !isKnownUniquelyReferenced(&storedRoot)
  }

  // MARK: Events

  func holderAppeared(now: Duration, store: QueryStore, writer: QueryValueWriter<State>? = nil) -> QueryRecordEffect {
    let options = definition.options
    let action = machine.holderAppeared(
      now: now, staleTime: options.staleTime, condition: options.refetchOnHolder)
    return plan(action, store: store, body: nil, writer: writer).effect
  }

  func invalidated(refetchesNow: Bool?) -> QueryRecordMachine.RequestAction {
    machine.invalidated(isHeld: refetchesNow ?? isHeld)
  }

  func effect(of action: QueryRecordMachine.RequestAction, store: QueryStore) -> QueryRecordEffect {
    plan(action, store: store, body: nil).effect
  }

  func refetch(store: QueryStore) -> QueryRecordEffect {
    machine.touched()
    return plan(machine.request(.refresh, by: .library), store: store, body: nil).effect
  }

  func triggered(_ trigger: QueryTrigger, now: Duration, store: QueryStore) -> QueryRecordEffect {
    let options = definition.options
    let condition: RefetchCondition =
      switch trigger {
      case .stale: .ifStale
      case .reconnect: options.refetchOnReconnect
      case .focus: options.refetchOnFocus
      case .interval: .always
      }
    if !isHeld {
      // Only an interval that refetches while unheld asks an unheld query; it keeps the query cached, as its
      // program asked.
      guard trigger == .interval && options.refetchesWhileUnheld else { return .none }
      machine.touched()
    }
    let action = machine.triggered(now: now, staleTime: options.staleTime, condition: condition)
    return plan(action, store: store, body: nil).effect
  }

  var refetchesWhileUnheld: Bool { definition.options.refetchesWhileUnheld }

  var stateType: Any.Type { State.self }

  var refetchesIntervalInBackground: Bool { definition.options.refetchIntervalInBackground }

  var intervalKey: QueryIntervalKey? {
    definition.options.refetchInterval.map { QueryIntervalKey(clock: definition.clockKey, interval: $0) }
  }

  var fetchedAt: Duration? {
    guard case .fetched(let at) = machine.freshness else { return nil }
    return at
  }

  var staleTime: Duration { definition.options.staleTime }

  func gcTick(now: Duration) -> QueryRecordMachine.CollectAction {
    machine.gcTick(now: now, gcTime: definition.options.gcTime, isHeld: isHeld)
  }

  func touch() {
    machine.touched()
  }

  /// The program set the value, obtained at `at` on the record's time: it counts as fetched then.
  func valueSet(obtainedAt at: Duration) {
    machine.valueSet(obtainedAt: at)
  }

  func refetchAnsweringInvalidation(
    refetches: Bool,
    store: QueryStore
  ) -> (refetch: (id: QueryRecordMachine.WorkID, work: QueryWork)?, effect: QueryRecordEffect) {
    // A query that does not refetch now (unheld, disabled, removed) has nothing to await.
    guard refetches, machine.isEnabled else { return (nil, .none) }
    // It joins the refetch the invalidation just started or queued, and queues one behind a fetch under way (which
    // the invalidation superseded), which then follows it.
    let request = machine.request(.refresh, by: .caller)
    let id: QueryRecordMachine.WorkID
    switch request {
    case .start(let started, _), .wait(let started, _), .join(let started): id = started
    case .settleStatus, .none: return (nil, .none)
    }
    let (work, effect) = plan(request, store: store, body: nil)
    guard let work else { return (nil, .none) }
    return ((id, work), effect)
  }

  func stopFetches(removing: Bool) -> QueryRecordEffect {
    let wasBusy = machine.running != nil
    let action = removing ? machine.removed() : machine.fetchesCancelled()
    let running = action.cancelRunning.flatMap(work)
    let writing = action.detachWriting.flatMap(work)
    let withdrawn = action.withdraw.compactMap(removeWork)
    // A removed record's fetch can no longer reach its value (it borrows the value from the record), so the value
    // its holders keep is told here that no fetch runs any more; a write of its fetch not yet landed is dropped
    // first, so that it cannot land after this one still fetching.
    let detached = removing && wasBusy ? root : nil
    guard running != nil || !withdrawn.isEmpty || detached != nil else { return .none }
    var effect = QueryRecordEffect.none
    if let writing { effect.append(.detach(writing)) }
    if let running { effect.append(.cancel(running)) }
    for work in withdrawn { effect.append(.withdraw(work)) }
    if let detached { effect.append(.write(.endFetches, to: detached)) }
    return effect
  }

  func reset(store: QueryStore) -> QueryRecordEffect {
    let action = machine.reset(isHeld: isHeld)
    let running = action.stop.cancelRunning.flatMap(work)
    let withdrawn = action.stop.withdraw.compactMap(removeWork)
    // A sleeping query with optimistic changes pending wakes, so that the reset goes to its confirmed value.
    if root == nil, store.changes.layer(for: key, as: State.self)?.isActive == true {
      wakeIfSleeping(in: store.registry, store: store)
    }
    // A sleeping query is reset where it is kept; the value it replaces is released after the lock.
    var replaced: State?
    if root == nil, var value = sleepingValue {
      replaced = sleepingValue
      value.resetToInitialState()
      sleepingValue = value
    }
    // Work writing its value when the reset came resets the value as it ends (``finished(_:outcome:store:)``).
    let resetRoot = action.resetsValueNow ? root : nil
    // The refresh queued behind the cancelled work takes over its fetching: the value shows a first load.
    let waitsForTurn: Bool
    if case .wait = action.refresh { waitsForTurn = true } else { waitsForTurn = false }
    // Asked after the value's box is read: starting a refresh wakes a sleeping query.
    let refresh = plan(action.refresh, store: store, body: nil).effect
    var effect = QueryRecordEffect.none
    if let replaced { effect.append(.release(replaced)) }
    // Written before a refresh starting now shows its first load.
    if let resetRoot { effect.append(.write(.reset(showingLoad: waitsForTurn), to: resetRoot)) }
    if let running { effect.append(.cancel(running)) }
    for work in withdrawn { effect.append(.withdraw(work)) }
    effect.append(refresh)
    return effect
  }

  func evicted() -> QueryRecordMachine.CollectAction {
    machine.evicted(isHeld: isHeld)
  }

  var gcCheckInterval: Duration { QueryStore.gcCheckInterval(gcTime: definition.options.gcTime) }

  func nextGCCheck(now: Duration) -> Duration {
    machine.nextGCCheck(now: now, gcTime: definition.options.gcTime, interval: gcCheckInterval)
  }

  var isSleeping: Bool { root == nil }

  /// The value's box, or the value a sleeping query keeps, for a reader after the store's lock (the persisted
  /// cache); call under the lock.
  var keptValue: (root: SharedRoot<State>?, sleeping: State?) {
    (root, root == nil ? sleepingValue : nil)
  }

  /// Frees the value's box if nobody holds the query and no work runs on it: the record keeps only the value, and
  /// the next use makes a box for it again (``wakeIfSleeping(in:store:)``). Returns what to release after the lock.
  func sleepIfUnused() -> Any? {
    // Asked before a local copy of the reference would count as a holder.
    guard root != nil, machine.activity == .idle, !isHeld, let root else { return nil }
    let replaced = sleepingValue  // A holder's default value, kept since the last wake (see below).
    // The value as shown: optimistic changes pending on it keep their confirmed value in their layer, which the store
    // keeps and attaches to the value's next box (see `wakeIfSleeping`).
    // Copied in the same critical section that retires the box's changes: a change that ends after the copy ends on
    // the value that wakes from it (see ``AttachedLayer/isRetired``).
    sleepingValue = root.box.withValue(attached: AttachedLayer<State>.self) { value, attached in
      attached?.isRetired = true
      return value
    }
    self.root = nil
    return (root, replaced)
  }

  /// Gives a sleeping query a box again, through `registry` so that a holder of its key shares it, linked to
  /// `store`.
  func wakeIfSleeping(in registry: SharedRegistry?, store: QueryStore) {
    wakeIfSleeping(in: registry, store: store, root: nil)
  }

  /// Wakes a sleeping query with the box `given` (a holder's, just made by the registry), or as
  /// ``wakeIfSleeping(in:store:)`` does when `given` is `nil`.
  func wakeIfSleeping(in registry: SharedRegistry?, store: QueryStore, root given: SharedRoot<State>?) {
    // Untyped first: asking the typed optional looks up its type.
    guard storedRoot == nil, var value = sleepingValue else { return }
    var isMade = false
    let made: SharedRoot<State>
    // The box made here, if the registry keeps it: another one may win the race to the registry (a holder's).
    var created: SharedRoot<State>?
    if let given {
      made = given
    } else if let registry,
      case .root(let found) = registry.reference(
        for: query, defaultValue: { value },
        create: { value, registration in
          let root = SharedRoot(memoryOnly: value, registration: registration, isQueryValue: true)
          created = root
          return .root(root)
        })
    {
      made = found
      isMade = found === created
    } else {
      // No registry, or another type under this key there: a value of its own.
      (made, isMade) = (SharedRoot(memoryOnly: value, registration: nil, isQueryValue: true), true)
    }
    // A box a holder made an instant ago from its default takes the cached value (its only user is still being
    // made); the default is kept until the query next sleeps or goes, both released after the lock.
    if !isMade { made.box.withLock { swap(&$0, &value) } }
    sleepingValue = isMade ? nil : value
    root = made
    made.attachment(QueryLink.self, make: QueryLink.init)
      .link(to: store, key: key, kind: kind, stopwatch: stopwatch)
    // The optimistic changes pending on the query go on with the value, which shows them already.
    store.attachLayer(of: key, to: made)
  }

  /// A caller asks for `work`, done by `body`; returns the unit of work that serves the request (and its
  /// identifier, for a cancellation) and what to start after the lock.
  func request(
    _ work: QueryRecordMachine.Work,
    body: @escaping Body,
    store: QueryStore
  ) -> (id: QueryRecordMachine.WorkID, work: QueryWork, effect: QueryRecordEffect)? {
    machine.touched()
    let action = machine.request(work, by: .caller)
    let id: QueryRecordMachine.WorkID
    switch action {
    case .start(let started, _), .join(let started), .wait(let started, _): id = started
    case .settleStatus, .none: return nil
    }
    let (served, effect) = plan(action, store: store, body: body)
    guard let served else { return nil }
    return (id, served, effect)
  }

  /// What answers a caller awaiting the query's value.
  enum ValueAnswer {
    /// The cached value serves: read it from `shared` after the lock, then perform `effect` (a background refetch,
    /// or nothing).
    case cached(Shared<State>, effect: QueryRecordEffect)
    /// Wait for the unit of work `id` (the object `work`), after performing `effect`.
    case awaitWork(id: QueryRecordMachine.WorkID, work: QueryWork, effect: QueryRecordEffect)
    /// The record was collected: find or make it again.
    case gone
  }

  /// A caller awaits the query's value, taking a cached one as `acceptance` allows at `now`.
  func valueRequested(
    now: Duration,
    accepting acceptance: QueryRecordMachine.Acceptance,
    store: QueryStore
  ) -> ValueAnswer {
    switch machine.valueRequested(now: now, staleTime: definition.options.staleTime, accepting: acceptance) {
    case .serveCached:
      return .cached(shared, effect: .none)
    case .serveCachedAndRefetch(let action):
      return .cached(shared, effect: plan(action, store: store, body: nil).effect)
    case .awaitFetch(let action):
      return answer(awaiting: action, store: store)
    }
  }

  func valuePeeked(stopwatch: Stopwatch?, stateType: ObjectIdentifier) -> QueryValuePeek? {
    guard stateType == ObjectIdentifier(State.self) else { return nil }
    if let stopwatch, !self.stopwatch.isSame(as: stopwatch) { return nil }
    // A sleeping query answers the usual way, which wakes it.
    guard let stored = storedRoot, case .serveIfYounger(let at) = machine.valuePeeked() else { return nil }
    // Read in place, not through `root`: a copy of the root retains it, and the registry's weak reference gives it a
    // side table, so every retain and release takes the slow path (200 ns per awaited fresh value, 230-255 ns via
    // `root`).
    let box = unsafeDowncast(stored, to: SharedRoot<State>.self).box
    return QueryValuePeek(fetchedAt: at, staleTime: definition.options.staleTime, box: box, stopwatch: self.stopwatch)
  }

  /// A caller awaits a value fetched now: the cached one is gone (the app reset it).
  func refreshRequested(store: QueryStore) -> ValueAnswer {
    machine.touched()
    return answer(awaiting: machine.request(.refresh, by: .caller), store: store)
  }

  private func answer(awaiting action: QueryRecordMachine.RequestAction, store: QueryStore) -> ValueAnswer {
    let id: QueryRecordMachine.WorkID
    switch action {
    case .start(let started, _), .join(let started), .wait(let started, _): id = started
    case .settleStatus, .none: return .gone
    }
    let (served, effect) = plan(action, store: store, body: nil)
    guard let served else { return .gone }
    return .awaitWork(id: id, work: served, effect: effect)
  }

  /// Someone asks for the value ahead of need: a refresh if it is missing, invalidated or stale at `now`.
  func prefetch(now: Duration, store: QueryStore) -> QueryRecordEffect {
    return plan(machine.prefetchRequested(now: now, staleTime: definition.options.staleTime), store: store, body: nil)
      .effect
  }

  /// Turns automatic fetching on or off; returns what to start after the lock (a refresh of a held, stale value when
  /// turned on).
  func setEnabled(_ isEnabled: Bool, now: Duration, store: QueryStore) -> QueryRecordEffect {
    guard isEnabled else {
      machine.disabled()
      return .none
    }
    let action = machine.enabled(now: now, staleTime: definition.options.staleTime, isHeld: isHeld)
    return plan(action, store: store, body: nil).effect
  }

  /// A caller of the unit of work `id` (the object `work`) cancelled its task: returns what to do after the lock,
  /// and a withdrawn unit of work to release after it.
  func cancelRequested(
    _ id: QueryRecordMachine.WorkID,
    work: QueryWork
  ) -> (withdrawn: QueryWork?, effect: QueryRecordEffect) {
    guard works[id] === work else { return (nil, .none) }  // Settled already.
    switch machine.cancelRequested(id) {
    case .leave:
      return (nil, .none)
    case .cancelRunning:
      return (nil, QueryRecordEffect(.cancel(work)))
    case .withdraw:
      return (removeWork(id), QueryRecordEffect(.withdraw(work)))
    }
  }

  /// The fetch of `id` returned a value.
  func fetchReturned(_ id: QueryRecordMachine.WorkID) -> QueryRecordMachine.ReturnAction {
    machine.fetchReturned(id)
  }

  /// The fetch of `id` failed or was cancelled.
  func fetchStopped(_ id: QueryRecordMachine.WorkID, cancelled: Bool) -> QueryRecordMachine.ReturnAction {
    machine.fetchStopped(id, cancelled: cancelled, isHeld: isHeld)
  }

  /// An attempt of the fetch of `id` failed and a retry is due: whether anyone still needs it. The fetch holds no
  /// reference to the value here, so ``isHeld`` counts holders, iterations and observers only.
  func retryPoint(_ id: QueryRecordMachine.WorkID) -> QueryRecordMachine.RetryAction {
    machine.retryPoint(id, isHeld: isHeld)
  }

  /// The unit of work `id` ended: returns it (to be released after the lock) and what to start next.
  func finished(
    _ id: QueryRecordMachine.WorkID,
    outcome: QueryRecordMachine.Outcome,
    store: QueryStore
  ) -> (finished: QueryWork?, effect: QueryRecordEffect) {
    let resetsValue = machine.resetsValueAtEnd(of: id)
    let next = machine.finished(id, outcome: outcome, isHeld: isHeld)
    let finished = removeWork(id)  // With the last one, the table is freed: a cached query keeps no empty table.
    let effect = plan(next, store: store, body: nil).effect
    guard resetsValue, let root else { return (finished, effect) }
    // Reset while the work wrote its value: reset now, after that write, before the work that follows starts.
    let startsNext: Bool
    if case .start = next { startsNext = true } else { startsNext = false }
    return (finished, QueryRecordEffect.write(.reset(showingLoad: startsNext), to: root).then(effect))
  }

  /// The fetching that the work `id` left showing was ended: returns what to start next.
  func settled(_ id: QueryRecordMachine.WorkID, store: QueryStore) -> QueryRecordEffect {
    plan(machine.settled(id), store: store, body: nil).effect
  }

  // MARK: Acting on the machine's decisions

  /// The unit of work `id`, if it is kept.
  private func work(_ id: QueryRecordMachine.WorkID) -> QueryWork? {
    works[id]
  }

  /// Forgets the unit of work `id` and returns it, if it was kept.
  private func removeWork(_ id: QueryRecordMachine.WorkID) -> QueryWork? {
    works.remove(id)
  }

  /// Turns an action into the unit of work it concerns and the effect to perform after the lock: a new unit of
  /// work gets a task (which waits for its turn if it must), a queued one whose turn came is let go.
  private func plan(
    _ action: QueryRecordMachine.RequestAction,
    store: QueryStore,
    body: Body?,
    writer: QueryValueWriter<State>? = nil
  ) -> (work: QueryWork?, effect: QueryRecordEffect) {
    switch action {
    case .none:
      return (nil, .none)
    case .join(let id):
      return (work(id), .none)
    case .start(let id, let kind):
      if let queued = work(id) { return (queued, QueryRecordEffect(.giveTurn(queued))) }
      return launch(id, kind, body: body, waitsForTurn: false, store: store, writer: writer)
    case .wait(let id, let kind):
      return launch(id, kind, body: body, waitsForTurn: true, store: store)
    case .settleStatus(let id):
      wakeIfSleeping(in: store.registry, store: store)
      guard let root else { preconditionFailure("a sleeping query's value is used before the query is woken") }
      return (nil, .write(.settle(id, key: key, store: WeakQueryStore(store: store)), to: root))
    }
  }

  private func launch(
    _ id: QueryRecordMachine.WorkID,
    _ kind: QueryRecordMachine.Work,
    body: Body?,
    waitsForTurn: Bool,
    store: QueryStore,
    writer: QueryValueWriter<State>? = nil
  ) -> (work: QueryWork?, effect: QueryRecordEffect) {
    // Work on a query that sleeps (a refetch of a query nobody holds, asked for by the app) needs its box. Asked
    // before the store's registry is read (a weak reference): most work starts on a query in use.
    if storedRoot == nil { wakeIfSleeping(in: store.registry, store: store) }
    let work = QueryWork(fetching: kind.pages)
    works.insert(work, for: id)
    let fetch = body.map(QueryFetcher.full) ?? fetcher
    // The fetch reaches its record directly (see `QueryFetchExecutor.execute`). Work that starts now shows its
    // fetching before the caller goes on; queued work, as its turn comes.
    let launch = QueryLaunch(
      id: id, record: self, fetch: fetch, work: work, shown: waitsForTurn ? nil : shared,
      gate: store.services.network, store: WeakQueryStore(store: store), writer: writer,
      instruments: store.services.instruments)
    return (work, QueryRecordEffect(.launch(launch)))
  }
}
