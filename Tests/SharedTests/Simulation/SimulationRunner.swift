import Foundation
import TestSupport

@testable import SharedState

/// Why a simulated program failed: the step after which an invariant broke (0 before any step), and which.
struct SimulationFailure: Error, Sendable, CustomStringConvertible {
  var step: Int
  var invariant: String
  /// What the store and the model showed when it broke.
  var detail = ""

  var description: String { "after step \(step): \(invariant)" }

  /// The invariant without its numbers and values, so that a shrunk program is known to break the same one.
  var kind: String {
    var kind = ""
    var depth = 0
    for character in invariant {
      if character == "[" { depth += 1 }
      if depth == 0 && !character.isNumber { kind.append(character) }
      if character == "]" { depth = max(depth - 1, 0) }
    }
    return kind
  }
}

/// Runs a simulated program against a store of its own (a fresh registry, a manual clock, a manual online status,
/// the simulated server) and checks the model's invariants after every step that settles.
///
/// Public API only, as an app uses it: `@Shared` holders of queries, the store's edits and filters, optimistic
/// mutations. The model is told what the program did and what the server answered; the runner tells it which
/// mutations ended (what an app learns from their tasks), and compares what the store shows.
final class SimulationRunner {
  typealias State = OperationState<[Int]>

  private let program: SimulationProgram
  private var clock = ManualClock()
  /// The debounced mutations' clock, moved on with the queries' clock, kept apart so that its waits do not count as
  /// the queries' sleepers.
  private var mutationClock = ManualClock()
  private let network = ManualOnlineStatus()
  private let focus = ManualFocus()
  /// The store's subscription to `focus`, when the program follows it.
  private var focusSubscription: SharedSubscription?
  private var triggers: SimulationTriggerModel
  private var debounce = SimulationDebounceModel()
  let server: SimulatedServer
  /// The mutation queue, when the program keeps one (see SimulationRunner+Queue).
  let queueHarness: SimulationQueueHarness?
  /// The list of queries and the observers of derived values (see SimulationRunner+Holders).
  let holderHarness = SimulationHolderHarness()
  private(set) var registry = SharedRegistry()
  /// The app's instrument, attached at each launch, and those of the apps before each relaunch.
  private var instrument = SimulationInstrument()
  private var retiredInstruments: [SimulationInstrument] = []
  /// The persisted cache's storage, when the program persists it; written at once (no throttle), and flushed before a
  /// relaunch.
  private var persister: MemoryCachePersister?
  /// The cache writer's clock, kept apart from the queries' clock so that its waits do not count as their sleepers.
  private let throttleClock = ManualClock()
  /// The `updatedAt` each entry was stored with at the last relaunch, until its query is first used.
  private var storedDates: [Int: Date] = [:]
  /// A restored value that showed another `updatedAt` than the one stored.
  private var wrongRestoredDate: String?
  /// An invalidation by a filter that marked another number of queries than its predicate accepted.
  private var wrongFilterCount: String?
  var model: SimulationModel
  /// Each query's holders, oldest first; a removal detaches the holders it finds.
  var holders: [[(shared: Shared<State>, attached: Bool)]]
  private var mutationStates: [Shared<MutationState<Int, Int>>] = []
  private var mutationTasks: [(task: OperationTask<Int>, state: Int)] = []
  /// A reader of every run of every keyed mutation (the simulated ones and the queue's): at rest it shows what the
  /// store lists.
  private var mutationsReader: SharedReader<[MutationSnapshot]>?
  /// Each ended mutation and whether it succeeded, as their tasks report.
  private let outcomes = Collector<(mutation: Int, succeeded: Bool)>()
  /// The step at which the server answered each mutation's call: a success's invalidation is owed from then, even
  /// if the app hears of the success a step later.
  private var answeredAt: [Int: Int] = [:]
  private var heardOutcomes: Set<Int> = []
  private var edits = 0
  /// How long a step may take to settle before the store counts as broken: a deadlock guard, far longer than a
  /// step takes on a loaded machine.
  private var settleGuard = Duration.seconds(2)
  private(set) var step = 0

  init(_ program: SimulationProgram) {
    self.program = program
    server = SimulatedServer(repeatsAnswers: program.setup.repeatsAnswers)
    queueHarness = program.setup.usesQueue ? SimulationQueueHarness(server: server) : nil
    model = SimulationModel(setup: program.setup)
    triggers = SimulationTriggerModel(setup: program.setup)
    holders = Array(repeating: [], count: SimulationSetup.keyCount)
  }

  /// Runs `program`; returns the first broken invariant, or `nil`.
  ///
  /// - Parameters:
  ///   - program: The program.
  ///   - settleGuard: How long a step may take to settle before the store counts as broken (a deadlock guard).
  static func run(_ program: SimulationProgram, settleGuard: Duration = .seconds(2)) async -> SimulationFailure? {
    let runner = SimulationRunner(program)
    runner.settleGuard = settleGuard
    let failure = await runner.runSteps()
    await SharedRegistry.$current.withValue(runner.registry) { await runner.tearDown() }
    return failure
  }

  var store: QueryStore { registry.queries }

  private func runSteps() async -> SimulationFailure? {
    await launch(restoring: nil)
    for (index, step) in program.steps.enumerated() {
      self.step = index + 1
      server.setStep(self.step)
      queueHarness?.server.setStep(self.step)
      // The app's current registry: a relaunch makes another.
      let failure = await SharedRegistry.$current.withValue(registry) { await perform(step) }
      if let failure { return failure }
    }
    return await drainQueue()
  }

  /// Sets up the current registry's store as the app does at launch: its network, and its persisted cache (restored
  /// from `bytes`) if the program relaunches.
  private func launch(restoring bytes: Data?) async {
    // Under mutation keys, so that the store lists their runs, and a reader of them follows every run.
    (mutationStates, mutationsReader) = SharedRegistry.$current.withValue(registry) {
      let states = (0..<2).map { Shared(wrappedValue: MutationState<Int, Int>(), .mutation(["sim-mutation", $0])) }
      return (states, store.mutationStates(matching: .all))
    }
    // Either launch order: the persisted cache then the queue's registrations and restore, or the other way round;
    // then the holders (the steps). A queued entry's change shows over the restored value either way.
    let queueFirst = program.setup.restoresQueueFirst
    registry.instrument = instrument
    await SharedRegistry.$current.withValue(registry) {
      store.onlineStatus = network
      if program.setup.followsFocus { focusSubscription = store.refetch(onFocus: focus, matching: ["sim"]) }
      if queueFirst { launchQueue() }
      guard program.setup.persistsCache else { return }
      let persister = MemoryCachePersister(data: bytes, appending: program.setup.appendsCache)
      self.persister = persister
      _ = await store.persistCache(QueryCachePersistence(persister: persister, throttle: .zero, clock: throttleClock))
    }
    if !queueFirst { SharedRegistry.$current.withValue(registry) { launchQueue() } }
  }

  /// The app ends (its mutations cancelled, its cache flushed) and launches again from the bytes written.
  func relaunch() async -> SimulationFailure? {
    for (mutation, entry) in mutationTasks.enumerated() where model.unfinished[mutation] != nil { entry.task.cancel() }
    if let failure = await settleAndCheck() { return failure }
    // The dates the old app's holders show, for values no fetch is changing: the ones a restore must bring back.
    var shownDates: [Int: Date] = [:]
    for key in 0..<SimulationSetup.keyCount {
      // A failed fetch moves `updatedAt` (the state's last change) and leaves the data as it was: only a value that
      // shows its last success shows the date the data was obtained.
      guard let state = holders[key].first(where: \.attached)?.shared.wrappedValue, state.value != nil,
        state.status == .success, !state.isFetching, !state.isPaused
      else { continue }
      shownDates[key] = state.updatedAt
    }
    // The queue's launch ends first: what the app learns there (an entry that left after a success invalidates its
    // query) is in the cache's bytes too.
    await endQueueLaunch(killed: false)
    try? await store.flushPersistedCache()
    let bytes = persister?.data
    storedDates = [:]
    for entry in (try? bytes.map(PersistedQueryCache.init(encoded:)))??.entries ?? [] where !entry.isInvalidated {
      if let key = (0..<SimulationSetup.keyCount).first(where: { entry.key == ["sim", $0] }) {
        storedDates[key] = shownDates[key] ?? entry.updatedAt
      }
    }
    // The old app's holders go, and its fetches are cancelled: nothing of it is left at the server.
    holders = Array(repeating: [], count: SimulationSetup.keyCount)
    store.remove(.all)
    retiredInstruments.append(instrument)
    instrument = SimulationInstrument()
    registry = SharedRegistry()
    clock = ManualClock()
    mutationClock = ManualClock()
    model.relaunch()
    triggers.idleSince = [:]
    debounce.relaunch()
    await launch(restoring: bytes)
    return await SharedRegistry.$current.withValue(registry) { await settleAndCheck() }
  }

  // MARK: Steps

  func query(_ key: Int) -> Query<State> {
    let options = QueryOptions(
      staleTime: program.setup.staleTimes[key], gcTime: program.setup.gcTimes[key],
      refetchInterval: program.setup.refetchInterval, refetchesWhileUnheld: program.setup.refetchesWhileUnheld,
      refetchIntervalInBackground: program.setup.refetchesIntervalInBackground, operation: .retry(.none).clock(clock))
    let generation = model.queries[key].generation
    let server = self.server
    return .query(["sim", key], options: options) { try await server.fetch(key: key, generation: generation) }
  }

  private func nextEdit() -> Int {
    edits += 1
    return 1_000 + edits
  }

  func fetchesUnderWay() -> Set<Int> {
    Set(
      server.fetchesUnderWay.filter {
        model.queries[$0.key].generation == $0.generation && model.queries[$0.key].exists
      }
      .map(\.key))
  }

  func perform(_ step: SimulationStep) async -> SimulationFailure? {
    switch step {
    case .hold(let key):
      let underWay = fetchesUnderWay().contains(key)
      let restores = !model.queries[key].exists && model.restored[key].map { !$0.isUnknown } == true
      model.hold(key, step: self.step, fetchUnderWay: underWay, detached: reattach(key))
      let holder = Shared(wrappedValue: State(), query(key))
      holders[key].append((holder, true))
      // A stale restored value refetches as it is held, and a fetch that starts (or waits for the network) moves
      // `updatedAt` (the state's last change): only a value that does not refetch shows the date it was stored with.
      if let stored = storedDates.removeValue(forKey: key), restores, program.setup.checksRestoredDates,
        !holder.wrappedValue.isFetching, !holder.wrappedValue.isPaused, holder.wrappedValue.updatedAt != stored
      {
        let shown = holder.wrappedValue.updatedAt.map { "\($0.timeIntervalSince1970)" } ?? "none"
        wrongRestoredDate = "q\(key) was restored with updatedAt \(shown), stored as \(stored.timeIntervalSince1970)"
      }
    case .release(let key):
      guard let released = popReleasedHolder(key) else { break }
      model.release(key, attached: released.attached)
    case .answerFetch(let pick, let succeeds):
      guard let answer = server.answerFetch(pick: pick, succeeds: succeeds) else { break }
      model.fetchAnswered(answer)
      noteQueuedItemsAfterFetch(key: answer.key)
    case .invalidate(let key):
      store.invalidate(.exactly(["sim", key]))
      model.invalidate(key, step: self.step)
    case .invalidateAll:
      store.invalidate(matching: ["sim"])
      for key in 0..<SimulationSetup.keyCount { model.invalidate(key, step: self.step) }
    case .invalidateFailedOrStale:
      // Nothing else runs between the predicate and the invalidation (the steps run one at a time, and the store's
      // own tasks are settled): every query the predicate accepts is invalidated, and no other.
      let accepted = Collector<Int>()
      let marked = store.invalidate(
        .prefix(["sim"]).matching { query in
          let accepts = query.status == .error || query.isStale
          if accepts, let key = query.key.parts.last as? Int { accepted.append(key) }
          return accepts
        })
      if marked != accepted.elements.count {
        wrongFilterCount = "the filter accepted \(accepted.elements.sorted()), the store marked \(marked)"
      }
      for key in accepted.elements { model.invalidate(key, step: self.step) }
    case .cancel(let key):
      store.cancel(.exactly(["sim", key]))
      model.cancel(key)
    case .remove(let key):
      store.remove(.exactly(["sim", key]))
      for index in holders[key].indices { holders[key][index].attached = false }
      model.leave(key, removed: true)
    case .reset(let key):
      store.reset(.exactly(["sim", key]))
      model.reset(key, step: self.step)
    case .update(let key):
      let edit = nextEdit()
      store.update(["sim", key], as: State.self) { $0.value?.append(edit) }
      model.edit(key, appending: edit)
    case .editThroughHolder(let key):
      guard let holder = holders[key].last(where: \.attached)?.shared else { break }
      let edit = nextEdit()
      holder.withLock { $0.value?.append(edit) }
      model.edit(key, appending: edit)
    case .setValue(let key):
      let value = [nextEdit()]
      let detached = reattach(key)
      store.setFetchedValue(value, for: query(key))
      model.setValue(key, value, detached: detached)
    case .advance(let ticks):
      for _ in 0..<ticks {
        let cached = cachedQueries()
        let onTimer = Set(
          (0..<SimulationSetup.keyCount).filter { triggers.isOnTimer($0, model: model, cached: cached) })
        let underWay = fetchesUnderWay()
        let started = server.startedFetches
        let isOnline = model.isOnline
        clock.advance(by: SimulationSetup.tick)
        queueHarness?.clock.advance(by: SimulationSetup.tick)
        mutationClock.advance(by: SimulationSetup.tick)
        if let failure = await settleAndCheck() { return failure }
        let startedNow = server.fetchesStarted(since: started)
        if isOnline,
          let broken = triggers.checkTick(
            onTimerBefore: onTimer, underWayBefore: underWay, started: startedNow, cachedAfter: cachedQueries())
        {
          return SimulationFailure(step: self.step, invariant: broken, detail: snapshot())
        }
      }
      return nil
    case .setOnline(let isOnline):
      return await setOnline(isOnline)
    case .mutate(let key, let state, let policy, let scoped):
      mutate(key: key, state: state, policy: policy, scoped: scoped)
    case .answerMutation(let pick, let succeeds):
      if let mutation = server.answerMutation(pick: pick, succeeds: succeeds) {
        answeredAt[mutation] = answeredAt[mutation] ?? self.step
      }
    case .relaunch:
      return await relaunch()
    case .queue(let step):
      if let failure = await performQueue(step) { return failure }
    case .focus(let isFocused):
      return await setFocused(isFocused)
    case .holders(let step):
      if let failure = await performHolders(step) { return failure }
    case .cancelMutation(let pick):
      let unfinished = mutationTasks.indices.filter { model.unfinished[$0] != nil }
      guard !unfinished.isEmpty else { break }
      mutationTasks[unfinished[pick % unfinished.count]].task.cancel()
    }
    // A query made in this launch by anything but a holder (a set value) no longer shows the stored date when a
    // holder comes: its value is this launch's.
    for key in storedDates.keys where model.queries[key].exists { storedDates[key] = nil }
    return await settleAndCheck()
  }

  /// The queries the store keeps.
  private func cachedQueries() -> Set<Int> {
    Set((0..<SimulationSetup.keyCount).filter { store.contains(["sim", $0]) })
  }

  /// The app becomes active or inactive: a held stale query refetches as it becomes active, and nothing else does.
  private func setFocused(_ isFocused: Bool) async -> SimulationFailure? {
    let owing = triggers.focus(isFocused, model: model, underWay: fetchesUnderWay())
    // A restored value's age is the wall clock's: it may or may not be stale.
    let unknown = (0..<SimulationSetup.keyCount).filter {
      model.queries[$0].holders > 0 && model.queries[$0].isFreshnessUnknown
    }
    for key in owing where model.queries[key].owesFetchSince == nil { model.queries[key].owesFetchSince = step }
    let started = server.startedFetches
    focus.setFocused(isFocused)
    if let failure = await settleAndCheck() { return failure }
    let startedNow = server.fetchesStarted(since: started)
    if program.setup.followsFocus,
      let broken = triggers.checkFocus(mayRefetch: Set(owing + unknown), started: startedNow)
    {
      return SimulationFailure(step: step, invariant: broken, detail: snapshot())
    }
    return nil
  }

  /// The device goes online or offline. Coming back online, the store (whose `onlineStatus` is `network`, its one
  /// wiring) resumes the paused fetches and refetches each held stale query: each owes a fetch from now on, and no
  /// query is fetched twice for it.
  private func setOnline(_ isOnline: Bool) async -> SimulationFailure? {
    let reconnects = isOnline && !model.isOnline
    if reconnects {
      for key in triggers.reconnect(model: model, underWay: fetchesUnderWay())
      where model.queries[key].owesFetchSince == nil {
        model.queries[key].owesFetchSince = step
      }
    }
    let started = server.startedFetches
    server.setOnline(isOnline)
    network.setOnline(isOnline)
    queueHarness?.server.setOnline(isOnline)
    if queueHarness?.isKilled == false { queueHarness?.network.setOnline(isOnline) }
    model.isOnline = isOnline
    for key in storedDates.keys where model.queries[key].exists { storedDates[key] = nil }
    if let failure = await settleAndCheck() { return failure }
    guard reconnects else { return nil }
    if let broken = triggers.checkReconnect(started: server.fetchesStarted(since: started)) {
      return SimulationFailure(step: step, invariant: broken, detail: snapshot())
    }
    return nil
  }

  /// The holders a removal detached from `key`, which hold it again once the store makes it again (they share the
  /// new query's value); returns how many, or 0 when the store still keeps the query.
  func reattach(_ key: Int) -> Int {
    guard !model.queries[key].exists else { return 0 }
    var count = 0
    for index in holders[key].indices where !holders[key][index].attached {
      holders[key][index].attached = true
      count += 1
    }
    return count
  }

  private func mutate(key: Int, state: Int, policy: SimulatedPolicy, scoped: Bool) {
    let mutation = mutationTasks.count
    let item = 500 + mutation
    let server = self.server
    let optimistic = OptimisticMutation { (item: Int, cache: OptimisticCache) in
      _ = cache.update(
        ["sim", key], as: State.self,
        OptimisticUpdate(
          apply: { state in if state.value?.contains(item) == false { state.value?.append(item) } },
          rollback: { state in state.value?.removeAll { $0 == item } }))
    }
    model.mutate(mutation, key: key, item: item, state: state, policy: policy)
    if let dropped = debounce.made(mutation, state: state, policy: policy, now: clock.now.offset),
      let (droppedKey, droppedItem) = model.items[dropped]
    {
      // Whether its change goes now or when its task ends is not said.
      model.ambiguous[droppedKey].insert(droppedItem)
    }
    let options = policy.isDebounced ? OperationOptions.clock(mutationClock) : OperationOptions()
    let task = mutationStates[state].mutate(
      item, options, policy: policy.policy, scope: scoped ? "sim" : nil, invalidates: [["sim", key]],
      optimistic: optimistic
    ) { item in
      try await server.call(mutation: mutation, key: key, item: item)
    }
    mutationTasks.append((task, state))
    let outcomes = self.outcomes
    Task {
      let result = await task.result
      outcomes.append((mutation, (try? result.get()) != nil))
    }
  }

  // MARK: Settling

  /// What changes while the program's tasks still run: when it stays the same over a few rounds of yields, the
  /// program has settled.
  private func fingerprint() -> String {
    let activity = store.activity.wrappedValue
    var parts = [
      "\(server.fingerprint)", "\(outcomes.elements.count)", "\(activity.fetchingQueries)",
      "\(activity.runningMutations)", "\(clock.sleeperCount)", "\(store.count)",
    ]
    for (key, list) in holders.enumerated() {
      for holder in list {
        let state = holder.shared.wrappedValue
        parts.append("\(key):\(state.value ?? [-9]),\(state.isFetching),\(state.isPaused),\(state.status)")
      }
    }
    for state in mutationStates { parts.append("\(state.wrappedValue.status)") }
    parts.append(queueFingerprint())
    parts.append(holdersFingerprint())
    return parts.joined(separator: "|")
  }

  /// Lets every task the last step started run until nothing changes any more and the invariants hold, then checks
  /// them.
  ///
  /// The simulation decides nothing by time. It yields until the store stopped changing over a few rounds of yields,
  /// every timer task of the store sleeps on the clock, and every invariant holds; yielding alone is not enough, as a
  /// task the store just started may not have run yet. A store that never gets there is broken (stuck fetching, a
  /// query never collected, a wrong value): after ``settleGuard``, a deadlock guard, the broken invariant is reported.
  ///
  /// The timer tasks are waited for by name, not by how the store looks: a sweeper that a step armed, or that a tick
  /// woke, changes nothing that the store shows until its check is due, so a stable store says nothing of it. Were
  /// the clock moved before it sleeps, it would measure its wait from the later time, and check a tick or more late
  /// (a query collected late), each time it is late again.
  func settleAndCheck() async -> SimulationFailure? {
    let giveUp = ContinuousClock.now + settleGuard
    var last = fingerprint()
    var stableRounds = 0
    var rounds = 0
    while true {
      rounds += 1
      for _ in 0..<16 { await Task.yield() }
      let now = fingerprint()
      if now == last {
        stableRounds += 1
      } else {
        stableRounds = 0
        last = now
      }
      guard stableRounds >= 4 || rounds % 64 == 0 else { continue }
      // The persisted cache's writer reads the values changed on a task of its own, and a value it reads counts as
      // held meanwhile: its write ends before the clock moves on, as it does at once on a clock that moves by itself.
      if persister != nil { try? await store.flushPersistedCache() }
      let isOverdue = ContinuousClock.now > giveUp
      if let waiting = timerTasksAwake() {
        if !isOverdue { continue }
        return SimulationFailure(step: step, invariant: waiting, detail: snapshot())
      }
      absorbObservations()
      guard let broken = brokenInvariant() else {
        if stableRounds >= 4 { return nil }
        continue
      }
      if isOverdue { return SimulationFailure(step: step, invariant: broken, detail: snapshot()) }
    }
  }

  /// Which timer task of the store does not sleep on the queries' clock yet, if one does not: the garbage sweeper
  /// (one while the store keeps a query on the clock) and one timer per refetch interval.
  private func timerTasksAwake() -> String? {
    let (sweepers, timers) = store.state.withLock { state in
      (state.bounds.sweepers[QueryClockKey(clock)] == nil ? 0 : 1, state.intervals.timers.count)
    }
    // Counted by what each sleeper waits for: a retry's backoff on the same clock stands in for no timer.
    let sleeping = clock.sleepers
    let checks = sleeping.count { $0.wait == .garbageCheck }
    let ticks = sleeping.count { $0.wait == .refetchInterval }
    guard checks < sweepers || ticks < timers else { return nil }
    return "the store's timer tasks do not sleep on the clock: \(checks) of \(sweepers) garbage check(s) and "
      + "\(ticks) of \(timers) interval timer(s)"
  }

  /// Tells the model what the app has learned since: which mutations' tasks ended, and which queries the store
  /// collected within their window.
  private func absorbObservations() {
    let ended = outcomes.elements.filter { !heardOutcomes.contains($0.mutation) }.sorted { $0.mutation < $1.mutation }
    for (mutation, succeeded) in ended {
      heardOutcomes.insert(mutation)
      model.mutationEnded(
        mutation, state: mutationTasks[mutation].state, succeeded: succeeded,
        calledServer: server.calledMutations[mutation] != nil, step: min(answeredAt[mutation] ?? step, step))
    }
    for key in 0..<SimulationSetup.keyCount
    where model.queries[key].exists && !model.collectionWindow(key).mustExist && !store.contains(["sim", key]) {
      model.leave(key, removed: false)
    }
    absorbQueue()
    model.tick(to: clock.now.offset, fetchesUnderWay: fetchesUnderWay())
  }

  // MARK: Invariants

  private func brokenInvariant() -> String? {
    if let offline = server.offlineRequests.first { return "a request reached the server while offline: \(offline)" }
    if let wrongRestoredDate { return wrongRestoredDate }
    if let wrongFilterCount { return wrongFilterCount }
    if let problem = instrument.problem ?? retiredInstruments.lazy.compactMap(\.problem).first { return problem }
    if let leaked = retiredInstruments.lazy.map(\.openWork).first(where: { !$0.isEmpty }) {
      return "measurements begun before a relaunch never ended: \(leaked)"
    }
    if let broken = queueBrokenInvariant() { return broken }
    if let shown = mutationsReader?.wrappedValue, case let listed = store.mutations(), !shown.showsSameRuns(as: listed)
    {
      return "the reader of the mutation runs shows \(shown.map(\.status)), the store lists \(listed.map(\.status))"
    }
    if let broken = holdersBrokenInvariant() { return broken }
    if let broken = debounce.broken(
      called: server.calledMutations, inFlight: server.mutationsInFlight, stateOf: { self.mutationTasks[$0].state },
      succeeded: outcomes.elements.filter(\.succeeded).map(\.mutation))
    {
      return broken
    }
    let underWay = fetchesUnderWay()
    // Collection, and what the store keeps.
    for key in 0..<SimulationSetup.keyCount {
      let isCached = store.contains(["sim", key])
      let window = model.collectionWindow(key)
      if model.queries[key].exists && !isCached {
        return "q\(key) was collected before its gcTime (\(program.setup.gcTimes[key]))"
      } else if !model.queries[key].exists && isCached {
        return "the store keeps q\(key), which nothing made again since it left"
      } else if window.mustBeGone {
        return "q\(key) was not collected within 1.25x its gcTime (\(program.setup.gcTimes[key]))"
      }
    }
    // Values.
    for key in 0..<SimulationSetup.keyCount {
      for holder in holders[key] where holder.attached {
        let state = holder.shared.wrappedValue
        // An ended mutation's item may still come from the server's data, if its run went on for another caller.
        if let shown = state.value,
          let ended = shown.first(where: { model.endedItems.contains($0) && !server.hasApplied($0) })
        {
          return "a holder of q\(key) shows \(shown), with the change \(ended) of a mutation that ended"
        }
        guard !model.queries[key].isValueUnknown else { continue }
        let expected = model.shown(key)
        let ambiguous = model.ambiguous[key]
        if state.value?.filter({ !ambiguous.contains($0) }) != expected?.filter({ !ambiguous.contains($0) }) {
          return
            "a holder of q\(key) shows \(state.value.map { "\($0)" } ?? "nothing"), the model \(expected.map { "\($0)" } ?? "nothing")"
            + (ambiguous.isEmpty ? "" : " (either way for \(ambiguous.sorted()))")
        }
      }
    }
    if let broken = triggers.check(
      model: model, cached: cachedQueries(), underWay: fetchesUnderWay(), now: clock.now.offset)
    {
      return broken
    }
    guard model.isOnline else { return nil }
    // Nothing stuck, online.
    for key in 0..<SimulationSetup.keyCount {
      for holder in holders[key] where holder.attached {
        let state = holder.shared.wrappedValue
        if state.isPaused { return "a holder of q\(key) shows paused while online" }
        if state.isFetching != underWay.contains(key) {
          return state.isFetching
            ? "a holder of q\(key) shows fetching, but no fetch of it is under way"
            : "a holder of q\(key) does not show the fetch under way"
        }
      }
      if model.queries[key].holders > 0, let since = model.queries[key].owesFetchSince, !underWay.contains(key) {
        return "q\(key) is held and stale since step \(since), but no fetch of it is under way"
      }
    }
    let activity = store.activity.wrappedValue
    if activity.fetchingQueries != underWay.count {
      return "the store's activity counts \(activity.fetchingQueries) fetching queries, the server \(underWay.count)"
    }
    // A queued entry runs through its mutation key's state, which the activity counts too. Whether a debounced run
    // still waiting out its quiet time counts as started is not said.
    let waiting = model.unfinished.keys.filter { debounce.policies[$0] != nil && server.calledMutations[$0] == nil }
    let expectsNone = model.unfinished.isEmpty && !queueRunsEntry
    if (activity.runningMutations == 0) != expectsNone
      && !(activity.runningMutations == 0 && !queueRunsEntry && waiting.count == model.unfinished.count)
    {
      return
        "the store's activity counts \(activity.runningMutations) running mutations, the app \(model.unfinished.count) unfinished"
        + (queueRunsEntry ? " and a queued entry running" : "")
    }
    return nil
  }

  /// The store, the server and the model, as lines a person reads.
  func snapshot() -> String {
    var lines = ["clock \(clock.now.offset), \(model.isOnline ? "online" : "offline")"]
    let activity = store.activity.wrappedValue
    lines.append("activity: \(activity.fetchingQueries) fetching, \(activity.runningMutations) mutations")
    lines.append("server: fetches under way \(server.fetchesUnderWay), \(server.callsUnderWay) calls")
    for key in 0..<SimulationSetup.keyCount {
      let query = model.queries[key]
      lines.append(
        "q\(key): cached \(store.contains(["sim", key])); model exists \(query.exists), generation \(query.generation), "
          + "confirmed \(query.confirmed.map { "\($0)" } ?? "nothing"), shown \(model.shown(key).map { "\($0)" } ?? "nothing"), "
          + "holders \(query.holders), owes a fetch since \(query.owesFetchSince.map { "step \($0)" } ?? "-"), "
          + "used at \(query.surelyUsedAt)...\(query.maybeUsedAt)")
      for holder in holders[key] {
        let state = holder.shared.wrappedValue
        lines.append(
          "  holder\(holder.attached ? "" : " (detached)"): \(state.value.map { "\($0)" } ?? "nothing"), "
            + "\(state.status), fetching \(state.isFetching), paused \(state.isPaused)")
      }
    }
    if !model.changes.isEmpty { lines.append("changes: \(model.changes)") }
    return lines.joined(separator: "\n")
  }

  // MARK: Ending

  /// Ends every request still waiting, so that nothing outlives the program.
  private func tearDown() async {
    for entry in mutationTasks { entry.task.cancel() }
    await endQueueLaunch(killed: true)
    network.setOnline(true)
    server.setOnline(true)
    holders = []
    store.remove(.all)
    // Whatever reaches the server from here on is refused, until nothing has for a while.
    var quietRounds = 0
    while quietRounds < 8 {
      for _ in 0..<16 { await Task.yield() }
      var answered = false
      while server.answerFetch(pick: 0, succeeds: false) != nil { answered = true }
      while server.answerMutation(pick: 0, succeeds: false) != nil { answered = true }
      quietRounds = answered ? 0 : quietRounds + 1
    }
    await queueHarness?.removeFiles()
  }
}
