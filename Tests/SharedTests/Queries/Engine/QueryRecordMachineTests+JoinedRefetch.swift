import TestSupport
import Testing

@testable import SharedState

/// The refetch that `QueryStore.invalidateAndAwaitRefetches` (and a mutation with `awaitsRefetches`) joins, driven
/// through ``QueryRecordMachine`` as `QueryRecord.invalidateJoiningRefetch` drives it, in every ordering of the events
/// around it up to a small depth: an invalidation followed by a caller's refresh request, in one step.
extension QueryRecordMachineTests {
  typealias WorkID = QueryRecordMachine.WorkID

  /// The record's machine, with its work run as `QueryFetchExecutor.execute` runs it.
  struct JoinedRefetchModel {
    /// Where the running work is, as the store sees it.
    enum Step: Equatable {
      case fetching
      /// Its end was written; `finished` comes next, with this outcome.
      case ended(QueryRecordMachine.Outcome)
      /// The value was left fetching for work that was withdrawn; `settled` comes next.
      case settling
    }

    var machine = QueryRecordMachine()
    /// Whether the query has holders (`QueryRefetchScope.held`), or is refetched although nobody holds it (`.all`).
    let isHeld: Bool
    var running: (id: WorkID, step: Step)?
    /// Running work whose task was cancelled: its fetch ends as cancelled.
    var cancelledTasks: Set<WorkID> = []
    /// How many invalidations came so far.
    var invalidations = 0
    /// The invalidation count when each unit of work began fetching.
    var startedAfter: [WorkID: Int] = [:]
    /// The refetches joined, with the invalidation count at the time.
    var joined: [(id: WorkID, invalidation: Int)] = []
    /// Joined refetches whose caller stopped waiting.
    var left: Set<WorkID> = []
    /// Work withdrawn before it ran, and work that ended, with how.
    var withdrawn: Set<WorkID> = []
    var ended: [WorkID: QueryRecordMachine.Outcome] = [:]
    /// Whether the app cancelled the record's fetches since the last invalidation.
    var appStopped: Set<WorkID> = []

    init(isHeld: Bool) {
      self.isHeld = isHeld
    }

    mutating func perform(_ action: QueryRecordMachine.RequestAction) -> String? {
      switch action {
      case .start(let id, _):
        if let running, running.id != id { return "work \(id) started while \(running.id) runs" }
        running = (id, .fetching)
        startedAfter[id] = invalidations
      case .settleStatus(let id):
        // Asked by the work that just ended, whose fetching is left to settle.
        guard running == nil, ended[id] != nil else { return "settling \(id), which did not just end" }
        running = (id, .settling)
      case .wait, .join, .none:
        break
      }
      return nil
    }

    // MARK: Events

    mutating func invalidateAndJoin() -> String? {
      invalidations += 1
      if let problem = perform(machine.invalidated(isHeld: true)) { return problem }
      let request = machine.request(.refresh, by: .caller)
      let id: WorkID
      switch request {
      case .start(let started, _), .wait(let started, _), .join(let started): id = started
      case .settleStatus, .none: return "an invalidation of an enabled record joined no refetch (\(request))"
      }
      joined.append((id, invalidations))
      return perform(request)
    }

    mutating func requestPage() -> String? {
      perform(machine.request(.nextPage, by: .library))
    }

    mutating func refetch() -> String? {
      perform(machine.request(.refresh, by: .library))
    }

    /// The running work takes its next step: its fetch returns (or ends cancelled, if its task was), its end is
    /// reported, or the fetching it left is settled.
    mutating func step(failing: Bool = false) -> String? {
      guard let (id, step) = running else { return nil }
      switch step {
      case .fetching:
        if cancelledTasks.contains(id) {
          _ = machine.fetchStopped(id, cancelled: true, isHeld: isHeld)
          running = (id, .ended(.cancelled))
        } else if failing {
          _ = machine.fetchStopped(id, cancelled: false, isHeld: isHeld)
          running = (id, .ended(.failed))
        } else {
          guard case .apply = machine.fetchReturned(id) else { return "the running work \(id) was discarded" }
          running = (id, .ended(.applied(at: .zero)))
        }
      case .ended(let outcome):
        running = nil
        ended[id] = outcome
        return perform(machine.finished(id, outcome: outcome, isHeld: isHeld))
      case .settling:
        running = nil
        return perform(machine.settled(id))
      }
      return nil
    }

    /// The caller of a joined refetch stops waiting for it.
    mutating func leave(_ id: WorkID) -> String? {
      left.insert(id)
      switch machine.cancelRequested(id) {
      case .leave: break
      case .cancelRunning(let cancelled): cancelledTasks.insert(cancelled)
      case .withdraw(let removed): withdrawn.insert(removed)
      }
      return nil
    }

    /// The app cancels the record's fetches.
    mutating func appCancels() -> String? {
      let stop = machine.fetchesCancelled()
      if let cancelled = stop.cancelRunning { cancelledTasks.insert(cancelled) }
      withdrawn.formUnion(stop.withdraw)
      appStopped.formUnion(stop.withdraw)
      if let running = running?.id { appStopped.insert(running) }
      return nil
    }

    // MARK: Rules

    /// The rule after every event: a joined refetch never began fetching before the invalidation it answers.
    func brokenRule() -> String? {
      for (id, invalidation) in joined {
        if let started = startedAfter[id], started < invalidation {
          return "refetch \(id), joined after invalidation \(invalidation), began fetching after only \(started)"
        }
      }
      return nil
    }

    /// The rule once every unit of work ran its course: each joined refetch its caller still awaited ran, unless
    /// the app cancelled the record's fetches.
    func brokenRuleWhenSettled() -> String? {
      for (id, _) in joined where !left.contains(id) && !appStopped.contains(id) {
        if withdrawn.contains(id) { return "refetch \(id) was withdrawn while a caller awaited it" }
        guard let outcome = ended[id] else { return "refetch \(id) never ran" }
        if outcome == .cancelled && !cancelledTasks.contains(id) { return "refetch \(id) ended cancelled" }
      }
      return nil
    }

    /// Steps the running work until nothing runs.
    mutating func settle() -> String? {
      for _ in 0..<64 {
        guard running != nil else { return nil }
        if let problem = step() ?? brokenRule() { return problem }
      }
      return "the work never settled"
    }
  }

  private func search(isHeld: Bool) -> Int {
    exploreEveryOrdering(
      from: JoinedRefetchModel(isHeld: isHeld), depth: 6,
      events: { model in
        var events: [(name: String, apply: (inout JoinedRefetchModel) -> String?)] = [
          ("invalidate and join", { $0.invalidateAndJoin() }),
          ("next page", { $0.requestPage() }),
          ("refetch", { $0.refetch() }),
          ("app cancels", { $0.appCancels() }),
        ]
        if model.running != nil {
          events.append(("step", { $0.step() }))
          if model.running?.step == .fetching { events.append(("fail", { $0.step(failing: true) })) }
        }
        for (id, _) in model.joined where !model.left.contains(id) {
          events.append(("leave \(id)", { $0.leave(id) }))
        }
        return events
      },
      check: { model in
        if let problem = model.brokenRule() { return problem }
        var settled = model
        return settled.settle() ?? settled.brokenRuleWhenSettled()
      })
  }

  @Test func theJoinedRefetchOfAHeldQueryBeginsAfterTheInvalidationAndRunsInEveryOrdering() {
    #expect(search(isHeld: true) > 30_000)
  }

  @Test func theJoinedRefetchOfAQueryNobodyHoldsBeginsAfterTheInvalidationAndRunsInEveryOrdering() {
    #expect(search(isHeld: false) > 30_000)
  }
}
