/// The record machine's state: its work, demand, freshness and use (see ``QueryRecordMachine``).
extension QueryRecordMachine {
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

  /// What the running work fetches. Only a refresh can be superseded: an invalidation is followed by a refresh,
  /// never by page work fetched again.
  enum Running: Equatable, Sendable {
    /// The query's value again; `superseded`: an invalidation came while it was fetched or written, so a refresh
    /// follows it.
    case refresh(superseded: Bool)
    /// The page after the last loaded one.
    case nextPage
    /// The page before the first loaded one.
    case previousPage

    init(_ work: Work) {
      switch work {
      case .refresh: self = .refresh(superseded: false)
      case .nextPage: self = .nextPage
      case .previousPage: self = .previousPage
      }
    }

    /// The kind of work.
    var work: Work {
      switch self {
      case .refresh: .refresh
      case .nextPage: .nextPage
      case .previousPage: .previousPage
      }
    }

    /// Whether an invalidation superseded this refresh.
    var isSuperseded: Bool { self == .refresh(superseded: true) }
  }

  /// Where the running work is.
  enum Phase: Equatable, Sendable {
    /// Fetching.
    case fetching
    /// Writing its result into the value. `workFollows`: the value was written still fetching, because work follows
    /// at once.
    case applying(workFollows: Bool)
    /// The work that was to follow was withdrawn: the fetching the value was left showing is being ended.
    case settling
  }

  /// Who waits for a unit of work.
  struct Demand: Equatable, Sendable {
    /// How many callers with a task of their own wait for it (each may cancel).
    var callers: Int
    /// Whether the library needs it (a holder appeared, an invalidation, a refetch without a task): then no
    /// caller's cancellation stops it.
    var isNeeded: Bool

    /// Whether nobody waits for it any more.
    var isAbandoned: Bool { callers == 0 && !isNeeded }
  }

  /// Who asks for work.
  enum Requester: Equatable, Sendable {
    /// A caller that receives a task and may cancel it.
    case caller
    /// The library, with no task to cancel.
    case library
  }

  /// The running work and the work waiting behind it.
  struct Busy: Equatable, Sendable {
    var id: WorkID
    var running: Running
    var phase: Phase
    var demand: Demand
    var queue: [Queued]
    /// Whether its task was cancelled because nobody needed it: it ends as cancelled, so nobody may join it.
    var isCancelled = false
    /// Whether the app cancelled the record's fetches: no refresh follows the running work when it ends, until an
    /// invalidation asks for one again.
    var isStopped = false
    /// Whether the app reset the query while the running work wrote its value: the value is reset when the work
    /// ends, after its write.
    var resetsValueAtEnd = false
    /// Whether the value already shows fetching that the running work's task did not mark: the work before it
    /// handed over (or a reset showed a first load for it) when its turn came. A task cancelled as its turn comes
    /// ends without writing anything, so the record ends that fetching (``RequestAction/settleStatus(_:)``) when
    /// nothing follows.
    var isFetchingShown = false
  }

  /// A unit of work waiting for its turn.
  struct Queued: Equatable, Sendable {
    let id: WorkID
    let work: Work
    var demand: Demand
  }

  /// What the record is doing.
  enum Activity: Equatable, Sendable {
    case idle
    /// Boxed: an idle record, as every cached query nobody uses is, keeps only a word for its activity.
    indirect case busy(Busy)
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
}

extension QueryRecordMachine.Work {
  /// What a value shows while this work runs.
  var pages: OperationTracking.PageFetch {
    switch self {
    case .refresh: .all
    case .nextPage: .next
    case .previousPage: .previous
    }
  }
}

extension QueryRecordMachine.Busy {
  /// Whether a refresh asked for now can be served by this running refresh: its value is yet to come, or came
  /// with no invalidation since, and its task was not cancelled (a refresh asked for after that waits for it to
  /// end, then fetches).
  var joinable: Bool {
    running == .refresh(superseded: false) && phase != .settling && !isCancelled
  }
}

extension QueryRecordMachine.Busy {
  /// Adds `demand` to the page work of kind `work` that a new request for it joins, and returns its identifier: the
  /// queued one, or the running one while it fetches (its page is not written yet, and its task was not cancelled).
  /// `nil` when the page asked for is not being fetched: it is the page after the ones fetched.
  mutating func joinPage(
    _ work: QueryRecordMachine.Work,
    _ demand: QueryRecordMachine.Demand
  ) -> QueryRecordMachine.WorkID? {
    if let index = queue.lastIndex(where: { $0.work == work }) {
      queue[index].demand.join(demand)
      return queue[index].id
    }
    guard running.work == work, phase == .fetching, !isCancelled else { return nil }
    self.demand.join(demand)
    return id
  }
}

extension QueryRecordMachine.Demand {
  /// Adds the waiters of another request for the same work.
  mutating func join(_ other: Self) {
    callers += other.callers
    isNeeded = isNeeded || other.isNeeded
  }
}
