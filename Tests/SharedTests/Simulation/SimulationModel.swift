/// The reference model of a simulated program: what the documentation promises the store shows, step by step.
///
/// Optimistic changes follow the one rule: a query keeps a confirmed value and its pending changes in the order
/// their mutations started; every write that is not an optimistic change goes to the confirmed value; the value
/// shown is the confirmed value with each pending change applied. A change whose mutation fails or is cancelled is
/// dropped; one whose mutation succeeds stays until a fetch brings the server's data (which then holds it).
///
/// Where the documentation leaves a choice open (whether a query is collected at 1.1x its gcTime, what a holder
/// shows after the query it held was removed), the model abstains: it keeps an interval or marks a value unknown,
/// rather than guessing.
struct SimulationModel {
  struct Query {
    var exists = false
    /// Bumped each time the query leaves the store, so that a fetch of an earlier query is told apart.
    var generation = 0
    var confirmed: [Int]?
    /// When the value was fetched or set, on the clock; `nil` if never, or since a reset.
    var fetchedAt: Duration?
    var isInvalidated = false
    var invalidatedAt = 0
    /// Holders that have not let go and were not detached by a removal.
    var holders = 0
    /// The step since which a held query owes a fetch: a fetch that started at or after it must answer it.
    var owesFetchSince: Int?
    /// The value is unknown (a new query made after a removal shares what the detached holders show) until a fetch
    /// brings one.
    var isValueUnknown = false
    /// The latest moment it was surely in use, and the latest it may have been (for its collection window).
    var surelyUsedAt = Duration.zero
    var maybeUsedAt = Duration.zero
    /// A value restored from a persisted cache: its age is the wall clock's, so whether it is fresh is not known.
    var isFreshnessUnknown = false
    /// A removal detached holders from it: until their value is released (which the app does not see), a query made
    /// again may share it.
    var mayShareDetachedValue = false
  }

  /// What the persisted cache holds for a query: its confirmed value and whether it was invalidated.
  struct Persisted {
    var value: [Int]
    var isInvalidated: Bool
    /// The program edited it while it waited to be restored (`update` on a query the store may not count as kept).
    var isUnknown = false
  }

  enum ChangeStatus: Equatable {
    case pending
    case succeeded
  }

  struct Change {
    var mutation: Int
    var key: Int
    var item: Int
    var status: ChangeStatus
  }

  let setup: SimulationSetup
  var queries: [Query]
  var now = Duration.zero
  var isOnline = true
  /// Pending and succeeded changes, in the order their mutations started.
  var changes: [Change] = []
  /// Items that may or may not show in a query's value (see the type's comment).
  var ambiguous: [Set<Int>]
  /// Each query's entry in the persisted cache (when the program persists one), as the last write left it.
  var persisted: [Int: Persisted] = [:]
  /// The entries a launch restored, waiting for their query's first use.
  var restored: [Int: Persisted] = [:]
  /// Items of mutations that failed or were cancelled: never shown again.
  var endedItems: Set<Int> = []
  /// The item of every mutation, and the `.dedupe` ones (which may join a run under way).
  var items: [Int: (key: Int, item: Int)] = [:]
  var joiners: Set<Int> = []
  /// Mutations whose task has not ended, per mutation state.
  var unfinished: [Int: Int] = [:]
  var unfinishedByState: [Int: Set<Int>] = [:]

  init(setup: SimulationSetup) {
    self.setup = setup
    queries = Array(repeating: Query(), count: SimulationSetup.keyCount)
    ambiguous = Array(repeating: [], count: SimulationSetup.keyCount)
  }

  // MARK: What the store shows

  /// The value holders of `key` show: the confirmed value with each pending change applied in order.
  func shown(_ key: Int) -> [Int]? {
    guard var value = queries[key].confirmed else { return nil }
    for change in changes where change.key == key && !value.contains(change.item) {
      value.append(change.item)
    }
    return value
  }

  func isStale(_ key: Int) -> Bool {
    let query = queries[key]
    guard query.confirmed != nil, let fetchedAt = query.fetchedAt, !query.isInvalidated else { return true }
    return now - fetchedAt >= setup.staleTimes[key]
  }

  // MARK: Steps

  /// The persisted cache follows the confirmed value of each query the store keeps (written at the next flush).
  mutating func persist(_ key: Int) {
    guard setup.persistsCache, queries[key].exists else { return }
    if queries[key].isValueUnknown {
      persisted[key] = Persisted(value: [], isInvalidated: queries[key].isInvalidated, isUnknown: true)
    } else if let value = queries[key].confirmed {
      persisted[key] = Persisted(value: value, isInvalidated: queries[key].isInvalidated)
    } else {
      persisted[key] = nil
    }
  }

  private mutating func use(_ key: Int, surely: Bool) {
    queries[key].maybeUsedAt = now
    if surely { queries[key].surelyUsedAt = now }
  }

  /// A holder appears; `fetchUnderWay` says whether the server has a fetch of this query under way, `detached` how
  /// many holders a removal detached from it (a query made again shares their value, and they hold it again).
  mutating func hold(_ key: Int, step: Int, fetchUnderWay: Bool, detached: Int) {
    if !queries[key].exists {
      queries[key].exists = true
      queries[key].isValueUnknown = detached > 0 || queries[key].mayShareDetachedValue
      queries[key].holders = detached
      if let entry = restored.removeValue(forKey: key) {
        queries[key].confirmed = entry.value
        queries[key].isValueUnknown = entry.isUnknown
        queries[key].isInvalidated = entry.isInvalidated
        queries[key].isFreshnessUnknown = !entry.isInvalidated
      }
    }
    queries[key].holders += 1
    use(key, surely: true)
    if queries[key].isFreshnessUnknown { return }  // It may or may not be refetched.
    if isStale(key) && !fetchUnderWay && queries[key].owesFetchSince == nil { queries[key].owesFetchSince = step }
  }

  mutating func release(_ key: Int, attached: Bool) {
    guard attached else { return }
    queries[key].holders -= 1
    use(key, surely: true)
  }

  mutating func fetchAnswered(_ answer: SimulatedServer.AnsweredFetch) {
    let key = answer.key
    guard queries[key].exists, queries[key].generation == answer.generation else { return }
    use(key, surely: true)
    if let owed = queries[key].owesFetchSince, owed <= answer.startedAt { queries[key].owesFetchSince = nil }
    queries[key].isFreshnessUnknown = false
    guard let data = answer.data else { return }
    queries[key].confirmed = data
    queries[key].isValueUnknown = false
    queries[key].fetchedAt = now
    if answer.startedAt >= queries[key].invalidatedAt { queries[key].isInvalidated = false }
    // The server's data holds what succeeded: a succeeded change has nothing left to show.
    changes.removeAll { $0.key == key && $0.status == .succeeded }
    ambiguous[key].removeAll()
    for (mutation, unfinishedKey) in unfinished where unfinishedKey == key {
      // A change with no query to show in (orphaned by a removal, or a joiner's) stays ambiguous until its
      // mutation ends.
      if let item = items[mutation]?.item, !changes.contains(where: { $0.mutation == mutation }) {
        ambiguous[key].insert(item)
      }
    }
    persist(key)
  }

  mutating func invalidate(_ key: Int, step: Int) {
    persisted[key]?.isInvalidated = true
    restored[key]?.isInvalidated = true
    guard queries[key].exists else { return }
    use(key, surely: false)
    queries[key].isInvalidated = true
    queries[key].invalidatedAt = step
    if queries[key].holders > 0 { queries[key].owesFetchSince = step }
  }

  mutating func cancel(_ key: Int) {
    guard queries[key].exists else { return }
    use(key, surely: false)
    queries[key].owesFetchSince = nil
  }

  /// The query leaves the store: removed (and from the persisted cache), or collected (its entry stays).
  mutating func leave(_ key: Int, removed: Bool) {
    if removed {
      persisted[key] = nil
      restored[key] = nil
    }
    guard queries[key].exists else {
      // A queued entry's change on a persisted value waiting for its query: whether it goes with the value is not
      // said.
      if removed { abandonChanges(key) }
      return
    }
    // A collected query starts from its persisted entry when it is next used.
    if !removed { restored[key] = persisted[key] }
    let generation = queries[key].generation
    let mayShare = queries[key].mayShareDetachedValue || (removed && queries[key].holders > 0)
    queries[key] = Query()
    queries[key].generation = generation + 1
    queries[key].mayShareDetachedValue = mayShare
    // Its changes have no query left to show in; their items may show wherever a new query of the key comes from
    // until their mutations end.
    for change in changes where change.key == key { ambiguous[key].insert(change.item) }
    changes.removeAll { $0.key == key }
  }

  /// The changes on `key` may or may not show from here on (until their mutations end).
  mutating func abandonChanges(_ key: Int) {
    for change in changes where change.key == key { ambiguous[key].insert(change.item) }
    changes.removeAll { $0.key == key }
  }

  mutating func reset(_ key: Int, step: Int) {
    persisted[key] = nil
    restored[key] = nil
    guard queries[key].exists else {
      abandonChanges(key)
      return
    }
    use(key, surely: false)
    queries[key].confirmed = nil
    queries[key].fetchedAt = nil
    queries[key].isInvalidated = false
    queries[key].isValueUnknown = false
    queries[key].owesFetchSince = queries[key].holders > 0 ? step : nil
  }

  /// `store.update` or a holder's `withLock`: an edit of the confirmed value.
  mutating func edit(_ key: Int, appending edit: Int) {
    guard queries[key].exists else {
      // A value restored but not used yet: whether the store counts it as kept is not said.
      restored[key]?.isUnknown = true
      persisted[key]?.isUnknown = true
      return
    }
    use(key, surely: true)
    queries[key].confirmed?.append(edit)
    persist(key)
  }

  mutating func setValue(_ key: Int, _ value: [Int], detached: Int) {
    let isNew = !queries[key].exists
    if isNew { queries[key].holders = detached }
    queries[key].exists = true
    use(key, surely: isNew)
    queries[key].confirmed = value
    queries[key].isValueUnknown = false
    queries[key].fetchedAt = now
    queries[key].isInvalidated = false
    // A set value answers an invalidation; a fetch under way still writes when it ends.
    queries[key].owesFetchSince = nil
    queries[key].isFreshnessUnknown = false
    restored[key] = nil
    persist(key)
  }

  /// The app ends and launches again: the store restores what the persisted cache holds, on a new clock.
  mutating func relaunch() {
    restored = persisted
    for key in queries.indices {
      let generation = queries[key].generation
      queries[key] = Query()
      queries[key].generation = generation + 1
    }
    changes = []
    now = .zero
  }

  /// A mutation starts: its change applies to the query if the store keeps it.
  ///
  /// A `.dedupe` mutation may join a run under way, and then its arguments never reach the server: its change must
  /// not stay. Whether it joined shows only when it ends (it never called the server), so until then its change may
  /// or may not show.
  mutating func mutate(_ mutation: Int, key: Int, item: Int, state: Int, policy: SimulatedPolicy) {
    items[mutation] = (key, item)
    if policy == .dedupe { joiners.insert(mutation) }
    unfinished[mutation] = key
    unfinishedByState[state, default: []].insert(mutation)
    guard queries[key].exists else { return }
    use(key, surely: false)
    if policy == .dedupe {
      ambiguous[key].insert(item)
    } else {
      changes.append(Change(mutation: mutation, key: key, item: item, status: .pending))
    }
  }

  /// A mutation's task ended (`succeeded` false: failed or cancelled); `calledServer` says whether its call reached
  /// the server (a `.dedupe` mutation that never called it joined another run).
  mutating func mutationEnded(_ mutation: Int, state: Int, succeeded: Bool, calledServer: Bool, step: Int) {
    guard let (key, item) = items[mutation] else { return }
    unfinished[mutation] = nil
    unfinishedByState[state]?.remove(mutation)
    let joined = joiners.contains(mutation) && !calledServer
    if succeeded && !joined {
      if let index = changes.firstIndex(where: { $0.mutation == mutation }) {
        changes[index].status = .succeeded
      }
      ambiguous[key].insert(item)
      invalidate(key, step: step)  // Its `invalidates`.
    } else {
      changes.removeAll { $0.mutation == mutation }
      ambiguous[key].remove(item)
      endedItems.insert(item)
      if succeeded { invalidate(key, step: step) }
    }
  }

  /// The clock moved on; a query that is in use (held, fetched, or with changes pending) stays in use.
  mutating func tick(to now: Duration, fetchesUnderWay: Set<Int>) {
    self.now = now
    noteUses(fetchesUnderWay: fetchesUnderWay)
  }

  mutating func noteUses(fetchesUnderWay: Set<Int>) {
    for key in queries.indices where queries[key].exists {
      if queries[key].holders > 0 || fetchesUnderWay.contains(key) { use(key, surely: true) }
      // Work paused offline (a refetch that follows a fetch under way, held or not), or a pending change, may keep a
      // query in use.
      if !isOnline || changes.contains(where: { $0.key == key }) {
        use(key, surely: false)
      }
    }
  }

  /// Whether `key` must still be cached, and whether it must be gone, by its gcTime window.
  func collectionWindow(_ key: Int) -> (mustExist: Bool, mustBeGone: Bool) {
    let query = queries[key]
    guard query.exists else { return (false, false) }
    let gcTime = setup.gcTimes[key]
    let mustExist = now < query.surelyUsedAt + gcTime
    let mustBeGone =
      query.holders == 0 && now >= query.maybeUsedAt + gcTime * 5 / 4 && !changes.contains(where: { $0.key == key })
    return (mustExist, mustBeGone)
  }
}
