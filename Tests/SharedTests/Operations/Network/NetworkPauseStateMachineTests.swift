import TestSupport
import Testing

@testable import SharedState

/// The network gate's decisions, through every ordering of their events up to a small depth: the device going
/// offline and online (each report delivered once, in any order), runs starting, attempts failing with a retry due,
/// backoffs ending, attempts succeeding, and cancellations.
// A search of one value type on one thread: off the cooperative pool so that it holds none of its threads, and
// skipped under ThreadSanitizer, which has nothing to find in it (plain `swift test` runs it in full).
@Suite(.offTheCooperativePool, .disabled(if: isThreadSanitizerBuild, "single-threaded search"))
struct NetworkPauseStateMachineTests {
  /// The machine beside a model of its runs and of the status reports, written independently of the machine.
  struct Model {
    typealias Machine = NetworkPauseStateMachine<UInt64>

    enum Phase: Equatable {
      case notStarted
      case attempting
      case backingOff
      case paused
      case ended
    }

    struct Run {
      let mode: NetworkMode
      var phase = Phase.notStarted
      var attempts = 0
      var failures = 0
    }

    /// The runs, numbered from 1: an array, as the search copies the model at every step.
    struct Runs {
      var list: [Run]
      var numbers: [UInt64] { list.indices.map { UInt64($0 + 1) } }
      subscript(run: UInt64) -> Run {
        get { list[Int(run) - 1] }
        set { list[Int(run) - 1] = newValue }
      }
    }

    var machine = Machine()
    var runs: Runs
    /// The statuses the device went through, in order: report `n` (from 1) says `changes[n - 1]`.
    var changes: [Bool] = []
    /// The reports delivered so far.
    var delivered: Set<Int> = []
    /// The paused runs, in the order they paused: the reference the machine's resumptions follow.
    var queue: [UInt64] = []

    init(modes: [NetworkMode]) {
      runs = Runs(list: modes.map { Run(mode: $0) })
    }

    /// The status as the newest delivered report says; online before any report.
    var reportedOnline: Bool {
      guard let newest = delivered.max() else { return true }
      return changes[newest - 1]
    }

    /// Run `run` starts an attempt: only while the reports say online, except the first of an offline-first run.
    mutating func attempt(_ run: UInt64) -> String? {
      let isFirst = runs[run].attempts == 0
      if !reportedOnline && !(isFirst && runs[run].mode == .offlineFirst) {
        return "run \(run) started an attempt while offline"
      }
      runs[run].attempts += 1
      runs[run].phase = .attempting
      return nil
    }

    mutating func pause(_ run: UInt64) -> String? {
      if reportedOnline { return "run \(run) paused while online" }
      runs[run].phase = .paused
      queue.append(run)
      return nil
    }

    mutating func act(_ action: Machine.StartAction, of run: UInt64) -> String? {
      switch action {
      case .attempt: attempt(run)
      case .pause: pause(run)
      }
    }

    mutating func report(_ number: Int) -> String? {
      let wasOnline = reportedOnline
      delivered.insert(number)
      let action = machine.statusChanged(
        isOnline: changes[number - 1], version: .init(generation: 1, sequence: UInt64(number)))
      // A reconnect is exactly a change of the newest report from offline to online, paused runs or not.
      let reconnects = !wasOnline && reportedOnline
      guard case .reconnected(let waiters) = action else {
        return reconnects ? "report \(number) brought the device back online, yet the machine saw no reconnect" : nil
      }
      if !reconnects { return "report \(number) was taken for a reconnect, yet the device was not offline before it" }
      for waiter in waiters {
        guard runs[waiter].phase == .paused else { return "run \(waiter) was resumed, yet it was not paused" }
        // Paused runs go on in the order they paused.
        guard queue.first == waiter else { return "run \(waiter) was resumed before \(queue)" }
        queue.removeFirst()
        if let problem = attempt(waiter) { return problem }
      }
      return nil
    }
  }

  static func events(_ model: Model) -> [(name: String, apply: (inout Model) -> String?)] {
    var events: [(name: String, apply: (inout Model) -> String?)] = []
    if model.changes.count < 3 {
      let next = !(model.changes.last ?? true)
      events.append(
        (
          next ? "online" : "offline",
          { model in
            model.changes.append(next)
            return nil
          }
        ))
    }
    for number in model.changes.indices.map({ $0 + 1 }) where !model.delivered.contains(number) {
      events.append(("report \(number)", { $0.report(number) }))
    }
    for run in model.runs.numbers {
      let state = model.runs[run]
      switch state.phase {
      case .notStarted:
        events.append(("start \(run)", { $0.act($0.machine.start(run, mode: state.mode, waiter: run), of: run) }))
      case .attempting:
        events.append(
          (
            "succeed \(run)",
            { model in
              model.runs[run].phase = .ended
              return nil
            }
          ))
        if state.failures < 2 {
          events.append(
            (
              "fail \(run)",
              { model in
                model.runs[run].failures += 1
                switch model.machine.attemptFailed(run, waiter: run) {
                case .backOff:
                  if !model.reportedOnline { return "run \(run) backs off while offline, using up its attempts" }
                  model.runs[run].phase = .backingOff
                  return nil
                case .pause:
                  return model.pause(run)
                }
              }
            ))
        }
      case .backingOff:
        events.append(("backoff ends \(run)", { $0.act($0.machine.backoffEnded(run, waiter: run), of: run) }))
      case .paused, .ended:
        break
      }
      if state.phase != .ended {
        events.append(
          (
            "cancel \(run)",
            { model in
              let wasPaused = model.runs[run].phase == .paused
              switch model.machine.cancel(run) {
              case .resumeCancelled(let waiter):
                guard wasPaused, waiter == run else { return "cancelling \(run) resumed \(waiter)" }
                model.queue.removeAll { $0 == run }
              case .none:
                // A paused run must stop waiting at once; any other ends through its own cancellation.
                if wasPaused { return "cancelling paused run \(run) left it waiting" }
              }
              model.runs[run].phase = .ended
              return nil
            }
          ))
      }
    }
    return events
  }

  static func check(_ model: Model) -> String? {
    if model.machine.isOnline != model.reportedOnline {
      return "the machine says online: \(model.machine.isOnline), the newest report \(model.reportedOnline)"
    }
    let waiting = model.machine.paused.map(\.run)
    // The machine holds exactly the paused runs, in the order they paused.
    if waiting != model.queue { return "the machine holds \(waiting) paused, the runs paused are \(model.queue)" }
    // Nothing waits while the device is online: a paused run never hangs.
    if model.reportedOnline && !model.queue.isEmpty { return "\(model.queue) wait although the device is online" }
    // An attempt never runs twice at once, and no run is both resumed and cancelled for one pause.
    for run in model.runs.numbers where model.runs[run].attempts > model.runs[run].failures + 1 {
      return "run \(run) made \(model.runs[run].attempts) attempts for \(model.runs[run].failures) failures"
    }
    return nil
  }

  @Test(arguments: [[NetworkMode.online, .online], [NetworkMode.online, .offlineFirst]])
  func runsWaitOfflineAndGoOnInPauseOrderInEveryOrdering(modes: [NetworkMode]) {
    let explored = exploreEveryOrdering(
      from: Model(modes: modes), depth: 8, events: Self.events, check: Self.check)
    #expect(explored > 150_000)
  }

  @Test func aRunOfModeAlwaysNeverWaits() {
    var machine = NetworkPauseStateMachine<Int>()
    _ = machine.statusChanged(isOnline: false, version: .init(generation: 1, sequence: 1))
    #expect(machine.start(1, mode: .always, waiter: 1) == .attempt)
    #expect(machine.start(2, mode: .offlineFirst, waiter: 2) == .attempt)
    #expect(machine.start(3, mode: .online, waiter: 3) == .pause)
    #expect(machine.paused.map(\.run) == [3])
  }

  @Test func anOlderReportChangesNothing() {
    var machine = NetworkPauseStateMachine<Int>()
    _ = machine.statusChanged(isOnline: false, version: .init(generation: 1, sequence: 2))
    #expect(machine.start(1, mode: .online, waiter: 1) == .pause)
    // Report 1 (online) arrives after report 2 (offline): stale, so the run keeps waiting.
    guard case .none = machine.statusChanged(isOnline: true, version: .init(generation: 1, sequence: 1)) else {
      Issue.record("a stale report resumed the run")
      return
    }
    #expect(!machine.isOnline)
    // A new source's first report is newer than any of the old one's.
    guard
      case .reconnected(let waiters) = machine.statusChanged(isOnline: true, version: .init(generation: 2, sequence: 0))
    else {
      Issue.record("the new source's report resumed nothing")
      return
    }
    #expect(waiters == [1])
  }

  @Test func aReconnectIsAChangeFromOfflineToOnlineWhateverWaits() {
    var machine = NetworkPauseStateMachine<Int>()
    // A source that starts online: no change, no reconnect.
    guard case .none = machine.statusChanged(isOnline: true, version: .init(generation: 1, sequence: 0)) else {
      Issue.record("the status a source starts with was taken for a reconnect")
      return
    }
    _ = machine.statusChanged(isOnline: false, version: .init(generation: 1, sequence: 1))
    // Back online with nothing paused: still a reconnect, for the queries to refetch.
    guard
      case .reconnected(let waiters) = machine.statusChanged(isOnline: true, version: .init(generation: 1, sequence: 2))
    else {
      Issue.record("coming back online with nothing paused was no reconnect")
      return
    }
    #expect(waiters.isEmpty)
    guard case .none = machine.statusChanged(isOnline: true, version: .init(generation: 1, sequence: 3)) else {
      Issue.record("a second report of online was taken for a reconnect")
      return
    }
  }
}
