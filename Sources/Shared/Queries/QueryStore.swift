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
/// fetches again every loaded page): ``refetch(_:)-(QueryKey)`` here, ``Shared/refetch()`` on a value, and
/// ``Shared/refetchAll()`` on a paginated value all mean that. ``refetchStale(on:matching:)`` refetches only the
/// queries that are held and stale, each time a trigger fires.
public final class QueryStore: Sendable {
  let state = Lock(Records())

  /// The store's records and what orders them, under its lock.
  struct Records: ~Copyable {
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

    /// The record named `key`, if the store keeps one.
    func record(named key: QueryKey) -> (any QueryRecordProtocol)? {
      root.node(at: key.parts)?.record
    }

    /// The record named `key`, if the store keeps one of state type `Tracked`, measuring from `stopwatch` when one is
    /// given (a record removed and made again measures from another).
    func record<Tracked: OperationTrackable>(
      named key: QueryKey,
      as _: Tracked.Type,
      stopwatch: Stopwatch? = nil
    ) -> QueryRecord<Tracked>? {
      guard let record = root.node(at: key.parts)?.record as? QueryRecord<Tracked> else { return nil }
      if let stopwatch, !record.stopwatch.isSame(as: stopwatch) { return nil }
      return record
    }
  }

  /// Readies `record` for a request: the most recently used (for the capacity), and awake if it slept (its value
  /// made again in the store's registry). Call under the lock.
  func use(_ record: some QueryRecordProtocol, in state: inout Records) {
    state.bounds.use(record)
    record.wakeIfSleeping(in: registry, store: self)
  }

  /// The registry whose queries these are; a query made without a holder gets its value there, so a later holder
  /// of its key shares it.
  private let owner: WeakRegistry

  private struct WeakRegistry: Sendable {
    weak var registry: SharedRegistry?
  }

  /// What the store's queries and its registry's mutations share: the options for queries made without their own,
  /// the hooks, the activity counts, the mutation scopes, the network gate and the inspector.
  let services: QueryStoreServices

  /// The persisted cache, once the store persists or hydrates one (see `QueryStore+PersistedCache.swift`).
  let persistedCache = QueryCacheSlot()

  /// The optimistic changes pending, by query key (see `QueryStore+OptimisticChanges.swift`).
  let changes = QueryChangeTable()

  init(registry: SharedRegistry? = nil) {
    owner = WeakRegistry(registry: registry)
    services = QueryStoreServices(inspector: registry?.inspector ?? SharedInspector())
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
    state.withLock { $0.record(named: key) != nil }
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
    let inspects = services.inspector.isAttached
    var keys: [QueryKey] = []
    let (marked, effects) = state.withLock { state -> (Int, [QueryRecordEffect]) in
      var marked = 0
      // A query nobody holds only notes it. The store is not used in the visit: it is referred to weakly, so each
      // retain of it would take the slow path, once per match.
      var decided: [(record: any QueryRecordProtocol, action: QueryRecordMachine.RequestAction)] = []
      state.root.node(at: prefix.parts)?.visitRecords { record in
        marked += 1
        if inspects { keys.append(record.key) }
        let action = record.invalidated(refetchesNow: nil)
        if case .none = action { return }
        decided.append((record, action))
      }
      let effects = decided.map { $0.record.effect(of: $0.action, store: self) }.filter { !$0.isNone }
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
      guard let record = state.record(named: key) else { return nil }
      use(record, in: &state)
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
  /// ``refetch(_:)-(QueryKey)`` does.
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
        records.append((record.key, record.stopwatch))
      }
      return records
    }
    // Reading the clock is the caller's code: outside the lock.
    let times = records.map { ($0.0, $0.1.elapsed()) }
    let effects = state.withLock { state -> [QueryRecordEffect] in
      zip(records, times).compactMap { entry, time in
        // A record collected and made again meanwhile has a clock of its own: this reading is not its time.
        guard let record = state.record(named: time.0), record.stopwatch.isSame(as: entry.1) else {
          return nil
        }
        let effect = record.triggered(trigger, now: time.1, store: self)
        return effect.isNone ? nil : effect
      }
    }
    for effect in effects { effect() }
    return effects.count
  }

  /// The time of the record named `key`, if the store keeps one.
  func recordStopwatch(named key: QueryKey) -> Stopwatch? {
    state.withLock { $0.record(named: key)?.stopwatch }
  }

  /// Turns automatic fetching of the record named `key` (measuring from `stopwatch`) on or off at `now`; returns whether
  /// the store keeps it.
  func setEnabled(_ isEnabled: Bool, key: QueryKey, stopwatch: Stopwatch, now: Duration) -> Bool {
    let effect = state.withLock { state -> QueryRecordEffect? in
      // A record collected and made again meanwhile has a clock of its own: this reading is not its time.
      guard let record = state.record(named: key), record.stopwatch.isSame(as: stopwatch) else { return nil }
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
  /// It edits in place and does not count as fetched: the query keeps its age, its status and its staleness. To
  /// write data the program obtained itself, which counts as fetched when it was obtained, use
  /// ``setFetchedValue(_:for:updatedAt:)`` or ``setFetchedState(for:startingWith:updatedAt:_:)``.
  ///
  /// - Parameters:
  ///   - key: The query's name.
  ///   - type: The query's state type.
  ///   - body: Changes the state.
  /// - Returns: ``QueryUpdateResult/updated``, or why nothing was changed: ``QueryUpdateResult/notCached`` when the
  ///   store keeps no such query, ``QueryUpdateResult/typeMismatch(expected:found:)`` when it keeps it with another
  ///   state type (also recorded in ``SharedRegistry/diagnostics`` and printed to standard error).
  @discardableResult
  public func update<State: OperationTrackable>(
    _ key: QueryKey,
    as type: State.Type,
    _ body: (inout State) -> Void
  ) -> QueryUpdateResult {
    let shared = state.withLock { state -> Shared<State>? in
      guard let record = state.record(named: key, as: State.self) else { return nil }
      record.touch()
      use(record, in: &state)
      return record.shared
    }
    guard let shared else { return missedUpdate(of: key, as: type) }
    shared.withLockReleasingReplaced(body)
    persistedValueChanged(key)
    return .updated
  }

  /// Why a write of `key` as `type` found nothing to change: no such query, or one of another state type, which is
  /// also reported as a diagnostic.
  @usableFromInline
  func missedUpdate<State: OperationTrackable>(of key: QueryKey, as type: State.Type) -> QueryUpdateResult {
    let found = state.withLock { $0.record(named: key)?.stateType }
    guard let found, found != State.self else { return .notCached }
    let expected = String(reflecting: State.self)
    let foundName = String(reflecting: found)
    registry?.report(
      SharedDiagnostic(kind: .queryWriteTypeMismatch(existing: foundName, written: expected), key: "\(key)"))
    return .typeMismatch(expected: expected, found: foundName)
  }

  // MARK: Garbage collection

  /// How many garbage checks run per `gcTime`.
  static var checksPerGCTime: Int { 4 }
}
