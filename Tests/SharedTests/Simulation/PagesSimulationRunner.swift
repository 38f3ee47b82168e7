import Foundation
import TestSupport

@testable import SharedState

/// One thing an app does to a paginated feed, or the server does, in a simulated program (see
/// `PagesSimulationRunner`). A step that cannot run now (a page asked for while one is being fetched) does nothing,
/// so any subsequence of a program is a program too.
enum PagesSimulationStep: Hashable, Sendable, CustomStringConvertible {
  case hold
  case release
  case fetchNextPage
  case refetchAll
  case invalidate
  /// The server answers the page fetch under way; only a next page may fail.
  case answerPage(succeeds: Bool)
  /// `store.update`: the last item of page 0 is edited in place.
  case edit
  /// An optimistic mutation that inserts its item at the front of page 0.
  case mutate
  case answerMutation(pick: Int, succeeds: Bool)
  /// The app ends (its persisted cache flushed) and launches again from the bytes written: the feed's pages wait in
  /// the restored cache for its next holder. Only while nothing is fetched or sent.
  case relaunch

  var description: String {
    switch self {
    case .hold: "hold the feed"
    case .release: "release a holder of the feed"
    case .fetchNextPage: "fetchNextPage"
    case .refetchAll: "refetchAll"
    case .invalidate: "invalidate the feed"
    case .answerPage(let succeeds): "server answers the page fetch with \(succeeds ? "data" : "an error")"
    case .edit: "store.update: edit the last item of page 0"
    case .mutate: "mutate: insert an item at the front of page 0 optimistically"
    case .answerMutation(let pick, let succeeds):
      "server answers mutation call #\(pick): \(succeeds ? "applied" : "refused")"
    case .relaunch: "flush the persisted cache, end the app and launch it again"
    }
  }

  /// The program a seed makes.
  static func program(seed: UInt64, length: Int = 60) -> [PagesSimulationStep] {
    var random = SplitMix(seed: seed)
    return (0..<length).map { _ in
      let coin = random.next(below: 4) != 0
      let pick = random.next(below: 3)
      switch random.next(below: 100) {
      case 0..<12: return .hold
      case 12..<18: return .release
      case 18..<32: return .fetchNextPage
      case 32..<37: return .refetchAll
      case 37..<42: return .invalidate
      case 42..<64: return .answerPage(succeeds: coin)
      case 64..<74: return .edit
      case 74..<86: return .mutate
      case 86..<89: return .relaunch
      default: return .answerMutation(pick: pick, succeeds: coin)
      }
    }
  }
}

/// Runs a paginated feed (`.paginatedQuery`) with several holders against `SimulatedPageServer`, checked against
/// `SimulationPagesModel` after every step that settles. The program asks for pages, refetches and invalidates only
/// while no page is being fetched, so that the model knows which fetch is which; optimistic mutations and their
/// answers come at any time, and edits whenever no refetch of all pages is under way. The store persists its cache,
/// and a relaunch restores the feed's pages in a new registry.
final class PagesSimulationRunner {
  typealias Feed = PaginatedState<Int, [Int]>

  private let steps: [PagesSimulationStep]
  private let clock = ManualClock()
  private let server = SimulatedPageServer()
  private var registry = SharedRegistry()
  /// The persisted cache's storage: written at once (no throttle), flushed at a relaunch.
  private var persister = MemoryCachePersister()
  /// The cache writer's clock, kept apart from the feed's.
  private let throttleClock = ManualClock()
  private var model = SimulationPagesModel()
  private var holders: [Shared<Feed>] = []
  private var mutationState = Shared(value: MutationState<Int, Int>())
  private var tasks: [OperationTask<Int>] = []
  private let outcomes = Collector<(mutation: Int, succeeded: Bool)>()
  private var heard: Set<Int> = []
  private var edits = 0
  private var step = 0
  private var settleGuard: Duration

  init(steps: [PagesSimulationStep], settleGuard: Duration) {
    self.steps = steps
    self.settleGuard = settleGuard
  }

  /// Runs `steps`; returns the first broken invariant: the step after which it broke, and what.
  static func run(_ steps: [PagesSimulationStep], settleGuard: Duration = .seconds(2)) async -> SimulationFailure? {
    let runner = PagesSimulationRunner(steps: steps, settleGuard: settleGuard)
    let failure = await runner.runSteps()
    await SharedRegistry.$current.withValue(runner.registry) { await runner.tearDown() }
    return failure
  }

  private var store: QueryStore { registry.queries }

  private var feedQuery: Query<Feed> {
    let server = self.server
    let options = QueryOptions(
      staleTime: .seconds(3_600), gcTime: .seconds(3_600), operation: .retry(.none).clock(clock))
    let nextPage: @Sendable ([Int], Int) -> Int? = { _, id in id + 1 < SimulatedPageServer.pageCount ? id + 1 : nil }
    return .paginatedQuery(["feed"], initialPage: 0, nextPage: nextPage, options: options) { id in
      try await server.fetchPage(id)
    }
  }

  private func runSteps() async -> SimulationFailure? {
    await launch()
    for (index, step) in steps.enumerated() {
      self.step = index + 1
      if case .relaunch = step { await relaunch() }
      // The app's current registry: a relaunch makes another.
      let failure = await SharedRegistry.$current.withValue(registry) {
        perform(step)
        return await settleAndCheck()
      }
      if let failure { return failure }
    }
    return nil
  }

  /// Sets up the current registry's store as the app does at launch: its persisted cache, restored from
  /// ``persister``.
  private func launch() async {
    await SharedRegistry.$current.withValue(registry) {
      _ = await store.persistCache(QueryCachePersistence(persister: persister, throttle: .zero, clock: throttleClock))
    }
  }

  /// The app ends, its cache flushed, and launches again from the bytes written; only while nothing is fetched or
  /// sent (the model knows then what the store wrote last).
  private func relaunch() async {
    guard model.isIdle, model.unfinished.isEmpty, server.callsUnderWay.isEmpty else { return }
    let bytes = await SharedRegistry.$current.withValue(registry) { () -> Data? in
      try? await store.flushPersistedCache()
      return persister.data
    }
    holders = []
    SharedRegistry.$current.withValue(registry) { store.remove(.all) }
    registry = SharedRegistry()
    persister = MemoryCachePersister(data: bytes)
    model.relaunch()
    await launch()
  }

  private func perform(_ step: PagesSimulationStep) {
    switch step {
    case .hold:
      model.hold()
      holders.append(Shared(wrappedValue: Feed(), feedQuery))
    case .release:
      guard holders.popLast() != nil else { return }
      model.release()
    case .fetchNextPage:
      guard model.isIdle, let holder = holders.last else { return }
      model.fetchNextPage()
      holder.fetchNextPage()
    case .refetchAll:
      guard model.isIdle, model.confirmed != nil, let holder = holders.last else { return }
      model.startWalk()
      holder.refetchAll()
    case .invalidate:
      guard model.isIdle, model.confirmed != nil else { return }
      model.invalidate()
      store.invalidate(.exactly(["feed"]))
    case .answerPage(let succeeds):
      guard let (page, data) = server.answerFetch(succeeds: succeeds || model.walk != nil) else { return }
      model.answered(page: page, data: data)
    case .edit:
      guard model.walk == nil else { return }
      edits += 1
      let value = 1_000 + edits
      store.update(["feed"], as: Feed.self) { feed in
        if !feed.pages.isEmpty, !feed.pages[0].isEmpty { feed.pages[0][feed.pages[0].count - 1] = value }
      }
      model.edit(value)
    case .mutate:
      let mutation = tasks.count
      let item = 500 + mutation
      let server = self.server
      let optimistic = OptimisticMutation { (item: Int, cache: OptimisticCache) in
        cache.update(["feed"], as: Feed.self) { feed in
          if !feed.pages.isEmpty, !feed.pages[0].contains(item) { feed.pages[0].insert(item, at: 0) }
        }
      }
      model.mutate(mutation, item: item)
      let task = mutationState.mutate(item, optimistic: optimistic) { item in
        try await server.call(mutation: mutation, item: item)
      }
      tasks.append(task)
      let outcomes = self.outcomes
      Task {
        let result = await task.result
        outcomes.append((mutation, (try? result.get()) != nil))
      }
    case .answerMutation(let pick, let succeeds):
      _ = server.answerMutation(pick: pick, succeeds: succeeds)
    case .relaunch:
      break  // Done before the step's registry is taken (see `relaunch()`).
    }
  }

  // MARK: Settling

  private func fingerprint() -> String {
    let activity = store.activity.wrappedValue
    var parts = [
      "\(server.fetchesUnderWay)", "\(server.callsUnderWay)", "\(outcomes.elements.count)",
      "\(activity.fetchingQueries)", "\(activity.runningMutations)",
    ]
    for holder in holders {
      let feed = holder.wrappedValue
      parts.append("\(feed.pages)|\(feed.pageIDs)|\(feed.isFetching)|\(feed.status)")
    }
    parts.append("\(mutationState.wrappedValue.status)")
    return parts.joined(separator: ";")
  }

  private func settleAndCheck() async -> SimulationFailure? {
    let giveUp = ContinuousClock.now + settleGuard
    var last = fingerprint()
    var stableRounds = 0
    while true {
      for _ in 0..<16 { await Task.yield() }
      let now = fingerprint()
      if now == last {
        stableRounds += 1
      } else {
        stableRounds = 0
        last = now
      }
      guard stableRounds >= 4 else { continue }
      absorbOutcomes()
      guard let broken = brokenInvariant() else { return nil }
      if ContinuousClock.now > giveUp { return SimulationFailure(step: step, invariant: broken, detail: snapshot()) }
    }
  }

  private func absorbOutcomes() {
    for (mutation, succeeded) in outcomes.elements.sorted(by: { $0.mutation < $1.mutation })
    where !heard.contains(mutation) {
      heard.insert(mutation)
      model.mutationEnded(mutation, succeeded: succeeded)
    }
  }

  private func brokenInvariant() -> String? {
    let underWay = server.fetchesUnderWay
    if underWay.count > 1 { return "several pages are fetched at once: \(underWay)" }
    if underWay.first != model.expectedFetch {
      return "the store fetches \(underWay.first.map { "page \($0)" } ?? "nothing"), the model expects "
        + "\(model.expectedFetch.map { "page \($0)" } ?? "nothing")"
    }
    // With nobody holding the feed, only the store's activity shows that a page answered is written.
    let fetching = store.activity.wrappedValue.fetchingQueries
    if fetching != (underWay.isEmpty ? 0 : 1) {
      return "the store's activity counts \(fetching) fetching queries, the server \(underWay.count) page fetches"
    }
    let applied = Set(server.applied)
    for holder in holders {
      let feed = holder.wrappedValue
      if feed.pageIDs != Array(0..<feed.pages.count) {
        return "a holder shows page ids \(feed.pageIDs) for \(feed.pages.count) pages"
      }
      let items = feed.pages.flatMap { $0 }
      if let ended = items.first(where: { model.ended.contains($0) && !applied.contains($0) }) {
        return "a holder shows \(feed.pages), with the change \(ended) of a mutation that failed"
      }
      if let twice = items.first(where: { item in item >= 0 && items.filter { $0 == item }.count > 1 }) {
        return "a holder shows \(feed.pages), with \(twice) twice"
      }
      // The optimistic rule holds even while a refetch of all pages is half done.
      if let first = feed.pages.first {
        for change in model.pending where !first.contains(change.item) {
          return "a holder shows \(feed.pages), without the pending change \(change.item) in page 0"
        }
      }
      guard model.walk == nil, let expected = model.shown else { continue }
      let ambiguous = model.ambiguous
      let shown = feed.pages.map { $0.filter { !ambiguous.contains($0) } }
      if shown != expected.map({ $0.filter { !ambiguous.contains($0) } }) {
        return "a holder shows \(feed.pages), the model \(expected)"
          + (ambiguous.isEmpty ? "" : " (either way for \(ambiguous.sorted()))")
      }
      if feed.isFetching != !underWay.isEmpty {
        return "a holder shows fetching \(feed.isFetching) while \(underWay.count) page fetches are under way"
      }
    }
    return nil
  }

  private func snapshot() -> String {
    var lines = [
      "server: pages under way \(server.fetchesUnderWay), calls \(server.callsUnderWay), applied \(server.applied)",
      "model: confirmed \(model.confirmed.map { "\($0)" } ?? "nothing"), shown \(model.shown.map { "\($0)" } ?? "nothing"), "
        + "walk \(model.walk.map { "\($0.fetched.count) of \($0.count)" } ?? "-"), next page \(model.nextPage.map { "\($0)" } ?? "-"), "
        + "pending \(model.pending.map(\.item)), holders \(model.holders), invalidated \(model.isInvalidated)",
    ]
    for holder in holders {
      let feed = holder.wrappedValue
      lines.append(
        "  holder: \(feed.pages) ids \(feed.pageIDs), \(feed.status), fetching \(feed.isFetching), next \(feed.hasNextPage)"
      )
    }
    return lines.joined(separator: "\n")
  }

  private func tearDown() async {
    for task in tasks { task.cancel() }
    holders = []
    store.remove(.all)
    var quietRounds = 0
    while quietRounds < 8 {
      for _ in 0..<16 { await Task.yield() }
      var answered = false
      while server.answerFetch(succeeds: false) != nil { answered = true }
      while server.answerMutation(pick: 0, succeeds: false) != nil { answered = true }
      quietRounds = answered ? 0 : quietRounds + 1
    }
  }
}
