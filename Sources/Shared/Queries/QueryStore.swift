import Foundation
import Synchronization

/// The queries of one ``SharedRegistry``: invalidate them by key prefix, write into them, refetch them.
///
/// ```swift
/// let store = SharedRegistry.current.queries
/// store.invalidate(matching: ["posts"])            // every key that starts with ["posts"]
/// store.update(["posts", 42], as: OperationState<Post>.self) { $0.value?.title = "Edited" }
/// store.refetch(["posts", 42])                     // fetch again now, joining a fetch under way
/// let subscription = store.refetchStale(on: reconnections, matching: ["posts"])
/// ```
///
/// Keys are kept in a tree by their parts, so invalidating a prefix visits only the keys under it, however many
/// other keys there are.
///
/// To refetch is to fetch again now, joining a fetch of the same query that is under way (a paginated query
/// fetches again every loaded page): ``refetch(_:)`` here, ``Shared/refetch()`` on a value, and
/// ``Shared/refetchAll()`` on a paginated value all mean that. ``refetchStale(on:matching:)`` refetches only the
/// queries that are held and stale, each time a trigger fires.
public final class QueryStore: Sendable {
  let state = Lock(State())

  /// The lock's contents, by a name that generic methods whose parameter is called `State` can still use.
  typealias Contents = State

  struct State: ~Copyable {
    let root = QueryIndexNode()
    var count = 0
    /// The recency of the queries, the capacity, the sweepers.
    var bounds = QueryBounds()
    /// How many records were made: each record's serial number.
    var serial: UInt64 = 0
    /// The definitions its records share.
    var definitions = QueryDefinitions()
    /// The queries that refetch on an interval, by timer.
    var intervals = QueryIntervals()
  }

  /// The registry whose queries these are; a query made without a holder gets its value there, so a later holder
  /// of its key shares it.
  private let owner: WeakRegistry

  private struct WeakRegistry: Sendable {
    weak var registry: SharedRegistry?
  }

  /// The store-wide hooks, the options for queries made without their own, and the activity counts.
  let settings: QueryStoreSettings

  /// The persisted cache, once the store persists or hydrates one (see `QueryStore+PersistedCache.swift`).
  let persistedCache = QueryCacheSlot()

  /// The optimistic changes pending, by query key (see `QueryStore+OptimisticChanges.swift`).
  let changes = QueryChangeTable()

  init(registry: SharedRegistry? = nil) {
    owner = WeakRegistry(registry: registry)
    settings = QueryStoreSettings(inspector: registry?.inspector ?? SharedInspector())
  }

  /// The registry whose queries these are, while it exists: a sleeping query wakes in it.
  var registry: SharedRegistry? { owner.registry }

  /// The number of queries the store keeps.
  public var count: Int {
    state.withLock { $0.count }
  }

  /// Whether the store keeps a query named `key`.
  ///
  /// - Parameter key: The query's name.
  /// - Returns: `true` while the query's value is cached.
  public func contains(_ key: QueryKey) -> Bool {
    state.withLock { $0.root.node(at: key.parts)?.record != nil }
  }

  // MARK: Invalidation

  /// Marks every query whose key starts with `prefix` as stale: those with holders refetch now, the others when
  /// their next holder appears.
  ///
  /// - Parameter prefix: The key prefix; `["posts"]` reaches `["posts", 42]` and `["posts", 42, "comments"]`.
  /// - Returns: How many queries were marked.
  @discardableResult
  public func invalidate(matching prefix: QueryKey) -> Int {
    // The keys are gathered for an attached inspector only.
    let inspects = settings.inspector.isAttached
    var keys: [QueryKey] = []
    let (marked, effects) = state.withLock { state -> (Int, [QueryRecordEffect]) in
      var marked = 0
      // A query nobody holds only notes it. The store is not used in the visit: it is referred to weakly, so each
      // retain of it would take the slow path, once per match.
      var decided: [(record: any QueryRecordProtocol, action: QueryRecordMachine.RequestAction)] = []
      state.root.node(at: prefix.parts)?.visitRecords { record in
        marked += 1
        if inspects { keys.append(record.key) }
        let action = record.invalidated()
        if case .none = action { return }
        decided.append((record, action))
      }
      let effects = decided.map { $0.record.effect(of: $0.action, store: self) }.filter { $0.perform != nil }
      return (marked, effects)
    }
    inspected(keys, .invalidated)  // Before the refetches it starts.
    for effect in effects { effect() }
    persistedValuesInvalidated(.prefix(prefix))
    return marked
  }

  /// Fetches the query named `key` again now, if the store keeps it; joins a refetch of it that is under way or
  /// asked for.
  ///
  /// ```swift
  /// SharedRegistry.current.queries.refetch(["posts", 42])
  /// ```
  ///
  /// The same as ``Shared/refetch()`` on a holder of the query: a paginated query fetches every loaded page again.
  /// A page fetch under way finishes first. A refetch that an invalidation overtook is not joined: another one
  /// follows it, so the value ends fetched after the invalidation.
  ///
  /// - Parameter key: The query's name.
  /// - Returns: Whether there was such a query.
  @discardableResult
  public func refetch(_ key: QueryKey) -> Bool {
    let effect = state.withLock { state -> QueryRecordEffect? in
      guard let record = state.root.node(at: key.parts)?.record else { return nil }
      state.bounds.use(record)
      record.wakeIfSleeping(in: owner.registry, store: self)
      return record.refetch(store: self)
    }
    effect?()
    return effect != nil
  }

  /// Refetches the held queries under `prefix` that are stale, each time `trigger` emits: a reconnect, the app
  /// becoming active, a timer.
  ///
  /// ```swift
  /// let subscription = store.refetchStale(on: network.reconnections, matching: ["posts"])
  /// ```
  ///
  /// Fresh queries (fetched less than ``QueryOptions/staleTime`` ago), and queries nobody holds, are left alone
  /// (the latter refetch on their next holder). A query that is refetched joins a fetch under way, as
  /// ``refetch(_:)`` does.
  ///
  /// - Parameters:
  ///   - trigger: Any sequence; each element is one trigger. Iteration stops when it ends or fails.
  ///   - prefix: Which queries; all of them by default.
  /// - Returns: A subscription that stops listening to `trigger` when cancelled or freed.
  public func refetchStale<Trigger: AsyncSequence & Sendable>(
    on trigger: Trigger,
    matching prefix: QueryKey = []
  ) -> SharedSubscription {
    let task = Task.detached { [weak self] in
      do {
        for try await _ in trigger {
          guard let self else { return }
          self.refetchStale(matching: prefix)
        }
      } catch {}
    }
    return SharedSubscription { task.cancel() }
  }

  /// Refetches the held, stale queries under `prefix`; returns how many.
  @discardableResult
  func refetchStale(matching prefix: QueryKey) -> Int {
    trigger(.stale, matching: prefix)
  }

  /// Asks the held queries under `prefix` to refetch as their options say for `trigger`; returns how many did.
  @discardableResult
  func trigger(_ trigger: QueryTrigger, matching prefix: QueryKey) -> Int {
    let records = state.withLock { state -> [(QueryKey, Stopwatch)] in
      var records: [(QueryKey, Stopwatch)] = []
      state.root.node(at: prefix.parts)?.visitRecords { record in
        records.append((record.key, record.epoch))
      }
      return records
    }
    // Reading the clock is the caller's code: outside the lock.
    let times = records.map { ($0.0, $0.1.elapsed()) }
    let effects = state.withLock { state -> [QueryRecordEffect] in
      zip(records, times).compactMap { entry, time in
        // A record collected and made again meanwhile has a clock of its own: this reading is not its time.
        guard let record = state.root.node(at: time.0.parts)?.record, record.epoch.isSame(as: entry.1) else {
          return nil
        }
        let effect = record.triggered(trigger, now: time.1, store: self)
        return effect.perform == nil ? nil : effect
      }
    }
    for effect in effects { effect() }
    return effects.count
  }

  /// The time of the record named `key`, if the store keeps one.
  func recordEpoch(named key: QueryKey) -> Stopwatch? {
    state.withLock { $0.root.node(at: key.parts)?.record?.epoch }
  }

  /// Turns automatic fetching of the record named `key` (measuring from `epoch`) on or off at `now`; returns whether
  /// the store keeps it.
  func setEnabled(_ isEnabled: Bool, key: QueryKey, epoch: Stopwatch, now: Duration) -> Bool {
    let effect = state.withLock { state -> QueryRecordEffect? in
      // A record collected and made again meanwhile has a clock of its own: this reading is not its time.
      guard let record = state.root.node(at: key.parts)?.record, record.epoch.isSame(as: epoch) else { return nil }
      return record.setEnabled(isEnabled, now: now, store: self)
    }
    effect?()
    return effect != nil
  }

  // MARK: Writing

  /// Changes the state of the query named `key`, as every holder's `withLock` would: an optimistic edit, a value
  /// your app learned another way, a status.
  ///
  /// ```swift
  /// store.update(["posts", 42], as: OperationState<Post>.self) { post in
  ///   post.value?.title = "Edited"
  /// }
  /// ```
  ///
  /// Works for any query state: an ``OperationState``, a ``PaginatedState``, a state type of your own. Every
  /// holder's listeners hear about the change once; the value it replaces is released after the lock. The write
  /// counts as a use, so the query is not collected for another ``QueryOptions/gcTime``. It does not stop or
  /// start a fetch: a fetch under way still writes its value when it ends.
  ///
  /// - Parameters:
  ///   - key: The query's name.
  ///   - type: The query's state type.
  ///   - body: Changes the state.
  /// - Returns: Whether there was such a query with that state type; otherwise nothing was changed.
  @discardableResult
  public func update<State: OperationTrackable>(
    _ key: QueryKey,
    as type: State.Type,
    _ body: (inout State) -> Void
  ) -> Bool {
    let shared = state.withLock { state -> Shared<State>? in
      guard let record = state.root.node(at: key.parts)?.record as? QueryRecord<State> else { return nil }
      record.touch()
      state.bounds.use(record)
      record.wakeIfSleeping(in: owner.registry, store: self)
      return record.shared
    }
    guard let shared else { return false }
    shared.withLockReleasingReplaced(body)
    persistedValueChanged(key)
    return true
  }

  // MARK: Holders

  /// Registers a holder of `query` and fetches if the value is missing, stale or invalidated.
  ///
  /// `link` is the value's ``QueryLink``, when the caller has it: one found in code specialized for `State` where it
  /// is called (a holder's initializer, inlined into its caller) costs a fraction of one found here; so do the
  /// writes of the fetch it starts, when the caller gives them (`writer`).
  @usableFromInline
  func demand<State: OperationTrackable>(
    _ query: Query<State>,
    holder: Shared<State>,
    link: QueryLink? = nil,
    in registry: SharedRegistry,
    writer: QueryValueWriter<State>? = nil
  ) {
    attach(query, holder: holder, link: link, in: registry, asHolder: true, writer: writer)
  }

  /// Makes the record of `query` with the value of `holder` (whose ``QueryLink`` is `link`, when the caller has it)
  /// if the store keeps none; `asHolder`: `holder` is a new holder, which fetches if the value is missing, stale or
  /// invalidated.
  private func attach<State: OperationTrackable>(
    _ query: Query<State>,
    holder: Shared<State>,
    link: QueryLink? = nil,
    in registry: SharedRegistry,
    asHolder: Bool,
    writer: QueryValueWriter<State>? = nil
  ) {
    guard case .root(let root) = holder.reference else { return }  // A type mismatch got a value of its own.
    if let defaults = settings.defaultOptions(for: query) {
      // Attached as made with the store's options (which it then keeps as its own).
      let query = query.withDefaultOptions(defaults)
      attach(query, holder: holder, link: link, in: registry, asHolder: asHolder, writer: writer)
      return
    }
    // The clock is read outside the lock. The value's link knows its record's time (the record keeps the value,
    // so a holder of an existing record gets the linked value); otherwise a new record's time starts here.
    let link = link ?? root.attachment(QueryLink.self, make: QueryLink.init)
    // A sleeping record's new box has no link yet: its time is the record's, which the lock below answers with
    // (a new key takes the lock once); it is read outside the lock and the lock asked again.
    let known = link.epoch(in: self)
    // A value no link knew is new: its query may start from the persisted cache.
    let query = known == nil ? restoringPersistedValue(query) : query
    var epoch = known ?? Stopwatch(query.options.operation.clock)
    // A time started just now has measured nothing: the clock is not read again for a new record.
    var attached = attach(
      query, root: root, epoch: epoch, isKnown: known != nil, now: known == nil ? .zero : epoch.elapsed(),
      asHolder: asHolder, writer: writer)
    if case .measure(let existing) = attached {
      epoch = existing
      attached = attach(
        query, root: root, epoch: epoch, isKnown: true, now: epoch.elapsed(), asHolder: asHolder, writer: writer)
    }
    // A known time is never answered with another.
    guard case .attached(let effect, let conflict, let created, let replaced, let sweeper) = attached else { return }
    // The records of other keys were evicted over the store's capacity.
    if settings.inspector.isAttached { inspected(replaced.map(\.key).filter { $0 != query.key }, .collected) }
    withExtendedLifetime(replaced) {}
    if let conflict {
      registry.report(
        SharedDiagnostic(
          kind: .conflictingFetchers(first: conflict.description, second: query.fetcherLocation.description),
          key: String(describing: query)))
    }
    if created { link.link(to: self, key: query.key, kind: query.kind, epoch: epoch) }
    if let sweeper {
      startSweeper(sweeper, on: query.options.operation.clock, key: QueryClockKey(query.options.operation.clock))
    }
    effect()
  }

  /// What the locked part of attaching a value to its record did.
  private enum Attached {
    /// Attached: what to start, a conflicting fetcher's location, whether the record was made, the records it
    /// replaced (released after the lock), the sweeper task to start.
    case attached(QueryRecordEffect, CodeLocation?, Bool, [any QueryRecordProtocol], QuerySweeper.Start?)
    /// The record exists and measures from this time, which the caller did not know: read it and ask again.
    case measure(Stopwatch)
  }

  /// The locked part of ``attach(_:holder:in:asHolder:)``: finds or makes the record of `query` with the value in
  /// `root`, a new one measuring from `epoch`, read at `now`. An existing record whose time the caller did not know
  /// (`isKnown` false: its value slept, so no link knew it) answers with its time, read outside the lock: a new key
  /// takes the store's lock once.
  private func attach<State: OperationTrackable>(
    _ query: Query<State>,
    root: SharedRoot<State>,
    epoch: Stopwatch,
    isKnown: Bool,
    now: Duration,
    asHolder: Bool,
    writer: QueryValueWriter<State>?
  ) -> Attached {
    state.withLock { state -> Attached in
      let node = state.root.makeNode(at: query.key.parts)
      // A new key's node has no record: no cast (a generic type lookup) to find that out.
      if node.record != nil, let record = node.record as? QueryRecord<State> {
        // The clock is the caller's code: read outside the lock.
        guard isKnown || record.epoch.isSame(as: epoch) else { return .measure(record.epoch) }
        let first = record.definition.fetcherLocation
        let conflict = first == query.fetcherLocation ? nil : first
        // A record made since its time was read started its own time: this holder's reading is of another clock.
        let now = record.epoch.isSame(as: epoch) ? now : .zero
        state.bounds.use(record)
        record.wakeIfSleeping(in: nil, store: self, root: root)
        return .attached(
          asHolder ? record.holderAppeared(now: now, store: self, writer: writer) : .none, conflict, false, [], nil)
      }
      // A record of another state type is not expected here (its value keeps the registry's entry, so a holder of
      // another type gets a value of its own); if one is, it and its value are released after the lock.
      var replaced: [any QueryRecordProtocol] = []
      var stopped = QueryRecordEffect.none
      if let other = node.record {
        // Its fetch reaches it directly: stopped for good, as by `remove(_:)`.
        stopped = other.stopFetches(removing: true)
        state.remove(other)
        replaced.append(other)
      }
      state.serial += 1
      let record = QueryRecord(
        query: query, definition: state.definitions.definition(of: query), root: root, epoch: epoch,
        serial: state.serial)
      state.count += 1
      // Optimistic changes made before the query was (to a restored value, by a queued mutation) show over its
      // value: attached now, applied after the lock (they are the program's code), once the value is seeded.
      let adopted = attachLayer(of: query.key, to: root).map { layer in
        QueryRecordEffect { Self.adopt(layer, in: root) }
      }
      // Removing the other record may have pruned its node.
      (replaced.isEmpty ? node : state.root.makeNode(at: query.key.parts)).record = record
      let sweeper = state.bounds.add(record)
      let ticks = state.intervals.add(record)
      // An initial state counts as fetched when it was obtained, before a holder decides whether to fetch; it is
      // written after the lock, before anything that decision starts.
      var seeded = QueryRecordEffect.none
      if let initial = query.initial {
        record.valueSet(obtainedAt: now - initial.age())
        if initial.isInvalidated { _ = record.invalidate(refetchesNow: false, store: self) }
        seeded = QueryRecordEffect {
          Shared<State>(reference: .root(root)).withLockReleasingReplaced { $0 = initial.state }
        }
      }
      let started = asHolder ? record.holderAppeared(now: now, store: self, writer: writer) : .none
      let timer =
        ticks.map { key in QueryRecordEffect { self.startTimer(on: query.options.operation.clock, key: key) } }
        ?? .none
      let effect =
        if stopped.perform == nil && seeded.perform == nil && timer.perform == nil && adopted == nil {
          started
        } else {
          QueryRecordEffect {
            stopped()
            seeded()
            adopted?()
            timer()
            started()
          }
        }
      // The new record is the most recently used, and held while `holder` lives: it is not the one evicted.
      replaced += state.evictOverCapacity()
      return .attached(effect, nil, true, replaced, sweeper)
    }
  }

  // MARK: Awaiting values

  /// The time of the record of `query`, made with no holder (and nothing fetched) if the store keeps none; `nil`
  /// when the store keeps a query of another state type under its key.
  func recordEpoch<Value: Sendable>(of query: Query<OperationState<Value>>) -> Stopwatch? {
    var made: Shared<OperationState<Value>>?
    return recordEpoch(of: query, keeping: &made)
  }

  /// The time of the record of `query`, made with no holder (and nothing fetched) if the store keeps none; `nil`
  /// when the store keeps a query of another state type under its key. The value of a record made here is put in
  /// `made`, which keeps the record until the caller's request is in (see ``value(named:epoch:query:keeping:accepting:)``).
  ///
  /// A record nobody holds and nothing fetches is the first to go when a new query takes the store over its
  /// capacity: one made for a caller and let go before its request is in could be evicted by another caller's new
  /// record, made again and evicted again, for as long as callers of other new keys keep stepping in.
  func recordEpoch<Value: Sendable>(
    of query: Query<OperationState<Value>>,
    keeping made: inout Shared<OperationState<Value>>?
  ) -> Stopwatch? {
    recordEpoch(of: query, initialState: { OperationState<Value>() }, keeping: &made)
  }

  /// The time of the record of `query`, made with no holder (and nothing fetched) from `initialState` if the store
  /// keeps none; `nil` when the store keeps a query of another state type under its key.
  func recordEpoch<State: OperationTrackable>(of query: Query<State>, initialState: () -> State) -> Stopwatch? {
    var made: Shared<State>?
    return recordEpoch(of: query, initialState: initialState, keeping: &made)
  }

  /// The time of the record of `query`, made from `initialState` as ``recordEpoch(of:keeping:)`` makes it.
  func recordEpoch<State: OperationTrackable>(
    of query: Query<State>,
    initialState: () -> State,
    keeping made: inout Shared<State>?
  ) -> Stopwatch? {
    let found = state.withLock { state -> Stopwatch?? in
      guard let record = state.root.node(at: query.key.parts)?.record else { return .none }
      return .some((record as? QueryRecord<State>)?.epoch)
    }
    if let found { return found }
    // Made through the registry, so that a holder that appears later shares this value.
    let registry = owner.registry ?? SharedRegistry()
    let value = Shared<State>(reference: registry.reference(memoryOnly: query, defaultValue: initialState))
    attach(query, holder: value, in: registry, asHolder: false)
    made = value  // Held: no new query evicts the record before its time is read, nor before it is asked.
    return state.withLock { ($0.root.node(at: query.key.parts)?.record as? QueryRecord<State>)?.epoch }
  }

  /// The box of the value of the query named `key` when that value is fresh: fetched less than its `staleTime` ago
  /// with no invalidation since; `nil` when it is not, or when the store keeps no such query, or one of another
  /// state type than `stateType`, or one that does not measure from `epoch` (a record removed and made again).
  ///
  /// The cheap path of an awaiting caller: one lock, one lookup and no generic code; everything else asks
  /// ``value(named:epoch:query:keeping:accepting:)``. The clock is read after the lock, so no earlier than the moment the
  /// record was asked: a value it finds young enough was fresh then.
  @usableFromInline
  func freshValueBox(named key: QueryKey, epoch: Stopwatch?, stateType: ObjectIdentifier) -> AnyObject? {
    let peeked = state.withLock { state -> QueryValuePeek? in
      guard let record = state.root.node(at: key.parts)?.record,
        let peeked = record.valuePeeked(epoch: epoch, stateType: stateType)
      else { return nil }
      state.bounds.use(record)  // The most recently used, for the capacity.
      return peeked
    }
    guard let peeked, peeked.isFresh else { return nil }
    return peeked.box
  }

  /// The record named `key` of state type `State` measuring from `epoch`, if the store keeps it; call under the
  /// lock.
  static func record<State: OperationTrackable>(
    in state: borrowing Contents,
    named key: QueryKey,
    epoch: Stopwatch?,
    as _: State.Type
  ) -> QueryRecord<State>? {
    guard let record = state.root.node(at: key.parts)?.record as? QueryRecord<State> else { return nil }
    if let epoch, !record.epoch.isSame(as: epoch) { return nil }
    return record
  }

  /// Asks the record named `key` (measuring from `epoch`) for a refresh if its value is missing, stale or
  /// invalidated at `now`; `made` (the value of a record just made for this request) is let go once it is asked.
  func prefetch<State: OperationTrackable>(
    _ key: QueryKey,
    epoch: Stopwatch,
    now: Duration,
    as type: State.Type,
    keeping made: inout Shared<State>?
  ) {
    let effect = state.withLock { state -> QueryRecordEffect in
      guard let record = Self.record(in: state, named: key, epoch: epoch, as: type) else { return .none }
      state.bounds.use(record)
      record.wakeIfSleeping(in: owner.registry, store: self)
      return record.prefetch(now: now, store: self)
    }
    made = nil  // Asked: a fetch it starts keeps the record, and does not count as a holder.
    effect()
  }

  /// The value of the query named `key`, if the store keeps it with state type `State`.
  @usableFromInline
  func cachedShared<State: OperationTrackable>(_ key: QueryKey, as type: State.Type) -> Shared<State>? {
    state.withLock { state in
      let record = Self.record(in: state, named: key, epoch: nil, as: type)
      record?.wakeIfSleeping(in: owner.registry, store: self)
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
        record.wakeIfSleeping(in: owner.registry, store: self)
        values.append((record.key, record.shared))
      }
      return values
    }
  }

  /// The value of the query named `key` (whose record measures from `epoch`), cached as `acceptance` allows, or
  /// fetched; `nil` if the store keeps another query under its key. A cancelled caller stops waiting with a
  /// `CancellationError`; the fetch goes on if anyone else needs it.
  ///
  /// A record collected meanwhile is made again from `query`; with no `query` (a holder's call, whose record is
  /// never collected), the answer is `nil`. `made`: the value of a record just made for this caller (see
  /// ``recordEpoch(of:keeping:)``), let go once the record is asked, before the fetch it starts runs.
  func value<Value: Sendable>(
    named key: QueryKey,
    epoch: Stopwatch,
    query: Query<OperationState<Value>>?,
    keeping made: inout Shared<OperationState<Value>>?,
    accepting acceptance: QueryRecordMachine.Acceptance
  ) async throws -> Value? {
    typealias State = OperationState<Value>
    var epoch = epoch
    var refetches = false
    while true {
      // The clock is the caller's code: read outside the lock.
      let now = refetches ? .zero : epoch.elapsed()
      let answer = state.withLock { state -> QueryRecord<State>.ValueAnswer in
        guard let record = Self.record(in: state, named: key, epoch: epoch, as: State.self) else { return .gone }
        state.bounds.use(record)
        record.wakeIfSleeping(in: owner.registry, store: self)
        return refetches
          ? record.refreshRequested(store: self)
          : record.valueRequested(now: now, accepting: acceptance, store: self)
      }
      made = nil  // Asked: the fetch it starts keeps the record (and does not count as a holder), or it served.
      switch answer {
      case .cached(let shared, let effect):
        effect()
        if let value = shared.wrappedValue.value { return value }
        refetches = true  // Reset by the app since it was fetched: fetch it again.
      case .awaitWork(let id, let work, let effect):
        effect()
        return try await withTaskCancellationHandler {
          try await work.value(as: Value.self)
        } onCancel: {
          self.cancelRequest(id, of: work, key: key, as: State.self)
        }
      case .gone:
        // Collected between two locks: the query is made again.
        guard let query, let remade = recordEpoch(of: query, keeping: &made) else { return nil }
        epoch = remade
        refetches = false
      }
    }
  }

  /// The state of the query named `key` (whose record measures from `epoch`) as `answer` reads it: from the cached
  /// state when `acceptance` allows and `answer` finds what it needs there, otherwise from the state a fetch leaves;
  /// `nil` if the store keeps another query under its key. The generic counterpart of
  /// ``value(named:epoch:query:accepting:)``, for any state type (a paginated query's, a domain type's).
  ///
  /// A record collected meanwhile is made again from `query` (starting from `initialState`); with no `query` (a
  /// holder's call, whose record is never collected), the answer is `nil`.
  func awaitState<State: OperationTrackable, Answer>(
    named key: QueryKey,
    epoch: Stopwatch,
    query: Query<State>?,
    initialState: () -> State,
    keeping made: inout Shared<State>?,
    accepting acceptance: QueryRecordMachine.Acceptance,
    answer: (State) -> Answer?
  ) async throws -> Answer? {
    var epoch = epoch
    var refetches = false
    while true {
      // The clock is the caller's code: read outside the lock.
      let now = refetches ? .zero : epoch.elapsed()
      let reply = state.withLock { state -> QueryRecord<State>.ValueAnswer in
        guard let record = Self.record(in: state, named: key, epoch: epoch, as: State.self) else { return .gone }
        state.bounds.use(record)
        record.wakeIfSleeping(in: owner.registry, store: self)
        return refetches
          ? record.refreshRequested(store: self)
          : record.valueRequested(now: now, accepting: acceptance, store: self)
      }
      made = nil  // Asked: the fetch it starts keeps the record (and does not count as a holder), or it served.
      switch reply {
      case .cached(let shared, let effect):
        effect()
        if let answered = answer(shared.wrappedValue) { return answered }
        refetches = true  // Reset by the app since it was fetched: fetch it again.
      case .awaitWork(let id, let work, let effect):
        effect()
        _ = try await withTaskCancellationHandler {
          try await work.value(as: State.Success.self)
        } onCancel: {
          self.cancelRequest(id, of: work, key: key, as: State.self)
        }
        // The work wrote its result before it ended: the state it left answers.
        if let shared = cachedShared(key, as: State.self), let answered = answer(shared.wrappedValue) {
          return answered
        }
        refetches = true  // Reset or removed by the app meanwhile: fetch it again.
      case .gone:
        // Collected between two locks: the query is made again.
        guard let query, let remade = recordEpoch(of: query, initialState: initialState, keeping: &made) else {
          return nil
        }
        epoch = remade
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
      guard let record = state.root.node(at: key.parts)?.record as? QueryRecord<State> else { return nil }
      state.bounds.use(record)
      record.wakeIfSleeping(in: owner.registry, store: self)
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
    let (withdrawn, effect) = state.withLock { state -> (QueryWork?, QueryRecordEffect) in
      guard let record = state.root.node(at: key.parts)?.record as? QueryRecord<State> else { return (nil, .none) }
      return record.cancelRequested(id, work: work)
    }
    withExtendedLifetime(withdrawn) {}  // Released after the lock.
    effect()
  }

  /// The fetching that the work `id` of the query named `key` left showing was ended; starts what follows.
  func settled<State: OperationTrackable>(_ id: QueryRecordMachine.WorkID, key: QueryKey, as _: State.Type) {
    let effect = state.withLock { state in
      (state.root.node(at: key.parts)?.record as? QueryRecord<State>)?.settled(id, store: self) ?? .none
    }
    effect()
  }

  /// The fetch of `id` of `record` returned a value: whether to write it, and the value to write it into, borrowed
  /// in the same lock (one lock per fetch, not two).
  private func fetchReturned<State: OperationTrackable>(
    _ id: QueryRecordMachine.WorkID,
    of record: QueryRecord<State>
  ) -> (action: QueryRecordMachine.ReturnAction, value: Shared<State>?) {
    state.withLock { _ in
      // A record that left the store discards the result: its machine no longer runs `id`.
      let action = record.fetchReturned(id)
      guard case .apply = action else { return (action, nil) }
      return (action, record.borrowed)
    }
  }

  /// The value of `record`, borrowed for one step of its fetch; `nil` once the record left the store.
  private func borrow<State: OperationTrackable>(_ record: QueryRecord<State>) -> Shared<State>? {
    state.withLock { _ in record.borrowed }
  }

  /// The fetch of `id` of `record` failed or was cancelled: whether work follows at once, and the value to write its
  /// end into, borrowed in the same lock.
  private func fetchStopped<State: OperationTrackable>(
    _ id: QueryRecordMachine.WorkID,
    of record: QueryRecord<State>,
    cancelled: Bool
  ) -> (action: QueryRecordMachine.ReturnAction, value: Shared<State>?) {
    state.withLock { _ in (record.fetchStopped(id, cancelled: cancelled), record.borrowed) }
  }

  /// An attempt of the fetch of `id` of `record` failed and a retry is due: whether anyone still needs it. Call
  /// with no reference to the value held by the fetch.
  private func retryPoint<State: OperationTrackable>(
    _ id: QueryRecordMachine.WorkID,
    of record: QueryRecord<State>
  ) -> QueryRecordMachine.RetryAction {
    state.withLock { _ in record.retryPoint(id) }
  }

  private func finished<State: OperationTrackable>(
    _ id: QueryRecordMachine.WorkID,
    of record: QueryRecord<State>,
    outcome: QueryRecordMachine.Outcome
  ) -> QueryRecordEffect {
    let (finished, effect) = state.withLock { _ in record.finished(id, outcome: outcome, store: self) }
    withExtendedLifetime(finished) {}  // Released after the lock.
    return effect
  }

  /// Performs the unit of work `id` of `record`: fetches with retries, writes the status and the value, and tells
  /// the record how it ended.
  ///
  /// The store is held weakly and only for each step (the steps after the last attempt, none of which suspends, share
  /// one reference): a fetch that hangs keeps neither the store nor its other queries alive (its own record, and the
  /// value that record keeps, stay until it ends). The record is reached directly, not looked up by its key: one that
  /// left the store answers each step as a removed query (its machine runs no work). The value is borrowed from the
  /// record for each step only (an attempt, a write), never across a retry's wait, so that the record can tell at a
  /// retry point whether anyone else still holds it.
  static func execute<State: OperationTrackable>(
    _ id: QueryRecordMachine.WorkID,
    of record: QueryRecord<State>,
    fetch: QueryFetcher<State>,
    work: QueryWork,
    before: OperationStatus?,
    store: WeakQueryStore,
    network: NetworkRun? = nil,
    writer: QueryValueWriter<State>? = nil
  ) async {
    let result: QueryWork.Outcome
    let outcome: QueryRecordMachine.Outcome
    let effect: QueryRecordEffect
    var settings: QueryStoreSettings?  // Set when a fetch ran: its hooks are called.
    let started: OperationStatus?
    if let before {
      started = before
    } else {
      guard let shared = store.store?.borrow(record) else {
        work.finish(.failure(CancellationError()))
        return
      }
      // Cancelled as its turn came: it neither marks the value nor fetches. The value may still show the fetching
      // the work before it handed over; the record ends that when nothing follows (`QueryRecordMachine.finished`).
      if Task.isCancelled {
        started = nil
      } else if let network {
        started = markPending(shared, fetching: work.pages, network: network)
      } else {
        started = markPending(shared, fetching: work.pages)
      }
    }
    // Set when an inspector is attached as the fetch starts: it hears how the fetch ends.
    var inspected: (inspector: SharedInspector, startedAt: ContinuousClock.Instant)?
    if let started {
      settings = store.store?.settings
      settings?.fetchStarted(record.key)
      if let inspector = settings?.inspector, inspector.isAttached {
        inspected = (inspector, .now)
        inspector.publish(InspectedKey.id(query: record.key), .fetchStarted)
      }
      // Values the fetcher yields show while its fetch runs: the gate closes, under the value's lock, as the
      // fetch's own result is written, so no yielded value lands after it. A fetcher with no context and no
      // modifier around it cannot yield: it needs no gate.
      let options = record.definition.options.operation
      let gate = fetch.mayYield || !options.modifiers.isEmpty ? YieldGate() : nil
      let attempts = await attempt(
        id, of: record, fetch: fetch, options: options, network: network, gate: gate, store: store)
      // Nothing from here on suspends: one strong reference to the store serves every step (a reference taken and
      // dropped per step is two atomic writes each, on a count the threads making holders share).
      let strong = store.store
      (result, outcome) = apply(
        attempts, id, of: record, work: work, before: started, gate: gate, store: strong, writer: writer)
      settings?.fetchEnded(record.key)
      if case .applied = outcome { strong?.persistedValueChanged(record.key) }
      effect = strong?.finished(id, of: record, outcome: outcome) ?? .none
    } else {
      (result, outcome) = (.failure(CancellationError()), .cancelled)
      effect = store.store?.finished(id, of: record, outcome: outcome) ?? .none
    }
    // Heard once the record has settled, before its callers resume and before the work it starts next.
    if let inspected {
      let duration = ContinuousClock.now - inspected.startedAt
      inspected.inspector.publish(
        InspectedKey.id(query: record.key), .fetchEnded(duration: duration, outcome: .init(result)))
    }
    work.finish(result)
    effect()
    // The hooks run last, outside every lock: the callers and the work that follows do not wait for them.
    settings?.report(.query(record.key), result)
  }

  /// Runs the attempts of the fetch of `id` of `record`, with its retries.
  private static func attempt<State: OperationTrackable>(
    _ id: QueryRecordMachine.WorkID,
    of record: QueryRecord<State>,
    fetch: QueryFetcher<State>,
    options: OperationOptions,
    network: NetworkRun?,
    gate: YieldGate?,
    store: WeakQueryStore
  ) async -> RunOutcome<State.Success> {
    await AttemptLoop.run(
      .contextual { context in
        // Borrowed for this attempt only: released before the retry point asks whether anyone else holds it.
        guard let shared = store.store?.borrow(record) else { throw CancellationError() }
        return try await fetch(shared, context)
      },
      options: options,
      network: network,
      yield: gate.map { gate in
        { value, attempt in
          guard gate.isOpen, attempt.isOpen, let shared = store.store?.borrow(record) else { return }
          QueryStore.writeData(into: shared) { state in
            guard gate.isOpen, attempt.isOpen else { return }
            state.applySuccess(value)
            state.operation.noteChange()
          }
        }
      },
      onFailure: { error, failureCount in
        store.store?.borrow(record)?.libraryWithLock { value in
          value.operation.noteFailure(error, failureCount: failureCount)
        }
      },
      mayRetry: {
        // A query nobody holds and no caller awaits stops retrying: it ends as cancelled.
        store.store?.retryPoint(id, of: record) == .retry
      },
      onRetry: { attempt in
        store.store?.borrow(record)?.libraryWithLock { value in value.operation.retry(attempt) }
      })
  }

  /// Writes how the attempts of the fetch of `id` (the unit of work `work`) of `record` ended, as its record decides
  /// (`store` is `nil` once the store went away: the result is then dropped), and closes its gate. A write that the
  /// record's removal detached (``QueryWork/detach()``) is dropped.
  private static func apply<State: OperationTrackable>(
    _ attempts: RunOutcome<State.Success>,
    _ id: QueryRecordMachine.WorkID,
    of record: QueryRecord<State>,
    work: QueryWork,
    before: OperationStatus,
    gate: YieldGate?,
    store: QueryStore?,
    writer: QueryValueWriter<State>?
  ) -> (QueryWork.Outcome, QueryRecordMachine.Outcome) {
    switch attempts {
    case .success(let value):
      // Fresh from this moment: read before the value shows, so no reader sees it stale.
      let now = record.epoch.elapsed()
      let returned = store?.fetchReturned(id, of: record)
      guard case .apply(let keepFetching) = returned?.action, let shared = returned?.value else {
        gate?.close()
        return (.success(value), .cancelled)
      }
      // A holder's fetch writes through the same code, specialized where the holder was made.
      if let writer {
        writer.showSuccess(shared, value, keepFetching, gate, work)
      } else {
        showSuccess(value, in: shared, keepFetching: keepFetching, closing: gate, of: work)
      }
      // The query's rule, if any, is the app's code: run here, outside the lock.
      return (.success(value), .applied(at: record.freshnessTime(of: value, fetchedAt: now)))
    case .cancelled:
      let (action, shared) = store?.fetchStopped(id, of: record, cancelled: true) ?? (.discard, nil)
      shared?.withLockReleasingReplaced { state in
        gate?.close()
        // With work following at once, a first load stays pending and fetching.
        if action == .apply(keepPending: true) || work.isDetached { return }
        if state.operation.status == .pending { state.operation.restore(before) }
        state.operation.endFetch()
      }
      return (.failure(CancellationError()), .cancelled)
    case .failure(let error):
      let (action, shared) = store?.fetchStopped(id, of: record, cancelled: false) ?? (.discard, nil)
      shared?.withLockReleasingReplaced { state in
        gate?.close()
        guard !work.isDetached else { return }  // The record was removed meanwhile: see `showSuccess`.
        Shared<State>.show(attempts, in: &state)
        if action == .apply(keepPending: true) { state.operation.isFetching = true }
      }
      return (.failure(error), .failed)
    }
  }

  /// The network the fetch of `record` follows, if its mode (or the store's) needs one while `gate` follows an
  /// online status; its pauses show in the record's value.
  static func network<State: OperationTrackable>(
    of record: QueryRecord<State>,
    at gate: NetworkGate,
    store: WeakQueryStore
  ) -> NetworkRun? {
    // The common case, no source followed, reads nothing of the query.
    guard gate.followsSource else { return nil }
    let operation = record.definition.options.operation
    guard let mode = gate.mode(for: operation.networkMode) else { return nil }
    // A fetch with no retries that starts now needs nothing more of the gate.
    if operation.retry.retries == 0 && (mode == .offlineFirst || gate.isOnlineNow) { return nil }
    return NetworkRun(gate: gate, mode: mode) { run in
      store.store?.borrow(record)?.libraryWithLock { value in value.operation.showPaused(run.isPaused) }
    }
  }

  /// Shows a fetch starting as ``markPending(_:fetching:)`` does, and paused if it waits for the network (decided
  /// by `network` here, once); returns the status to restore if it is cancelled.
  static func markPending<State: OperationTrackable>(
    _ shared: Shared<State>,
    fetching pages: OperationTracking.PageFetch,
    network: NetworkRun
  ) -> OperationStatus {
    let pauses = network.startsPaused()
    return shared.libraryWithLock { value in
      let before = value.operation.status == .pending ? .idle : value.operation.status
      value.operation.beginFetch(pages)
      // Read under the value's lock: the network may have come back since (see `NetworkRun`).
      if pauses { value.operation.showPaused(network.isPaused) }
      return before
    }
  }

  /// Shows a fetch starting: fetching, attempt 1, pending only for a first load (a refetch keeps its status);
  /// returns the status to restore if it is cancelled (a first load left pending by a cancelled one counts as
  /// idle).
  @inlinable
  static func markPending<State: OperationTrackable>(
    _ shared: Shared<State>,
    fetching pages: OperationTracking.PageFetch = .all
  ) -> OperationStatus {
    shared.libraryWithLock { value in
      let before = value.operation.status == .pending ? .idle : value.operation.status
      value.operation.beginFetch(pages)
      return before
    }
  }

  /// Writes a fetched value, closing the fetch's gate (if it can yield) in the same step; the value stays fetching
  /// when work follows at once (`keepFetching`), so no idle shows between the two.
  ///
  /// Nothing is written when the record was removed after the write was decided (`work` was detached): the value
  /// left the store with it, and the store tells it that no fetch runs; asked under the value's lock, so the value
  /// ends showing no fetch whichever of the two writes comes first.
  @inlinable
  static func showSuccess<State: OperationTrackable>(
    _ value: State.Success,
    in shared: Shared<State>,
    keepFetching: Bool,
    closing gate: YieldGate?,
    of work: QueryWork
  ) {
    writeData(into: shared) { state in
      gate?.close()
      guard !work.isDetached else { return }
      Shared<State>.show(.success(value), in: &state)
      if keepFetching { state.operation.isFetching = true }
    }
  }

  /// Writes data the store brings (a fetch's value, a yielded value, a value the program sets) into `shared`: while
  /// mutations' optimistic changes are pending on it, into its confirmed value, showing the changes over it again
  /// (see ``OptimisticLayer``). The value it replaces is released after the lock.
  @inlinable
  static func writeData<State: OperationTrackable>(into shared: Shared<State>, _ write: (inout State) -> Void) {
    shared.withLockReleasingReplaced(write)
  }

  /// Writes into the value of `root` as ``writeData(into:_:)`` does, only while its version is still `expected`;
  /// returns the version after the write, or `nil` when the value changed since.
  static func writeData<State: OperationTrackable>(
    into root: SharedRoot<State>,
    ifVersion expected: UInt64,
    _ write: (inout State) -> Void
  ) -> UInt64? {
    let written = root.box.withLock(attached: AttachedLayer<State>.self, ifVersion: expected) {
      state, attached -> State in
      let previous = state
      if let attached { attached.layer.write(write, to: &state) } else { write(&state) }
      return previous
    }
    withExtendedLifetime(written?.result) {}  // The state replaced, released after the lock.
    return written?.version
  }

  // MARK: Garbage collection

  /// How many garbage checks run per `gcTime`.
  static var checksPerGCTime: Int { 4 }
}
