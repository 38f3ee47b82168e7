import TestSupport
import Testing

@testable import SharedState

/// A page of the model server: which version of the server it was read from, and whether it was the last.
private struct ServerPage: Sendable, Equatable {
  let id: Int
  let version: Int
  let isLast: Bool
}

/// The events the interleaving tests put in every order.
private enum Event: CaseIterable, CustomStringConvertible {
  /// The server changes (its version grows; it alternates between 3 and 2 pages) and the query is invalidated.
  case invalidate
  /// `fetchNextPage()` by a caller with a task.
  case requestNextPage
  /// `refetchAll()` by a caller with a task.
  case refetch
  /// The running work makes one step: fetches one page, or writes what it fetched.
  case step
  /// The running work's current fetch fails for good.
  case fail
  /// The most recent caller still waiting cancels its task.
  case cancel
  /// The only holder leaves, or a holder appears.
  case toggleHolder
  /// A garbage check, a quarter of gcTime later.
  case gcTick
  /// `fetchPreviousPage()` by a caller with a task (the model's first page has none before it).
  case requestPreviousPage
  /// A refetch trigger (a reconnect): refreshes a held query whose value is stale.
  case trigger
  /// Another holder appears while the first holds the query.
  case secondHolder
  /// The app writes into the query's value (`QueryStore.update`): a use for garbage collection.
  case touch
  /// `QueryStore.fetch` (or `fetchValue()`) by a caller with a task, holder or not: a fresh value, or a fetch.
  case awaitValue
  /// `fetch(_:servingStale: true)`: any fetched value at once, a stale one refetched in the background.
  case awaitStale
  /// `ensureValue`: any fetched value, whatever its age.
  case ensure
  /// `prefetch`: a refresh if the value is missing, stale or invalidated, with no task.
  case prefetch
  /// The store is over its capacity and this is its least recently used query: it goes if nothing uses it.
  case evict

  var description: String {
    switch self {
    case .invalidate: "invalidate"
    case .requestNextPage: "nextPage"
    case .refetch: "refetch"
    case .step: "step"
    case .fail: "fail"
    case .cancel: "cancel"
    case .toggleHolder: "toggleHolder"
    case .gcTick: "gcTick"
    case .requestPreviousPage: "previousPage"
    case .trigger: "trigger"
    case .secondHolder: "secondHolder"
    case .touch: "touch"
    case .awaitValue: "awaitValue"
    case .awaitStale: "awaitStale"
    case .ensure: "ensure"
    case .prefetch: "prefetch"
    case .evict: "evict"
    }
  }
}

/// A paginated query driven through its ``QueryRecordMachine`` the way ``QueryRecord`` and ``QueryStore`` drive it,
/// with the store's tasks replaced by explicit steps, the status written as the store writes it, and the server by
/// a versioned model. Every check failure names the sequence.
private struct Harness {
  static let gcTime = Duration.seconds(60)
  static let staleTime = Duration.seconds(10)
  static let tick = gcTime / 4

  /// Where the running work is.
  enum Progress {
    /// Refetching every page: the walk, and the pages fetched so far.
    case walking(RefetchAllWalk<Int>, pages: [ServerPage], startVersion: Int)
    /// Fetching the page after the last one (`nil`: there is none).
    case nextPage(Int?)
    /// Fetched; writes `update` at the next step, keeping the status pending if `keepPending`.
    case returned(PageUpdate<Int, ServerPage>, fetchedVersion: Int?, keepPending: Bool)
  }

  var machine = QueryRecordMachine()
  var state = PaginatedState<Int, ServerPage>()
  var now = Duration.zero
  var isHeld = true
  var leftAt: Duration?
  var serverVersion = 1
  var serverPageCount = 3
  var running: (id: QueryRecordMachine.WorkID, progress: Progress, before: OperationStatus)?
  var waiting: Set<QueryRecordMachine.WorkID> = []
  /// The work each caller still waits for, oldest first.
  var callers: [QueryRecordMachine.WorkID] = []
  /// The server version the last written refresh started fetching at.
  var appliedRefreshVersion: Int?
  var lastRefreshFailed = false
  var collected = false
  /// The status left pending by a work that handed over to the next one.
  var handedOver = false
  /// The work that just ended wrote its value.
  var applied = false
  /// An invalidation came while the running refresh fetched.
  var fetchSuperseded = false
  /// The status the last work that ended left (success if it wrote its value, error if it failed).
  var lastEndedStatus = OperationStatus.idle
  var failures: [String] = []
  let trace: String

  init(trace: String) {
    self.trace = trace
    handle(machine.holderAppeared(now: now, staleTime: Self.staleTime))
  }

  mutating func fail(_ message: String) {
    failures.append("\(message) after [\(trace)]")
  }

  func serverPage(_ id: Int) -> ServerPage {
    ServerPage(id: id, version: serverVersion, isLast: id >= serverPageCount - 1)
  }

  static func nextPage(_ page: ServerPage) -> Int? {
    page.isLast ? nil : page.id + 1
  }

  /// Whether the value is referred to beyond the record: a holder, or the running work's task.
  var isReferenced: Bool { isHeld || running != nil }

  // MARK: Events

  mutating func apply(_ event: Event) {
    guard !collected else { return }
    switch event {
    case .invalidate:
      serverVersion += 1
      serverPageCount = serverPageCount == 3 ? 2 : 3
      if case .walking = running?.progress { fetchSuperseded = true }
      handle(machine.invalidated(isHeld: isReferenced))
    case .requestNextPage:
      guard isHeld else { return }  // Only a holder can ask.
      handle(machine.request(.nextPage, by: .caller), byCaller: true)
    case .refetch:
      guard isHeld else { return }
      handle(machine.request(.refresh, by: .caller), byCaller: true)
    case .requestPreviousPage:
      guard isHeld else { return }
      handle(machine.request(.previousPage, by: .caller), byCaller: true)
    case .trigger:
      guard isHeld else { return }  // The store asks only held records.
      handle(machine.refreshIfStale(now: now, staleTime: Self.staleTime))
    case .secondHolder:
      guard isHeld else { return }
      handle(machine.holderAppeared(now: now, staleTime: Self.staleTime))
    case .touch:
      machine.touched()
    case .awaitValue:
      awaitValue(accepting: .fresh)
    case .awaitStale:
      awaitValue(accepting: .staleWhileRefetching)
    case .ensure:
      awaitValue(accepting: .anyAge)
    case .prefetch:
      machine.touched()
      handle(machine.refreshIfStale(now: now, staleTime: Self.staleTime))
    case .step:
      step()
    case .fail:
      guard let (id, progress, _) = running else { return }
      if case .returned = progress { return }  // Fetched already: writing cannot fail.
      if machine.running?.work == .refresh { lastRefreshFailed = true }
      state.status = .error
      end(id, outcome: .failed)
    case .cancel:
      guard let id = callers.popLast() else { return }
      switch machine.cancelRequested(id) {
      case .leave:
        break
      case .cancelRunning(let cancelled):
        guard let (running, progress, before) = running, running == cancelled, cancelled == id else {
          fail("cancelled \(cancelled), which does not run")
          return
        }
        if case .returned = progress { fail("cancelled \(id) while it writes its value") }
        if callers.contains(id) { fail("cancelled \(id), which another caller waits for") }
        if state.status == .pending { state.status = before }
        end(id, outcome: .cancelled)
      case .withdraw(let withdrawn):
        if waiting.remove(withdrawn) == nil || withdrawn != id { fail("withdrew \(withdrawn), which does not wait") }
        if callers.contains(id) { fail("withdrew \(id), which another caller waits for") }
      }
    case .toggleHolder:
      if isHeld {
        isHeld = false
        leftAt = now
      } else {
        isHeld = true
        leftAt = nil
        handle(machine.holderAppeared(now: now, staleTime: Self.staleTime))
      }
    case .gcTick:
      now += Self.tick
      if machine.gcTick(now: now, gcTime: Self.gcTime, isHeld: isReferenced) == .collect {
        if isReferenced { fail("collected while referenced") }
        if let leftAt, now - leftAt < Self.gcTime { fail("collected \(now - leftAt) after the holder left") }
        if !waiting.isEmpty { fail("collected with work waiting") }
        if !callers.isEmpty { fail("collected while callers \(callers) await it") }
        collected = true
      }
    case .evict:
      if machine.evicted(isHeld: isReferenced) == .collect {
        if isReferenced { fail("evicted while referenced") }
        if !waiting.isEmpty { fail("evicted with work waiting") }
        if !callers.isEmpty { fail("evicted while callers \(callers) await it") }
        collected = true
      }
    }
    checkAlways()
  }

  /// A caller awaits the value (with or without a holder), taking a cached one as `acceptance` allows: it is served
  /// a value only when one was fetched, fresh unless it takes an older one; otherwise it waits for a refresh.
  mutating func awaitValue(accepting acceptance: QueryRecordMachine.Acceptance) {
    let isFresh: Bool
    switch machine.freshness {
    case .fetched(let at): isFresh = now - at < Self.staleTime
    case .empty, .invalidated: isFresh = false
    }
    switch machine.valueRequested(now: now, staleTime: Self.staleTime, accepting: acceptance) {
    case .serveCached:
      if machine.freshness == .empty { fail("served a value never fetched") }
      if acceptance != .anyAge && !isFresh { fail("served a stale value to a caller that takes \(acceptance)") }
    case .serveCachedAndRefetch(let action):
      if machine.freshness == .empty || isFresh { fail("refetched \(machine.freshness) behind a served value") }
      if case .none = action, running == nil { fail("served a stale value and refetched nothing") }
      handle(action)
    case .awaitFetch(let action):
      if isFresh { fail("made a caller wait for a fresh value") }
      if case .none = action { fail("a caller of a kept record waits for nothing") }
      handle(action, byCaller: true)
    }
  }

  /// The running work ends: it settles its callers, and the record starts what follows.
  mutating func end(_ id: QueryRecordMachine.WorkID, outcome: QueryRecordMachine.Outcome) {
    running = nil
    if case .cancelled = outcome {} else { lastEndedStatus = state.status == .error ? .error : .success }
    callers.removeAll { $0 == id }
    handle(machine.finished(id, outcome: outcome, isHeld: isHeld))
  }

  mutating func step() {
    guard let (id, progress, before) = running else { return }
    switch progress {
    case .walking(var walk, var pages, let startVersion):
      guard case .fetch(let pageID) = walk.step else { return }
      let page = serverPage(pageID)
      pages.append(page)
      walk.fetched(next: Self.nextPage(page))
      guard case .finished(let next) = walk.step else {
        running = (id, .walking(walk, pages: pages, startVersion: startVersion), before)
        return
      }
      switch machine.fetchReturned(id) {
      case .discard:
        fail("the running work \(id) was discarded")
      case .apply(let keepPending):
        // The status stays pending exactly when work follows at once: a refetch after an invalidation, or queued
        // work.
        if keepPending != (fetchSuperseded || !waiting.isEmpty) {
          fail("a refresh keeps pending: \(keepPending), superseded \(fetchSuperseded), waiting \(waiting)")
        }
        if walk.ids != Array(0..<walk.ids.count) { fail("a refetch of all pages left the chain: \(walk.ids)") }
        // No stale page survives a refetch of all pages that nothing superseded.
        if machine.running?.isSuperseded == false, !pages.allSatisfy({ $0.version == serverVersion }) {
          fail("a refetch of all pages applies stale pages \(pages)")
        }
        let update = PageUpdate<Int, ServerPage>.all(
          ids: walk.ids, pages: pages, hasNext: next != nil, hasPrevious: false)
        running = (id, .returned(update, fetchedVersion: startVersion, keepPending: keepPending), before)
      }
    case .nextPage(let pageID):
      let update: PageUpdate<Int, ServerPage>
      if let pageID {
        let page = serverPage(pageID)
        update = .next(id: pageID, page: page, hasNext: Self.nextPage(page) != nil)
      } else {
        update = .none
      }
      guard case .apply(let keepPending) = machine.fetchReturned(id) else {
        fail("the running page work \(id) was discarded")
        return
      }
      if keepPending != !waiting.isEmpty { fail("a page keeps pending: \(keepPending), waiting \(waiting)") }
      running = (id, .returned(update, fetchedVersion: nil, keepPending: keepPending), before)
    case .returned(let update, let fetchedVersion, let keepPending):
      state.applySuccess(update)
      state.status = keepPending ? .pending : .success
      handedOver = keepPending
      applied = true
      if let fetchedVersion { appliedRefreshVersion = fetchedVersion }
      // A failed refresh leaves the query stale (its next holder refetches) until a refresh succeeds; page work
      // does not count, even when it had to load the first page.
      if machine.running?.work == .refresh { lastRefreshFailed = false }
      end(id, outcome: .applied(at: now))
    }
  }

  /// A refresh starts by reading the loaded pages, as the store's fetcher does.
  func startRefresh() -> Progress {
    .walking(
      RefetchAllWalk(from: state.pageIDs.first ?? 0, limit: state.pageIDs.count), pages: [],
      startVersion: serverVersion)
  }

  mutating func handle(_ action: QueryRecordMachine.RequestAction, byCaller: Bool = false) {
    let wasHandedOver = handedOver
    let wasApplied = applied
    handedOver = false
    applied = false
    switch action {
    case .none:
      break
    case .join(let id):
      if running?.id != id && !waiting.contains(id) { fail("joined work \(id), which is neither running nor queued") }
      if byCaller { callers.append(id) }
    case .wait(let id, _):
      waiting.insert(id)
      if byCaller { callers.append(id) }
    case .settleStatus(let id):
      if !wasHandedOver { fail("asked to settle a status that \(id) did not leave pending") }
      if state.status == .pending { state.status = .success }
      handle(machine.settled(id))
    case .start(let id, let work):
      // At most one fetch in flight per record.
      if let running { fail("work \(id) started while work \(running.id) runs") }
      if byCaller { callers.append(id) }
      waiting.remove(id)
      fetchSuperseded = false
      // From a work that handed over to the work that follows, the status stays pending.
      if wasApplied && wasHandedOver && state.status != .pending {
        fail("\(state.status) shows between a written value and work \(id)")
      }
      let before = state.status == .pending ? .success : state.status
      state.status = .pending
      let progress: Progress
      switch work {
      case .refresh:
        progress = startRefresh()
      case .nextPage:
        if let last = state.pages.last {
          progress = .nextPage(Self.nextPage(last))
        } else {
          progress = startRefresh()
        }
      case .previousPage:
        progress = .nextPage(nil)
      }
      running = (id, progress, before)
    }
    if handedOver == false, wasHandedOver, case .none = action {
      fail("a work handed over to nothing")
    }
  }

  mutating func checkAlways() {
    if (machine.running != nil) != (running != nil) {
      fail("the machine runs \(String(describing: machine.running)), the model runs: \(running != nil)")
    }
    if let running, machine.running?.id != running.id {
      fail("the machine runs \(String(describing: machine.running))")
    }
    // Pending exactly while work runs (or hands over); success only if the last work wrote its value.
    if running == nil && state.status == .pending { fail("quiet, yet pending") }
    if running != nil && state.status != .pending { fail("running, yet \(state.status)") }
  }

  // MARK: Quiet

  /// A holder appears, and every work runs to its end.
  mutating func settle() {
    guard !collected else { return }
    if !isHeld { apply(.toggleHolder) }
    var steps = 0
    while running != nil {
      step()
      checkAlways()
      steps += 1
      if steps > 100 {
        fail("work never settles")
        return
      }
    }
    if !waiting.isEmpty { fail("work \(waiting) still waits while nothing runs") }
    if !callers.isEmpty { fail("callers \(callers) still wait while nothing runs") }
    checkAlways()
  }

  /// A held query that settled ends fresh: the last refresh written started after the last invalidation, and the
  /// pages are the server's. After a failed refresh it ends on the error instead (it refetches on a new holder).
  mutating func checkFresh() {
    guard !collected else { return }
    // The status is the last work's: success only if it wrote its value, error if it failed.
    if state.status != lastEndedStatus {
      fail("held and quiet, \(state.status), after a work that left \(lastEndedStatus)")
    }
    if lastRefreshFailed { return }  // Stale until a refresh succeeds: its next holder or trigger refetches.
    if appliedRefreshVersion != serverVersion {
      fail(
        "held and quiet on a refresh of version \(String(describing: appliedRefreshVersion)), server \(serverVersion)")
    }
    if state.pages.contains(where: { $0.version != serverVersion }) {
      fail("held and quiet with stale pages \(state.pages)")
    }
    if state.pageIDs != Array(0..<state.pageIDs.count) || state.pageIDs.count > serverPageCount {
      fail("held and quiet with pages \(state.pageIDs) of a server with \(serverPageCount)")
    }
    guard case .fetched = machine.freshness else {
      fail("held and quiet, but \(machine.freshness)")
      return
    }
  }

  /// The holder leaves a settled query: it is collected after gcTime, not before.
  mutating func checkCollected() {
    guard !collected else { return }
    apply(.toggleHolder)
    for _ in 0..<(Harness.checksUntilCollected + 1) where !collected { apply(.gcTick) }
    if !collected { fail("not collected \(Harness.checksUntilCollected + 1) checks after the holder left") }
  }

  /// A gcTime counts from the first check that finds the record unused, so at most one more check.
  static var checksUntilCollected: Int { 5 }
}

/// Every ordering of a query record's events up to a small depth, each checked against the record's invariants:
/// a held query ends fresh after an invalidation; at most one fetch runs per record; no stale page survives a
/// completed refetch of all pages; an unheld record is collected after gcTime and not before.
// Searches of one value type on one thread: off the cooperative pool so that they hold none of its threads, and
// skipped under ThreadSanitizer, which has nothing to find in them (plain `swift test` runs them in full).
@Suite(.offTheCooperativePool, .disabled(if: isThreadSanitizerBuild, "single-threaded search"))
struct QueryRecordMachineTests {
  /// Runs every sequence of `events` of length `depth`; returns the failures (each names its sequence).
  private func explore(_ events: [Event], depth: Int) -> (sequences: Int, failures: [String]) {
    var failures: [String] = []
    var sequences = 0
    var indices = Array(repeating: 0, count: depth)
    while true {
      sequences += 1
      let sequence = indices.map { events[$0] }
      var harness = Harness(trace: sequence.map(\.description).joined(separator: ", "))
      for event in sequence { harness.apply(event) }
      harness.settle()
      harness.checkFresh()
      harness.checkCollected()
      failures += harness.failures
      if failures.count > 20 { break }
      // The next sequence, like counting in base `events.count`.
      var position = depth - 1
      while position >= 0 {
        indices[position] += 1
        if indices[position] < events.count { break }
        indices[position] = 0
        position -= 1
      }
      if position < 0 { break }
    }
    return (sequences, failures)
  }

  @Test func everyOrderingOfSixEventsKeepsTheRecordsInvariants() {
    let events: [Event] = [.invalidate, .requestNextPage, .refetch, .step, .toggleHolder, .gcTick]
    let (sequences, failures) = explore(events, depth: 6)
    #expect(sequences == 46_656)
    #expect(failures.isEmpty, "\(failures.prefix(5).joined(separator: "\n"))")
  }

  @Test func everyOrderingOfSixEventsWithCancellationsKeepsTheRecordsInvariants() {
    let events: [Event] = [.invalidate, .requestNextPage, .refetch, .step, .cancel, .toggleHolder]
    let (sequences, failures) = explore(events, depth: 6)
    #expect(sequences == 46_656)
    #expect(failures.isEmpty, "\(failures.prefix(5).joined(separator: "\n"))")
  }

  @Test func everyOrderingOfFiveEventsWithFailuresKeepsTheRecordsInvariants() {
    let events: [Event] = [.invalidate, .requestNextPage, .refetch, .step, .fail, .cancel, .toggleHolder, .gcTick]
    let (sequences, failures) = explore(events, depth: 5)
    #expect(sequences == 32_768)
    #expect(failures.isEmpty, "\(failures.prefix(5).joined(separator: "\n"))")
  }

  @Test func everyOrderingOfFiveEventsWithTriggersAndHoldersKeepsTheRecordsInvariants() {
    let events: [Event] = [
      .invalidate, .requestPreviousPage, .step, .gcTick, .trigger, .secondHolder, .touch, .toggleHolder,
    ]
    let (sequences, failures) = explore(events, depth: 5)
    #expect(sequences == 32_768)
    #expect(failures.isEmpty, "\(failures.prefix(5).joined(separator: "\n"))")
  }

  @Test func everyOrderingOfSixEventsWithAwaitingCallersKeepsTheRecordsInvariants() {
    let events: [Event] = [.awaitValue, .invalidate, .step, .cancel, .toggleHolder, .gcTick]
    let (sequences, failures) = explore(events, depth: 6)
    #expect(sequences == 46_656)
    #expect(failures.isEmpty, "\(failures.prefix(5).joined(separator: "\n"))")
  }

  @Test func everyOrderingOfFiveEventsWithStaleServingEnsuringAndPrefetchingKeepsTheRecordsInvariants() {
    let events: [Event] = [.awaitStale, .ensure, .prefetch, .awaitValue, .step, .fail, .toggleHolder, .gcTick]
    let (sequences, failures) = explore(events, depth: 5)
    #expect(sequences == 32_768)
    #expect(failures.isEmpty, "\(failures.prefix(5).joined(separator: "\n"))")
  }

  @Test func everyOrderingOfSixEventsWithEvictionsKeepsTheRecordsInvariants() {
    let events: [Event] = [.awaitValue, .invalidate, .step, .cancel, .toggleHolder, .evict]
    let (sequences, failures) = explore(events, depth: 6)
    #expect(sequences == 46_656)
    #expect(failures.isEmpty, "\(failures.prefix(5).joined(separator: "\n"))")
  }

  @Test func everyOrderingOfFiveEventsWithPagesFailuresAndEvictionsKeepsTheRecordsInvariants() {
    let events: [Event] = [.requestNextPage, .refetch, .step, .fail, .prefetch, .toggleHolder, .gcTick, .evict]
    let (sequences, failures) = explore(events, depth: 5)
    #expect(sequences == 32_768)
    #expect(failures.isEmpty, "\(failures.prefix(5).joined(separator: "\n"))")
  }

  @Test func everyOrderingOfEightRefreshEventsKeepsAHeldQueryFresh() {
    let (sequences, failures) = explore([.invalidate, .refetch, .step], depth: 8)
    #expect(sequences == 6_561)
    #expect(failures.isEmpty, "\(failures.prefix(5).joined(separator: "\n"))")
  }

  /// Longer sequences than the exhaustive tests reach, drawn from a seeded generator; every failure names its seed.
  @Test func seededRandomSequencesOfTwelveEventsKeepTheRecordsInvariants() {
    let seed = UInt64.random(in: 1...UInt64.max)
    var generator = SplitMix(seed: seed)
    var failures: [String] = []
    for _ in 0..<20_000 where failures.count < 5 {
      let sequence: [Event] = (0..<12).map { _ in Event.allCases[generator.next(below: Event.allCases.count)] }
      var harness = Harness(trace: sequence.map(\.description).joined(separator: ", "))
      for event in sequence { harness.apply(event) }
      harness.settle()
      harness.checkFresh()
      harness.checkCollected()
      failures += harness.failures
    }
    #expect(failures.isEmpty, "seed \(seed): \(failures.prefix(5).joined(separator: "\n"))")
  }

  @Test func threeInvalidationsDuringOneRefreshEndWithAFetchAfterTheLast() {
    var harness = Harness(trace: "three invalidations")
    for _ in 0..<3 {
      harness.apply(.invalidate)
      harness.apply(.step)  // Page 0 of a walk that the invalidation superseded.
    }
    harness.settle()
    harness.checkFresh()
    #expect(harness.failures.isEmpty, "\(harness.failures)")
    #expect(harness.appliedRefreshVersion == 4)
  }

  @Test func anUnheldRecordIsCollectedAfterGCTimeAndNotBefore() {
    var machine = QueryRecordMachine()
    let gcTime = Duration.seconds(60)
    #expect(machine.gcTick(now: .seconds(15), gcTime: gcTime, isHeld: true) == .keep)
    #expect(machine.gcTick(now: .seconds(30), gcTime: gcTime, isHeld: false) == .keep)  // Unused from here.
    #expect(machine.gcTick(now: .seconds(75), gcTime: gcTime, isHeld: false) == .keep)
    machine.touched()  // Used between checks: a whole gcTime again.
    #expect(machine.gcTick(now: .seconds(90), gcTime: gcTime, isHeld: false) == .keep)
    #expect(machine.gcTick(now: .seconds(149), gcTime: gcTime, isHeld: false) == .keep)
    #expect(machine.gcTick(now: .seconds(150), gcTime: gcTime, isHeld: false) == .collect)
    #expect(machine.request(.refresh, by: .caller) == .none)  // A collected record takes no more work.
  }

  @Test func aGCTimeOfZeroCollectsAtTheFirstCheckThatFindsTheRecordUnused() {
    var machine = QueryRecordMachine()
    #expect(machine.gcTick(now: .seconds(1), gcTime: .zero, isHeld: true) == .keep)
    #expect(machine.gcTick(now: .seconds(2), gcTime: .zero, isHeld: false) == .collect)
    #expect(machine.request(.refresh, by: .caller) == .none)
  }

  @Test func anEvictedRecordGoesOnlyWhenNothingUsesIt() {
    var machine = QueryRecordMachine()
    #expect(machine.evicted(isHeld: true) == .keep)  // Held: never dropped from under a holder.
    #expect(machine.request(.refresh, by: .library) == .start(1, .refresh))
    #expect(machine.evicted(isHeld: false) == .keep)  // Fetching.
    #expect(machine.finished(1, outcome: .applied(at: .zero), isHeld: false) == .none)
    #expect(machine.evicted(isHeld: false) == .collect)
    #expect(machine.request(.refresh, by: .caller) == .none)  // An evicted record takes no more work.
  }

  @Test func aRefreshAskedForAfterTheRunningOneWasCancelledWaitsForItAndRunsAfter() {
    var machine = QueryRecordMachine()
    guard
      case .awaitFetch(.start(let first, .refresh)) = machine.valueRequested(
        now: .zero, staleTime: .seconds(10), accepting: .fresh)
    else {
      Issue.record("the first caller of an empty record starts a refresh")
      return
    }
    #expect(machine.cancelRequested(first) == .cancelRunning(first))
    // Its task is cancelled but has not ended: a new caller does not join it (it would get its cancellation).
    guard
      case .awaitFetch(.wait(let second, .refresh)) = machine.valueRequested(
        now: .zero, staleTime: .seconds(10), accepting: .fresh)
    else {
      Issue.record("a caller after the cancellation waits for a refresh of its own")
      return
    }
    #expect(machine.holderAppeared(now: .zero, staleTime: .seconds(10)) == .join(second))
    #expect(machine.finished(first, outcome: .cancelled, isHeld: true) == .start(second, .refresh))
  }

  @Test func anAwaitingCallerIsServedAFreshValueAndWaitsForAStaleOne() {
    var machine = QueryRecordMachine()
    let staleTime = Duration.seconds(10)
    guard
      case .awaitFetch(.start(let first, .refresh)) = machine.valueRequested(
        now: .zero, staleTime: staleTime, accepting: .staleWhileRefetching)
    else {
      Issue.record("nothing cached: even a caller that takes a stale value waits")
      return
    }
    #expect(machine.fetchReturned(first) == .apply(keepPending: false))
    #expect(machine.finished(first, outcome: .applied(at: .seconds(1)), isHeld: false) == .none)
    #expect(machine.valueRequested(now: .seconds(10), staleTime: staleTime, accepting: .fresh) == .serveCached)
    #expect(machine.valueRequested(now: .seconds(11), staleTime: staleTime, accepting: .anyAge) == .serveCached)
    #expect(
      machine.valueRequested(now: .seconds(11), staleTime: staleTime, accepting: .staleWhileRefetching)
        == .serveCachedAndRefetch(.start(2, .refresh)))
    #expect(machine.valueRequested(now: .seconds(11), staleTime: staleTime, accepting: .fresh) == .awaitFetch(.join(2)))
    #expect(machine.cancelRequested(2) == .leave)  // The background refetch is the library's.
  }

  @Test func aRefetchOfAllPagesEndsWhereNextPageReturnsNil() {
    var walk = RefetchAllWalk(from: 0, limit: 3)
    #expect(walk.step == .fetch(0))
    walk.fetched(next: 1)
    #expect(walk.step == .fetch(1))
    walk.fetched(next: nil)
    #expect(walk.step == .finished(next: nil))
    #expect(walk.ids == [0, 1])
    var limited = RefetchAllWalk(from: "a", limit: 2)
    limited.fetched(next: "b")
    limited.fetched(next: "c")
    #expect(limited.step == .finished(next: "c"))
    var cycle = RefetchAllWalk(from: "a", limit: 5)
    cycle.fetched(next: "b")
    cycle.fetched(next: "a")  // Back to a walked page: the chain ends here.
    #expect(cycle.step == .finished(next: nil))
    #expect(cycle.ids == ["a", "b"])
  }
}
