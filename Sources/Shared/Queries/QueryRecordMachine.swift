/// The decisions of one cached query: when it fetches, what a finished fetch may do, which page work runs next,
/// and when the record is collected.
///
/// The machine has no lock, task or clock: the ``QueryStore`` asks it under its lock, one event at a time, and
/// performs the returned action after the lock (starts a fetch, lets a queued page fetch run, removes the record).
/// Times are durations on the query's clock since the record was made; the caller reads the clock outside the lock.
///
/// Rules it keeps:
/// - At most one fetch (a refresh or a page fetch) runs per record; the others wait in order.
/// - A value is applied only if no invalidation came while it was fetched; otherwise the refresh fetches again, so
///   a held query always ends on a value fetched after its last invalidation.
/// - A record is collected only after nobody held or fetched it for a whole `gcTime`.
struct QueryRecordMachine: Sendable {
  /// One unit of work on the record; one runs at a time.
  typealias WorkID = UInt64

  /// What a unit of work fetches.
  enum Work: Equatable, Sendable {
    /// The query's value again (for a paginated query: every loaded page, walked from the first).
    case refresh
    /// The page after the last loaded one.
    case nextPage
    /// The page before the first loaded one.
    case previousPage
  }

  /// How the value relates to the latest invalidation.
  enum Freshness: Equatable, Sendable {
    /// Nothing fetched yet.
    case empty
    /// Fetched with no invalidation since, at this time.
    case fetched(at: Duration)
    /// Invalidated since the last fetch.
    case invalidated
  }

  /// Where the running work is.
  enum Phase: Equatable, Sendable {
    /// Fetching.
    case fetching
    /// Fetching, and an invalidation came meanwhile: the result is out of date before it arrives.
    case fetchingSuperseded
    /// Writing its result into the value.
    case applying
    /// Writing its result, and an invalidation came meanwhile: a new refresh follows.
    case applyingSuperseded
  }

  /// The running work and the work waiting behind it.
  struct Busy: Equatable, Sendable {
    var id: WorkID
    var work: Work
    var phase: Phase
    var queue: [Queued]
  }

  /// A unit of work waiting for its turn.
  struct Queued: Equatable, Sendable {
    let id: WorkID
    let work: Work
  }

  /// What the record is doing.
  enum Activity: Equatable, Sendable {
    case idle
    case busy(Busy)
    /// Removed from the store: it takes no more work.
    case collected
  }

  /// Whether the record has been used lately, for garbage collection.
  enum Use: Equatable, Sendable {
    /// Held, fetched or touched since the last garbage check.
    case inUse
    /// Found unused at every garbage check since this time.
    case unusedSince(Duration)
  }

  // MARK: Actions

  /// What the caller does after asking for work.
  enum RequestAction: Equatable, Sendable {
    /// Start this work now.
    case start(WorkID, Work)
    /// This work, already running or queued, serves the request.
    case join(WorkID)
    /// This new work waits its turn; a later action starts it.
    case wait(WorkID)
    /// Nothing to do.
    case none
  }

  /// What the caller does when a fetch returned a value.
  enum ReturnAction: Equatable, Sendable {
    /// Write the value into the state, then report ``QueryRecordMachine/finished(_:outcome:isHeld:)``.
    case apply
    /// Drop the value and fetch again: an invalidation came while it was fetched.
    case fetchAgain
  }

  /// How a unit of work ended.
  enum Outcome: Equatable, Sendable {
    /// Its value was written, at this time.
    case applied(at: Duration)
    /// It failed.
    case failed
    /// It was cancelled.
    case cancelled
  }

  /// What a garbage check decided.
  enum CollectAction: Equatable, Sendable {
    case keep
    /// Remove the record now.
    case collect
  }

  // MARK: State

  /// How long a fetched value is fresh.
  let staleTime: Duration
  /// How long an unused record is kept.
  let gcTime: Duration
  private(set) var activity = Activity.idle
  private(set) var freshness = Freshness.empty
  private(set) var use = Use.inUse
  private var lastID: WorkID = 0

  init(staleTime: Duration, gcTime: Duration) {
    self.staleTime = staleTime
    self.gcTime = gcTime
  }

  /// Whether a unit of work is running.
  var isBusy: Bool {
    if case .busy = activity { return true }
    return false
  }

  /// The running work, if any.
  var running: (id: WorkID, work: Work, phase: Phase)? {
    guard case .busy(let busy) = activity else { return nil }
    return (busy.id, busy.work, busy.phase)
  }

  /// The kind of the queued work `id`, if it is queued.
  func queuedWork(_ id: WorkID) -> Work? {
    guard case .busy(let busy) = activity else { return nil }
    return busy.queue.first { $0.id == id }?.work
  }

  // MARK: Events

  /// A holder appeared: refresh if the value is missing, invalidated or stale at `now`.
  mutating func holderAppeared(now: Duration) -> RequestAction {
    use = .inUse
    return refreshIfStale(now: now)
  }

  /// A trigger asks for a refresh of a held query if its value is missing, invalidated or stale at `now`.
  mutating func refreshIfStale(now: Duration) -> RequestAction {
    switch freshness {
    case .fetched(let at) where now - at < staleTime:
      return .none
    case .empty, .invalidated, .fetched:
      return request(.refresh)
    }
  }

  /// A refresh or a page was asked for.
  ///
  /// A refresh joins a refresh that is queued or still fetching (its value is yet to come); page work always
  /// queues, in the order asked for.
  mutating func request(_ work: Work) -> RequestAction {
    switch activity {
    case .collected:
      return .none
    case .idle:
      let id = makeID()
      activity = .busy(Busy(id: id, work: work, phase: .fetching, queue: []))
      return .start(id, work)
    case .busy(var busy):
      if work == .refresh {
        if let queued = busy.queue.first(where: { $0.work == .refresh }) { return .join(queued.id) }
        if busy.work == .refresh && busy.phase != .applyingSuperseded { return .join(busy.id) }
      }
      let id = makeID()
      busy.queue.append(Queued(id: id, work: work))
      activity = .busy(busy)
      return .wait(id)
    }
  }

  /// Keys under a prefix were invalidated: the value is stale. A running refresh fetches again; an idle held record
  /// refreshes now; running page work is followed by a refresh; an unheld record refreshes on its next holder.
  mutating func invalidated(isHeld: Bool) -> RequestAction {
    use = .inUse
    switch activity {
    case .collected:
      return .none
    case .idle:
      freshness = .invalidated
      return isHeld ? request(.refresh) : .none
    case .busy(var busy):
      freshness = .invalidated
      if busy.queue.contains(where: { $0.work == .refresh }) { return .none }
      if busy.work == .refresh {
        switch busy.phase {
        case .fetching, .fetchingSuperseded: busy.phase = .fetchingSuperseded
        case .applying, .applyingSuperseded: busy.phase = .applyingSuperseded
        }
        activity = .busy(busy)
        return .none
      }
      return request(.refresh)
    }
  }

  /// The running work's fetch returned a value.
  mutating func fetchReturned(_ id: WorkID) -> ReturnAction {
    guard case .busy(var busy) = activity, busy.id == id else { return .apply }
    switch busy.phase {
    case .fetchingSuperseded:
      busy.phase = .fetching
      activity = .busy(busy)
      return .fetchAgain
    case .fetching, .applying, .applyingSuperseded:
      busy.phase = .applying
      activity = .busy(busy)
      return .apply
    }
  }

  /// The running work ended; returns the work to start next, if any.
  ///
  /// A refresh that was invalidated while it wrote its value, or that failed after one, is followed by another
  /// refresh while the query is held.
  mutating func finished(_ id: WorkID, outcome: Outcome, isHeld: Bool) -> RequestAction {
    guard case .busy(var busy) = activity, busy.id == id else { return .none }
    use = .inUse
    let superseded = busy.phase == .applyingSuperseded || busy.phase == .fetchingSuperseded
    if busy.work == .refresh, case .applied(let at) = outcome, !superseded {
      freshness = .fetched(at: at)
    }
    if superseded && isHeld && !busy.queue.contains(where: { $0.work == .refresh }) && outcome != .cancelled {
      let next = makeID()
      busy.id = next
      busy.work = .refresh
      busy.phase = .fetching
      activity = .busy(busy)
      return .start(next, .refresh)
    }
    guard !busy.queue.isEmpty else {
      activity = .idle
      return .none
    }
    let next = busy.queue.removeFirst()
    busy.id = next.id
    busy.work = next.work
    busy.phase = .fetching
    activity = .busy(busy)
    return .start(next.id, next.work)
  }

  /// A garbage check at `now`: collects the record once nobody held or fetched it for a whole `gcTime`.
  mutating func gcTick(now: Duration, isHeld: Bool) -> CollectAction {
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
      return .keep
    case .unusedSince(let since):
      guard now - since >= gcTime else { return .keep }
      activity = .collected
      return .collect
    }
  }

  /// The record was used (a refetch asked for, a value written by the app): the garbage count starts again.
  mutating func touched() {
    use = .inUse
  }

  private mutating func makeID() -> WorkID {
    lastID += 1
    return lastID
  }
}
