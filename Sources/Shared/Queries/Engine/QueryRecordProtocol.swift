/// What the store needs of a query without knowing its state type.
///
/// Every method is called under the ``QueryStore``'s lock; what it returns to run is run after the lock.
protocol QueryRecordProtocol: AnyObject {
  /// The query's name.
  var key: QueryKey { get }
  /// The record's stopwatch, started on the query's clock when the record was made: its time (read outside the
  /// lock), and its identity: a record made again under the same key has another, so a caller that read one
  /// record's time can tell it from its successor (``Stopwatch/isSame(as:)``).
  var stopwatch: Stopwatch { get }
  /// Turns automatic fetching on or off at `now`; returns what to start after the lock.
  func setEnabled(_ isEnabled: Bool, now: Duration, store: QueryStore) -> QueryRecordEffect
  /// Marks the query stale, the one way every invalidation takes: refetching now if `refetchesNow` (`nil`: if it is
  /// held). Returns the machine's decision; one other than `.none` goes to ``effect(of:store:)``. Needs no store, and
  /// a query that does not refetch needs no generic planning: an invalidation asks this of every matched query.
  func invalidated(refetchesNow: Bool?) -> QueryRecordMachine.RequestAction
  /// Whether something besides the record refers to the value (a holder, an iteration, an observer, a fetch). It can
  /// change at any moment outside the store's lock: a caller that needs it for two decisions reads it once.
  var isHeld: Bool { get }
  /// What to start after the lock for a decision of ``invalidated(refetchesNow:)``.
  func effect(of action: QueryRecordMachine.RequestAction, store: QueryStore) -> QueryRecordEffect
  /// Asks for a refresh; returns what to start after the lock.
  func refetch(store: QueryStore) -> QueryRecordEffect
  /// A trigger at `now` asks for a refresh of the query, as its options say for that trigger; returns what to start
  /// after the lock.
  func triggered(_ trigger: QueryTrigger, now: Duration, store: QueryStore) -> QueryRecordEffect
  /// The query's state type, to name in a diagnostic when a write asks for another.
  var stateType: Any.Type { get }
  /// Whether a tick of the query's interval refetches it even while nobody holds it (so the store wakes it first).
  var refetchesWhileUnheld: Bool { get }
  /// Whether a tick of the query's interval refetches it while a focus source says the app is inactive.
  var refetchesIntervalInBackground: Bool { get }
  /// The timer the query refetches on, if it has a ``QueryOptions/refetchInterval``.
  var intervalKey: QueryIntervalKey? { get }
  /// When the value was fetched (or set), with no invalidation since; `nil` for a missing or invalidated value.
  var fetchedAt: Duration? { get }
  /// How long a value stays fresh.
  var staleTime: Duration { get }
  /// One garbage check at `now`.
  func gcTick(now: Duration) -> QueryRecordMachine.CollectAction
  /// Notes a use, so garbage collection counts a whole gcTime from now.
  func touch()
  /// Right after ``invalidated(refetchesNow:)`` was told `refetches`, joins as an awaiting caller the
  /// refetch that answers the invalidation: the one it started, the refetch queued already, or one queued behind the
  /// fetch under way. Returns that refetch (`nil` when none follows: a query that does not refetch, or a disabled
  /// one), and what to start after the lock.
  func refetchAnsweringInvalidation(
    refetches: Bool,
    store: QueryStore
  ) -> (refetch: (id: QueryRecordMachine.WorkID, work: QueryWork)?, effect: QueryRecordEffect)
  /// A caller of the unit of work `id` (the object `work`) stopped waiting for it: returns what to do after the
  /// lock, and a withdrawn unit of work to release after it.
  func cancelRequested(
    _ id: QueryRecordMachine.WorkID,
    work: QueryWork
  ) -> (withdrawn: QueryWork?, effect: QueryRecordEffect)
  /// Stops the query's fetches (`removing`: for good, as the record leaves the store); returns what to do after the
  /// lock, which also releases the withdrawn work there.
  func stopFetches(removing: Bool) -> QueryRecordEffect
  /// Puts the query back in its initial state: stops its fetches, forgets what was fetched, and refetches a held
  /// query; returns what to do after the lock (write the value, cancel, start), which also releases what it replaced.
  func reset(store: QueryStore) -> QueryRecordEffect
  /// An awaiting caller asks before reading the clock: the time of a value fetched with no invalidation since, the
  /// query's `staleTime`, the value's box (to read after the lock) and the record's time, if the value may serve,
  /// the state type is `stateType` and the record measures from `stopwatch` (when given); a use.
  func valuePeeked(stopwatch: Stopwatch?, stateType: ObjectIdentifier) -> QueryValuePeek?
  /// The store is over its capacity: whether the record may go now (nobody holds it, no work runs on it).
  func evicted() -> QueryRecordMachine.CollectAction
  /// The clock the query measures its time on.
  var clockKey: QueryClockKey { get }
  /// How often the store's sweeper checks the query.
  var gcCheckInterval: Duration { get }
  /// How long after a garbage check at `now` the query needs the next one (see
  /// ``QueryRecordMachine/nextGCCheck(now:gcTime:interval:)``).
  func nextGCCheck(now: Duration) -> Duration
  /// Frees the value's box if nothing uses the query; returns what to release after the lock.
  func sleepIfUnused() -> Any?
  /// Makes a box again for a sleeping query.
  func wakeIfSleeping(in registry: SharedRegistry?, store: QueryStore)
  /// The less recently used neighbour in the store's recency list.
  var older: (any QueryRecordProtocol)? { get set }
  /// The more recently used neighbour in the store's recency list.
  var newer: (any QueryRecordProtocol)? { get set }
  /// What a filter's query conditions read of the record under the store's lock (see
  /// `QueryRecord+Filtering.swift`).
  func filterParts() -> QueryFilterParts
  /// What an inspection reads of the record under the store's lock (see `QueryRecord+Inspection.swift`).
  func inspectionParts() -> QueryRecordParts
  /// The write that forces the value into the state `action` names, to run after the lock; `nil` for a sleeping
  /// query or another action. The write returns the state it replaced.
  func forcing(_ action: InspectorAction) -> (@Sendable () -> ForcedQueryState?)?
  /// The write that puts back the state a force replaced while the value is still the forced one, to run after the
  /// lock (it returns whether it wrote); `nil` for a sleeping query or a state of another type.
  func restoring(_ forced: ForcedQueryState) -> (@Sendable () -> Bool)?
}

/// What an awaiting caller learns of a record before it reads the clock (see ``QueryRecordProtocol/valuePeeked(stopwatch:stateType:)``).
struct QueryValuePeek {
  /// When the value was fetched, with no invalidation since.
  let fetchedAt: Duration
  /// How long a value stays fresh.
  let staleTime: Duration
  /// The value's box, read after the lock.
  let box: AnyObject
  /// The record's time.
  let stopwatch: Stopwatch

  /// Whether the value is fresh: reads the clock (the caller's code: after the lock).
  var isFresh: Bool { stopwatch.elapsed() - fetchedAt < staleTime }
}
