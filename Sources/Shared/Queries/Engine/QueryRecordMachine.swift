/// The decisions of one cached query: when it fetches, what a finished fetch may do, which page work runs next,
/// and when the record is collected.
///
/// The machine has no lock, task or clock: the ``QueryStore`` asks it under its lock, one event at a time, and
/// performs the returned action after the lock (starts a fetch, lets a queued page fetch run, removes the record).
/// Times are durations on the query's clock since the record was made; the caller reads the clock outside the lock.
///
/// Rules it keeps:
/// - At most one fetch (a refresh or a page fetch) runs per record; the others wait in order.
/// - A page asked for while the same page work is queued, or runs and has not written its page, joins it.
/// - Every fetched value is written; a refresh that an invalidation superseded is followed by another, so a held
///   query always ends on a value fetched after its last invalidation.
/// - Work that a caller cancels is cancelled only when nobody else needs it (another caller, an invalidation);
///   queued work nobody needs is withdrawn at once. A refresh cancelled that way is followed by another while the
///   query is held, so its holders still end on a fresh value.
/// - Between queued works the value stays fetching: a result written with work behind it keeps `isFetching`.
///   Fetching the value shows is always ended: by the work it shows, or, when that work's task was cancelled as its
///   turn came (it writes nothing), by the record once nothing follows.
/// - A failed or cancelled fetch writes its end still fetching exactly when work follows it at once, so the value
///   never stops fetching and fetches again in one go.
/// - A fetch nobody needs any more (no holder, no awaiting caller) does not retry: it ends as cancelled.
/// - A record is collected only after nobody held or fetched it for a whole `gcTime`, or evicted over the store's
///   capacity only while nothing holds or fetches it.
/// - The app's cancel, remove and reset stop the record's fetches: no refresh follows them until something asks
///   again (a reset asks at once for a held record).
/// - A disabled record fetches only when asked to explicitly (a refetch, a page, an awaiting caller, a prefetch):
///   holders, invalidations and triggers leave it alone until it is enabled again.
struct QueryRecordMachine: Sendable {
  /// One unit of work on the record; one runs at a time.
  typealias WorkID = UInt64

  // MARK: State

  // In this order, the flag fills a gap the layout would leave: every cached query keeps a machine.
  private(set) var activity = Activity.idle
  /// The identifier of the latest work made; the next is one more.
  private(set) var lastID: WorkID = 0
  private(set) var freshness = Freshness.empty
  /// Whether holders, invalidations and triggers fetch; see ``enabled(now:staleTime:isHeld:)``.
  private(set) var isEnabled = true
  private(set) var use = Use.inUse

  init() {}

  /// A record that fetches automatically when `isEnabled`, and otherwise only when asked to explicitly.
  init(isEnabled: Bool) {
    self.isEnabled = isEnabled
  }

  /// A machine whose work identifiers start after `firstID`: the store gives each record its own range, so that
  /// the late report of a record it removed never names work of the record made after it under the same key.
  init(isEnabled: Bool, identifiersAfter firstID: WorkID) {
    self.isEnabled = isEnabled
    lastID = firstID
  }

  /// The running work, if any.
  var running: (id: WorkID, work: Work, phase: Phase, isSuperseded: Bool)? {
    guard case .busy(let busy) = activity else { return nil }
    return (busy.id, busy.running.work, busy.phase, busy.running.isSuperseded)
  }

  // MARK: Events

  /// A holder appeared: refresh as `condition` says (by default, if the value is missing, invalidated or older than
  /// `staleTime` at `now`). Whatever the condition, a missing or invalidated value is fetched: `.never` only spares
  /// a fetched value its age.
  mutating func holderAppeared(
    now: Duration,
    staleTime: Duration,
    condition: RefetchCondition = .ifStale
  ) -> RequestAction {
    use = .inUse
    if condition == .never, case .fetched = freshness { return .none }
    return triggered(now: now, staleTime: staleTime, condition: condition == .never ? .ifStale : condition)
  }

  /// A trigger asks for a refresh of a held query if its value is missing, invalidated or older than `staleTime`
  /// at `now`.
  mutating func refreshIfStale(now: Duration, staleTime: Duration) -> RequestAction {
    guard isEnabled else { return .none }
    return refreshIfStaleWhenAsked(now: now, staleTime: staleTime)
  }

  /// A trigger (an interval, a reconnect, the app becoming active) asks for a refresh as `condition` says:
  /// `.always` refreshes whatever the value's age (joining a refresh under way, as every library refresh does),
  /// `.ifStale` as ``refreshIfStale(now:staleTime:)``, `.never` not at all. A disabled record ignores triggers.
  mutating func triggered(now: Duration, staleTime: Duration, condition: RefetchCondition) -> RequestAction {
    guard isEnabled else { return .none }
    switch condition {
    case .never: return .none
    case .ifStale: return refreshIfStaleWhenAsked(now: now, staleTime: staleTime)
    case .always: return request(.refresh, by: .library)
    }
  }

  /// Someone asks for the value ahead of need (a prefetch): a refresh if it is missing, invalidated or older than
  /// `staleTime` at `now`, even while the record is disabled (asking is explicit). Counts as a use.
  mutating func prefetchRequested(now: Duration, staleTime: Duration) -> RequestAction {
    use = .inUse
    return refreshIfStaleWhenAsked(now: now, staleTime: staleTime)
  }

  /// Automatic fetching was turned on: a held record whose value is missing, invalidated or older than `staleTime`
  /// at `now` refreshes at once (joining a refresh under way, or queued behind page work).
  mutating func enabled(now: Duration, staleTime: Duration, isHeld: Bool) -> RequestAction {
    guard activity != .collected else { return .none }
    isEnabled = true
    guard isHeld else { return .none }
    use = .inUse
    return refreshIfStale(now: now, staleTime: staleTime)
  }

  /// The program set the value itself, obtained at `at` (a value it learned another way, or an initial value): the
  /// value counts as fetched then, so `staleTime` decides from `at` whether holders refetch. A use.
  ///
  /// Work under way goes on and writes its own value when it ends (a refresh then counts as fetched at its end). A
  /// refresh an invalidation overtook writes a value older than that invalidation: the value stays invalidated, so
  /// that a refresh still follows it (at once while held, on the next holder otherwise). A reset that waits for the
  /// running work's write (``resetsValueAtEnd(of:)``) still resets the value as that work ends, the set value with
  /// it.
  mutating func valueSet(obtainedAt at: Duration) {
    guard activity != .collected else { return }
    use = .inUse
    if case .busy(let busy) = activity {
      if busy.resetsValueAtEnd { return }
      if busy.running.isSuperseded && busy.phase != .settling { return }
    }
    freshness = .fetched(at: at)
  }

  /// Automatic fetching was turned off: holders, invalidations and triggers no longer fetch, nor does a refresh
  /// that an invalidation superseded. Work under way or asked for runs to its end.
  mutating func disabled() {
    isEnabled = false
  }

  private mutating func refreshIfStaleWhenAsked(now: Duration, staleTime: Duration) -> RequestAction {
    switch freshness {
    case .fetched(let at) where now - at < staleTime:
      return .none
    case .empty, .invalidated, .fetched:
      return request(.refresh, by: .library)
    }
  }

  /// A refresh or a page was asked for.
  ///
  /// A refresh joins a queued refresh, or the running one if no invalidation superseded it. A page joins the same
  /// page work when it is queued, or running and not yet written (the page the caller asks for is the one being
  /// fetched); otherwise it queues, in the order asked for.
  mutating func request(_ work: Work, by requester: Requester) -> RequestAction {
    let demand = Demand(callers: requester == .caller ? 1 : 0, isNeeded: requester == .library)
    switch activity {
    case .collected:
      return .none
    case .idle:
      let id = makeID()
      activity = .busy(Busy(id: id, running: Running(work), phase: .fetching, demand: demand, queue: []))
      return .start(id, work)
    case .busy(var busy):
      if work == .refresh {
        if let index = busy.queue.firstIndex(where: { $0.work == .refresh }) {
          busy.queue[index].demand.join(demand)
          activity = .busy(busy)
          return .join(busy.queue[index].id)
        }
        if busy.joinable {
          busy.demand.join(demand)
          activity = .busy(busy)
          return .join(busy.id)
        }
      } else if let joined = busy.joinPage(work, demand) {
        activity = .busy(busy)
        return .join(joined)
      }
      let id = makeID()
      busy.queue.append(Queued(id: id, work: work, demand: demand))
      activity = .busy(busy)
      return .wait(id, work)
    }
  }

  /// A caller awaits the query's value, taking a cached one as `acceptance` allows at `now`.
  ///
  /// A value fetched less than `staleTime` ago with no invalidation since always serves. Otherwise the caller
  /// waits for a refresh it asked for (joining one under way), unless `acceptance` takes an older value: then the
  /// cached value serves, refetched in the background for ``Acceptance/staleWhileRefetching``. A record with
  /// nothing fetched yet always fetches. The request counts as a use for garbage collection.
  mutating func valueRequested(now: Duration, staleTime: Duration, accepting acceptance: Acceptance) -> ValueAction {
    guard activity != .collected else { return .awaitFetch(.none) }
    use = .inUse
    switch (freshness, acceptance) {
    case (.fetched(let at), _) where now - at < staleTime:
      return .serveCached
    case (.empty, _), (_, .fresh):
      return .awaitFetch(request(.refresh, by: .caller))
    case (_, .anyAge):
      return .serveCached
    case (_, .staleWhileRefetching):
      return .serveCachedAndRefetch(request(.refresh, by: .library))
    }
  }

  /// A caller awaits the query's value and asks before reading the clock: a value fetched with no invalidation
  /// since may serve, if the clock (read after this event, so no earlier than it) finds it younger than
  /// `staleTime`. A time read later than the event only makes the check stricter: whatever serves was fresh when
  /// asked, as ``valueRequested(now:staleTime:accepting:)`` would have found it. The request counts as a use.
  mutating func valuePeeked() -> PeekAction {
    guard activity != .collected, case .fetched(let at) = freshness else { return .ask }
    use = .inUse
    return .serveIfYounger(fetchedAt: at)
  }

  /// Keys under a prefix were invalidated: the value is stale. A running refresh fetches again after it; an idle
  /// held record refreshes now; running page work is followed by a refresh; an unheld record refreshes on its next
  /// holder.
  mutating func invalidated(isHeld: Bool) -> RequestAction {
    use = .inUse
    switch activity {
    case .collected:
      return .none
    case .idle:
      freshness = .invalidated
      return isHeld && isEnabled ? request(.refresh, by: .library) : .none
    case .busy(var busy):
      freshness = .invalidated
      if let index = busy.queue.firstIndex(where: { $0.work == .refresh }) {
        if isHeld { busy.queue[index].demand.isNeeded = true }
        activity = .busy(busy)
        return .none
      }
      if case .refresh = busy.running, busy.phase != .settling {
        // The refetch that follows is the one the holders need: a cancelled fetch is followed by it too.
        busy.running = .refresh(superseded: true)
        busy.isStopped = false
        activity = .busy(busy)
        return .none
      }
      return isHeld && isEnabled ? request(.refresh, by: .library) : .none
    }
  }

  /// A caller of the work `id` cancelled its task.
  ///
  /// The work is cancelled only when nobody else waits for it: another caller, a holder, an invalidation.
  mutating func cancelRequested(_ id: WorkID) -> CancelAction {
    guard case .busy(var busy) = activity else { return .leave }
    if busy.id == id {
      busy.demand.callers = max(0, busy.demand.callers - 1)
      activity = .busy(busy)
      // A task cancelled already (by the app, or as nobody needed it) is not cancelled again.
      guard busy.demand.isAbandoned, case .fetching = busy.phase, !busy.isCancelled else { return .leave }
      busy.isCancelled = true
      activity = .busy(busy)
      return .cancelRunning(id)
    }
    guard let index = busy.queue.firstIndex(where: { $0.id == id }) else { return .leave }
    busy.queue[index].demand.callers = max(0, busy.queue[index].demand.callers - 1)
    guard busy.queue[index].demand.isAbandoned else {
      activity = .busy(busy)
      return .leave
    }
    busy.queue.remove(at: index)
    activity = .busy(busy)
    return .withdraw(id)
  }

  /// The running work's fetch returned a value.
  ///
  /// The value is always written, even when an invalidation came meanwhile (the screen shows progress, never a
  /// value older than what it shows, since one fetch runs at a time); a refetch then follows, so a held query
  /// still ends on a value fetched after its last invalidation.
  mutating func fetchReturned(_ id: WorkID) -> ReturnAction {
    guard case .busy(var busy) = activity, busy.id == id, busy.phase == .fetching else { return .discard }
    let workFollows = !busy.queue.isEmpty || (isEnabled && leavesHoldersUnanswered(busy, cancelled: false))
    busy.phase = .applying(workFollows: workFollows)
    activity = .busy(busy)
    return .apply(keepPending: workFollows)
  }

  /// The running work's fetch failed or was cancelled: its end is about to be written. Returns whether work follows
  /// at once (``ReturnAction/apply(keepPending:)``, so the value stays fetching), or ``ReturnAction/discard`` when
  /// the work is not the running one.
  ///
  /// Work follows when some waits in the queue, or when the query is held (`isHeld`) and enabled and the refresh
  /// leaves its holders unanswered, by the rule ``finished(_:outcome:isHeld:)`` follows it with another refresh by:
  /// an invalidation superseded it, or it was cancelled while the value is invalidated or because its callers left.
  /// The two agree, so a value written as stopped does not fetch again at once.
  mutating func fetchStopped(_ id: WorkID, cancelled: Bool, isHeld: Bool) -> ReturnAction {
    guard case .busy(var busy) = activity, busy.id == id, busy.phase == .fetching else { return .discard }
    let workFollows = followsAtOnce(busy, cancelled: cancelled, isHeld: isHeld)
    busy.phase = .applying(workFollows: workFollows)
    activity = .busy(busy)
    return .apply(keepPending: workFollows)
  }

  /// Whether work follows the running work at once as it ends failed (or `cancelled`): queued work, or a refresh
  /// its holders (`isHeld`) still need.
  private func followsAtOnce(_ busy: Busy, cancelled: Bool, isHeld: Bool) -> Bool {
    !busy.queue.isEmpty || (isHeld && isEnabled && leavesHoldersUnanswered(busy, cancelled: cancelled))
  }

  /// Whether the running work is a refresh whose end leaves a holder without the value it needs, so that another
  /// refresh follows it: an invalidation superseded it, or it was `cancelled` while the value is invalidated or
  /// because its callers left (a holder needs a value as fresh as they asked for). Never after the app stopped the
  /// record's fetches.
  private func leavesHoldersUnanswered(_ busy: Busy, cancelled: Bool) -> Bool {
    guard case .refresh(let superseded) = busy.running, !busy.isStopped else { return false }
    return superseded || (cancelled && (freshness == .invalidated || busy.isCancelled))
  }

  /// An attempt of the work `id` failed and a retry is due (before its wait, and again after it): the work retries
  /// only while the query is held (`isHeld`, not counting the fetch's own use of the value) or a caller awaits it.
  /// Otherwise its task ends as cancelled, and nobody joins it meanwhile.
  mutating func retryPoint(_ id: WorkID, isHeld: Bool) -> RetryAction {
    guard case .busy(var busy) = activity, busy.id == id, busy.phase == .fetching, !busy.isCancelled else {
      return .stop
    }
    if isHeld || busy.demand.callers > 0 { return .retry }
    busy.isCancelled = true
    activity = .busy(busy)
    return .stop
  }

  /// The running work ended; returns the work to start next, if any.
  ///
  /// A refresh superseded by an invalidation is followed by another refresh while the query is held (or always,
  /// when it left the status pending for it); so is a cancelled refresh of a held query whose value is invalidated.
  ///
  /// A work that ends while still fetching wrote nothing: its task was cancelled as its turn came, before it marked
  /// the value fetching. What follows it is what would follow a fetch cancelled at once; when nothing does, the
  /// fetching the value shows for it (``Busy/isFetchingShown``) is ended with ``RequestAction/settleStatus(_:)``.
  mutating func finished(_ id: WorkID, outcome: Outcome, isHeld: Bool) -> RequestAction {
    guard case .busy(var busy) = activity, busy.id == id else { return .none }
    use = .inUse
    // Whether work follows at once, as decided when the end was written; whether the value shows fetching now.
    let workFollows: Bool
    let isFetchingShown: Bool
    switch busy.phase {
    case .fetching:
      workFollows = followsAtOnce(busy, cancelled: outcome == .cancelled, isHeld: isHeld)
      isFetchingShown = busy.isFetchingShown
    case .applying(let wasWrittenFetching):
      workFollows = wasWrittenFetching
      isFetchingShown = wasWrittenFetching
    case .settling:
      return .none
    }
    guard case .refresh(let superseded) = busy.running else {
      return startQueuedOrSettle(&busy, isFetchingShown: isFetchingShown)
    }
    if case .applied(let at) = outcome, !superseded {
      freshness = .fetched(at: at)
    }
    let refreshQueued = busy.queue.firstIndex { $0.work == .refresh }
    // A refresh its callers cancelled (nobody else awaited it) still answers a holder, which needs a value as fresh
    // as the callers asked for: while held, another follows, as after an invalidation.
    let unanswered = leavesHoldersUnanswered(busy, cancelled: outcome == .cancelled)
    if unanswered, workFollows || isHeld, let index = refreshQueued {
      // The refresh that waits answers the invalidation: no caller's cancellation may withdraw it now.
      busy.queue[index].demand.isNeeded = true
    } else if unanswered, isEnabled, workFollows || isHeld {
      let next = makeID()
      busy.id = next
      busy.running = .refresh(superseded: false)
      busy.phase = .fetching
      busy.demand = Demand(callers: 0, isNeeded: true)
      busy.isCancelled = false
      busy.resetsValueAtEnd = false
      busy.isFetchingShown = false  // Started at once: the store marks it fetching before anything else.
      activity = .busy(busy)
      return .start(next, .refresh)
    }
    return startQueuedOrSettle(&busy, isFetchingShown: isFetchingShown)
  }

  /// Starts the queued work, or ends the fetching the value shows (`isFetchingShown`), or goes idle.
  private mutating func startQueuedOrSettle(_ busy: inout Busy, isFetchingShown: Bool) -> RequestAction {
    // A value reset as the work ends shows a first load for the work that starts (and nothing when none does).
    if !busy.queue.isEmpty { return startNext(&busy, isFetchingShown: isFetchingShown || busy.resetsValueAtEnd) }
    if isFetchingShown {
      busy.phase = .settling
      activity = .busy(busy)
      return .settleStatus(busy.id)
    }
    activity = .idle
    return .none
  }

  /// The fetching left showing by the work `id` was ended; returns the work to start next, if any.
  mutating func settled(_ id: WorkID) -> RequestAction {
    guard case .busy(var busy) = activity, busy.id == id, busy.phase == .settling else { return .none }
    guard busy.queue.isEmpty else { return startNext(&busy, isFetchingShown: false) }
    activity = .idle
    return .none
  }

  /// The app cancelled the record's fetches: the running work is cancelled if it still fetches, queued work is
  /// withdrawn, and no refresh follows them (an invalidation that comes later asks for one again).
  mutating func fetchesCancelled() -> StopAction {
    guard case .busy(var busy) = activity else { return .none }
    let withdrawn = busy.queue.map(\.id)
    busy.queue = []
    busy.isStopped = true
    busy.demand = Demand(callers: 0, isNeeded: false)
    var cancelled: WorkID?
    if busy.phase == .fetching && !busy.isCancelled {
      busy.isCancelled = true
      cancelled = busy.id
    }
    activity = .busy(busy)
    return StopAction(cancelRunning: cancelled, withdraw: withdrawn)
  }

  /// The app reset the query to its initial state: its fetches stop as ``fetchesCancelled()`` stops them, nothing
  /// fetched counts any more (the freshness is empty), and a held, enabled query (`isHeld`) fetches again at once,
  /// behind the cancelled work if some still runs; an unheld one fetches on its next holder or caller.
  ///
  /// Running work whose value is already being written cannot be stopped: the value is reset when it ends, after
  /// its write, and a refresh written so makes nothing fresh: the record stays empty until a refresh asked for after
  /// the reset ends.
  mutating func reset(isHeld: Bool) -> ResetAction {
    use = .inUse
    freshness = .empty
    let refetches = isHeld && isEnabled
    switch activity {
    case .collected:
      return ResetAction(stop: .none, refresh: .none, resetsValueNow: false)
    case .idle:
      return ResetAction(
        stop: .none, refresh: refetches ? request(.refresh, by: .library) : .none, resetsValueNow: true)
    case .busy(var busy):
      if case .applying = busy.phase { busy.resetsValueAtEnd = true }
      let withdrawn = busy.queue.map(\.id)
      busy.queue = []
      busy.isStopped = true
      busy.demand = Demand(callers: 0, isNeeded: false)
      // Nobody joins the running work any more, and a refresh written after the reset makes nothing fresh.
      if case .refresh = busy.running { busy.running = .refresh(superseded: true) }
      var cancelled: WorkID?
      if busy.phase == .fetching && !busy.isCancelled {
        busy.isCancelled = true
        cancelled = busy.id
      }
      var refresh = RequestAction.none
      if refetches {
        let id = makeID()
        busy.queue = [Queued(id: id, work: .refresh, demand: Demand(callers: 0, isNeeded: true))]
        refresh = .wait(id, .refresh)
      }
      // Reset now, the value shows a first load for the refresh queued, or no fetching at all.
      if !busy.resetsValueAtEnd { busy.isFetchingShown = refetches }
      activity = .busy(busy)
      return ResetAction(
        stop: StopAction(cancelRunning: cancelled, withdraw: withdrawn), refresh: refresh,
        resetsValueNow: !busy.resetsValueAtEnd)
    }
  }

  /// Whether the value is to be reset as the work `id` ends: the app reset the query while the work wrote its
  /// value. Ask before ``finished(_:outcome:isHeld:)``.
  func resetsValueAtEnd(of id: WorkID) -> Bool {
    guard case .busy(let busy) = activity, busy.id == id else { return false }
    return busy.resetsValueAtEnd
  }

  /// The app removed the record from the store: it takes no more work; the running work is cancelled if it still
  /// fetches, its write is dropped if it writes its value (``StopAction/detachWriting``), and queued work is
  /// withdrawn.
  mutating func removed() -> StopAction {
    defer { activity = .collected }
    guard case .busy(let busy) = activity else { return .none }
    let fetching = busy.phase == .fetching && !busy.isCancelled
    let writing: Bool
    if case .applying = busy.phase { writing = true } else { writing = false }
    return StopAction(
      cancelRunning: fetching ? busy.id : nil, withdraw: busy.queue.map(\.id), detachWriting: writing ? busy.id : nil)
  }

  /// A garbage check at `now`: collects the record once nobody held or fetched it for a whole `gcTime`.
  mutating func gcTick(now: Duration, gcTime: Duration, isHeld: Bool) -> CollectAction {
    switch activity {
    case .collected:
      return .collect
    case .busy:
      use = .inUse
      return .keep
    case .idle:
      break
    }
    if isHeld {
      use = .inUse
      return .keep
    }
    switch use {
    case .inUse:
      use = .unusedSince(now)
      // A gcTime of zero: removed at the first check that finds it unused.
      guard gcTime > .zero else {
        activity = .collected
        return .collect
      }
      return .keep
    case .unusedSince(let since):
      guard now - since >= gcTime else { return .keep }
      activity = .collected
      return .collect
    }
  }

  /// How long after a garbage check at `now` the record needs the next one, `interval` being a quarter of its
  /// `gcTime`: within `interval`, so that a release is found no later than that (a record used again since it was
  /// found unused is found unused again), and, for a record found unused, exactly when its `gcTime` is up. A record
  /// then goes between one and one and a quarter `gcTime` after its last use, whatever the other records need.
  func nextGCCheck(now: Duration, gcTime: Duration, interval: Duration) -> Duration {
    guard case .unusedSince(let since) = use, gcTime > .zero else { return interval }
    return max(.zero, min(interval, since + gcTime - now))
  }

  /// The store is over its capacity and this is the least recently used record it may drop: collects the record
  /// if nobody holds it and no work runs or waits on it.
  mutating func evicted(isHeld: Bool) -> CollectAction {
    switch activity {
    case .collected:
      return .collect
    case .busy:
      return .keep
    case .idle:
      guard !isHeld else { return .keep }
      activity = .collected
      return .collect
    }
  }

  /// The record was used (a refetch asked for, a value written by the app): the garbage count starts again.
  mutating func touched() {
    use = .inUse
  }

  /// Starts the first queued work; `isFetchingShown`: the value already shows fetching when its turn comes.
  private mutating func startNext(_ busy: inout Busy, isFetchingShown: Bool) -> RequestAction {
    let next = busy.queue.removeFirst()
    busy.id = next.id
    busy.running = Running(next.work)
    busy.phase = .fetching
    busy.demand = next.demand
    busy.isCancelled = false
    busy.isStopped = false  // The app's cancel stopped the work before this one, asked for after it.
    busy.resetsValueAtEnd = false
    busy.isFetchingShown = isFetchingShown
    activity = .busy(busy)
    return .start(next.id, next.work)
  }

  private mutating func makeID() -> WorkID {
    lastID += 1
    return lastID
  }
}
