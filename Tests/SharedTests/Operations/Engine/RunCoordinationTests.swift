import TestSupport
import Testing

@testable import SharedState

/// The failure of a run, naming it.
private struct RunFailure: Error {
  let run: UInt64
}

/// ``RunCoordination`` driven as `Shared.run` drives it, with every policy on one value, beside the value its
/// actions write. Handles are plain numbers: a work or execution is its caller, a waiter is its caller.
private struct CoordinationModel {
  typealias Coordination = RunCoordination<Int, UInt64, UInt64, UInt64, UInt64>

  enum Policy: CaseIterable {
    case parallel, cancelPrevious, dedupe, serial, debounce, debounceCancellingPrevious

    /// Whether its runs show as a refresh (fetching, the status kept) rather than pending.
    var showsFetching: Bool { self == .debounceCancellingPrevious }
  }

  /// How a run's operation ends.
  enum Outcome: CaseIterable {
    case success, failure, cancelled
  }

  /// One call of `run`.
  struct Caller {
    var policy: Policy
    /// The run of the shared state this caller drives, once it started.
    var run: UInt64?
    /// Whether its run ended.
    var ended = false
    /// Whether its task was attached (cancelPrevious work, dedupe execution).
    var attached = false
    /// Whether it asked to wait (dedupe result, serial turn).
    var waited = false
    /// Whether it was cancelled while waiting (dedupe, serial, debounce).
    var left = false
    /// Whether its debounce quiet time passed or was cut short.
    var triggered = false
    /// Whether its debounce quiet time passed with no later trigger, and its run is about to start.
    var willRun = false
    /// How often its task was handed back to cancel (a coalesced trigger, a superseded run).
    var workCancelled = 0
    /// What `onSettled` got, once per caller.
    var settled: [String] = []
  }

  var coordination = Coordination()
  var callers: [UInt64: Caller] = [:]
  var order: [UInt64] = []

  // The value its actions wrote.
  var status = OperationStatus.idle
  var isFetching = false
  var applied: [UInt64] = []
  var errorRun: UInt64?

  /// Runs that may still write: started, not ended, not superseded.
  var writers: [UInt64: UInt64] = [:]  // run -> caller
  /// Runs that ended with a result their policy let them write.
  var results: [UInt64: Outcome] = [:]
  /// Runs that left the state without a result (cancelled, superseded, abandoned).
  var gone: Set<UInt64> = []

  // MARK: Events

  mutating func call(_ policy: Policy) -> String? {
    switch policy {
    case .parallel:
      let caller = coordination.nextCaller()
      let run = begin { $0.parallel.start(from: $1) }
      writers[run] = caller
      callers[caller] = Caller(policy: policy, run: run)
      order.append(caller)
    case .cancelPrevious:
      let caller = coordination.nextCaller()
      let status = self.status
      let start = coordination.startSuperseding(from: status)
      showStart(fetching: false)
      if let work = start.cancelling, callers[work]?.run == nil { return "cancelled a work that never ran" }
      // The superseded run left the state in the same step.
      for (run, owner) in writers where callers[owner]?.policy == .cancelPrevious {
        writers[run] = nil
        gone.insert(run)
      }
      writers[start.run] = caller
      callers[caller] = Caller(policy: policy, run: start.run)
      order.append(caller)
    case .dedupe:
      let caller = coordination.nextCaller()
      var entry = Caller(policy: policy)
      if coordination.dedupe.join(caller) == .start {
        entry.run = begin { coordination, status in coordination.parallel.start(from: status) }
        writers[entry.run!] = caller
      }
      callers[caller] = entry
      order.append(caller)
    case .serial:
      let caller = coordination.nextCaller()
      var entry = Caller(policy: policy)
      if coordination.serial.enqueue(caller) == .start {
        let status = self.status
        let run = coordination.startTurn(caller, from: status)
        showStart(fetching: false)
        entry.run = run
        entry.waited = true  // A run whose turn is at once does not wait.
        writers[run] = caller
      }
      callers[caller] = entry
      order.append(caller)
    case .debounce:
      let caller = coordination.nextCaller()
      coordination.debounce.trigger(caller)
      callers[caller] = Caller(policy: policy)
      order.append(caller)
    case .debounceCancellingPrevious:
      let caller = coordination.nextCaller()
      if case .coalesce(let work?) = coordination.debounceCancellingPrevious.trigger(caller) {
        guard callers[work]?.policy == .debounceCancellingPrevious, callers[work]?.run == nil else {
          return "trigger \(caller) cancelled the task of caller \(work), which did not wait"
        }
        callers[work]!.workCancelled += 1
      }
      callers[caller] = Caller(policy: policy)
      order.append(caller)
    }
    return nil
  }

  /// Starts a run that writes: shows pending.
  private mutating func begin(_ start: (inout Coordination, OperationStatus) -> UInt64) -> UInt64 {
    let status = self.status
    let run = start(&coordination, status)
    showStart(fetching: false)
    return run
  }

  /// Shows a run that starts: pending, or (`fetching`) as a refresh, as `Shared.begin` shows it.
  private mutating func showStart(fetching: Bool) {
    if !fetching || status == .idle { status = .pending }
    isFetching = true
  }

  mutating func attach(_ caller: UInt64) -> String? {
    callers[caller]!.attached = true
    if callers[caller]!.policy == .debounceCancellingPrevious {
      // Attached once `run` made the task: it may have been coalesced, started, superseded or ended by then.
      if coordination.debounceCancellingPrevious.attach(caller, work: caller) == .cancel {
        callers[caller]!.workCancelled += 1
      }
      return nil
    }
    let run = callers[caller]!.run!
    switch callers[caller]!.policy {
    case .cancelPrevious:
      _ = coordination.cancelPrevious.attach(run, work: caller)
    case .dedupe:
      _ = coordination.dedupe.attach(caller, work: caller)
    default:
      return "attached a run that has no work to attach"
    }
    return nil
  }

  /// The operation of `caller`'s run ended with `outcome`.
  mutating func end(_ caller: UInt64, _ outcome: Outcome) -> String? {
    guard let run = callers[caller]!.run, !callers[caller]!.ended else { return "ended a run twice" }
    callers[caller]!.ended = true
    let runOutcome: RunOutcome<Int> =
      switch outcome {
      case .success: .success(Int(run))
      case .failure: .failure(RunFailure(run: run))
      case .cancelled: .cancelled
      }
    let wasWriter = writers.removeValue(forKey: run) != nil
    switch callers[caller]!.policy {
    case .parallel, .debounce:
      // As `settle(_:run:optimistic:coordinator:)`: a run with nothing to write ends under the coordinator's lock alone.
      let ending: ParallelStateMachine<Int>.Ending? =
        switch runOutcome {
        case .success(let value): .success(value)
        case .failure(let error): .failure(error)
        case .cancelled: nil
        }
      if case .writes = coordination.parallel.endUnseen(run, with: ending) {
        write(coordination.end(run, with: runOutcome, as: .withOutcome), of: runOutcome)
      }
      record(run, outcome)
      settle(caller, outcome == .success ? "success \(run)" : outcome == .failure ? "failure \(run)" : "cancelled")
    case .cancelPrevious:
      if coordination.cancelPrevious.isSuperseded(run) {
        if wasWriter { return "superseded run \(run) could still write" }
        settle(caller, "cancelled")
        return nil
      }
      let (settlement, isLatest) = coordination.endSuperseding(run, with: runOutcome)
      write(settlement, of: runOutcome)
      if isLatest { record(run, outcome) } else { gone.insert(run) }
      settle(
        caller,
        !isLatest || outcome == .cancelled ? "cancelled" : outcome == .success ? "success \(run)" : "failure \(run)")
    case .debounceCancellingPrevious:
      if coordination.debounceCancellingPrevious.isSuperseded(run) {
        if wasWriter { return "superseded run \(run) could still write" }
        settle(caller, "cancelled")
        return nil
      }
      let (settlement, isLatest) = coordination.endDebouncedSuperseding(run, with: runOutcome)
      write(settlement, of: runOutcome)
      if isLatest { record(run, outcome) } else { gone.insert(run) }
      settle(
        caller,
        !isLatest || outcome == .cancelled ? "cancelled" : outcome == .success ? "success \(run)" : "failure \(run)")
    case .dedupe:
      let completion = coordination.completeExecution(caller, run: run, with: runOutcome)
      write(completion.settlement, of: runOutcome)
      if completion.isAbandoned { gone.insert(run) } else { record(run, outcome) }
      let delivered = outcome == .success ? "success \(run)" : outcome == .failure ? "failure \(run)" : "cancelled"
      for waiter in completion.resuming { settle(waiter, delivered) }
    case .serial:
      let status = self.status
      let finish = coordination.finishTurn(caller, run: run, with: runOutcome, from: status)
      write(finish.settlement, of: runOutcome)
      record(run, outcome)
      if let next = finish.next {
        showStart(fetching: false)
        let nextCaller = callers.first { $0.value.policy == .serial && $0.value.run == nil && isTurn($0.key) }?.key
        guard let nextCaller else { return "a serial run started with no caller queued" }
        callers[nextCaller]!.run = next.run
        writers[next.run] = nextCaller
        if let waiter = next.resuming, waiter != nextCaller { return "resumed caller \(waiter) for \(nextCaller)" }
      }
      settle(caller, outcome == .success ? "success \(run)" : outcome == .failure ? "failure \(run)" : "cancelled")
    }
    return nil
  }

  /// Whether serial `caller` is the one whose turn the machine just gave.
  private func isTurn(_ caller: UInt64) -> Bool {
    if case .running(.starting(caller, _), _) = coordination.serial.state { return true }
    if case .running(.started(caller, _), _) = coordination.serial.state { return true }
    return false
  }

  private mutating func record(_ run: UInt64, _ outcome: Outcome) {
    if outcome == .cancelled { gone.insert(run) } else { results[run] = outcome }
  }

  /// A dedupe caller or a queued serial caller asks to wait.
  mutating func wait(_ caller: UInt64) -> String? {
    callers[caller]!.waited = true
    switch callers[caller]!.policy {
    case .dedupe:
      switch coordination.dedupe.wait(caller, waiter: caller) {
      case .resume(let outcome): settle(caller, describe(outcome))
      case .suspend: break
      case .cancelled: settle(caller, "cancelled")
      }
    case .serial:
      switch coordination.serial.wait(caller, waiter: caller) {
      case .proceed(let run): if callers[caller]!.run != run { return "caller \(caller) proceeded as run \(run)" }
      case .suspend: break
      case .cancelled: settle(caller, "cancelled")
      }
    default:
      return "a \(callers[caller]!.policy) caller waited"
    }
    return nil
  }

  /// A dedupe or queued serial caller is cancelled.
  mutating func leave(_ caller: UInt64) -> String? {
    callers[caller]!.left = true
    switch callers[caller]!.policy {
    case .dedupe:
      if case .leave(let waiter, _) = coordination.dedupe.leave(caller), let waiter { settle(waiter, "cancelled") }
    case .serial:
      if case .resumeCancelled(let waiter) = coordination.serial.leave(caller) { settle(waiter, "cancelled") }
    default:
      return "a \(callers[caller]!.policy) caller left"
    }
    return nil
  }

  /// A debounce trigger's quiet time passed (`quiet`) or its sleep was cancelled. A trigger that is still the
  /// latest goes on to start its run, in a step of its own.
  mutating func trigger(_ caller: UInt64, quiet: Bool) -> String? {
    callers[caller]!.triggered = true
    let cancels = callers[caller]!.policy == .debounceCancellingPrevious
    guard quiet else {
      if cancels {
        coordination.debounceCancellingPrevious.cancel(caller)
      } else {
        coordination.debounce.cancel(caller)
      }
      settle(caller, "cancelled")
      return nil
    }
    let isWaiting =
      cancels
      ? coordination.debounceCancellingPrevious.isWaiting(caller) : coordination.debounce.isWaiting(caller)
    guard isWaiting else {
      settle(caller, "cancelled")
      return nil
    }
    callers[caller]!.willRun = true
    return nil
  }

  /// A debounce trigger that was still the latest starts its run, unless a later trigger came in between.
  mutating func beginDebounced(_ caller: UInt64) -> String? {
    callers[caller]!.willRun = false
    let policy = callers[caller]!.policy
    let status = self.status
    let run: UInt64
    if policy == .debounceCancellingPrevious {
      guard let start = coordination.startDebouncedSuperseding(caller, from: status) else {
        settle(caller, "cancelled")
        return nil
      }
      run = start.run
      showStart(fetching: true)
      // The run it supersedes left the state in the same step, and its task is cancelled.
      let superseded = writers.filter { callers[$0.value]!.policy == .debounceCancellingPrevious }
      for (supersededRun, owner) in superseded {
        writers[supersededRun] = nil
        gone.insert(supersededRun)
        if callers[owner]!.attached && start.cancelling != owner {
          return "run \(run) superseded run \(supersededRun) without cancelling its task"
        }
      }
      if let work = start.cancelling {
        guard superseded.contains(where: { $0.value == work }) else {
          return "run \(run) cancelled the task of caller \(work), which it did not supersede"
        }
        callers[work]!.workCancelled += 1
      }
    } else {
      guard let started = coordination.startDebounced(caller, from: status) else {
        settle(caller, "cancelled")
        return nil
      }
      run = started
      showStart(fetching: false)
    }
    callers[caller]!.run = run
    writers[run] = caller
    // A later trigger can never have started first.
    if let newer = order.first(where: { $0 > caller && callers[$0]!.policy == policy && callers[$0]!.run != nil }) {
      return "trigger \(newer) started before the earlier trigger \(caller)"
    }
    return nil
  }

  private func describe(_ outcome: RunOutcome<Int>) -> String {
    switch outcome {
    case .success(let value): return "success \(value)"
    case .failure(let error): return "failure \((error as! RunFailure).run)"
    case .cancelled: return "cancelled"
    }
  }

  private mutating func settle(_ caller: UInt64, _ result: String) {
    callers[caller]!.settled.append(result)
  }

  /// Writes a settlement as `Shared.write(_:of:in:)` does.
  private mutating func write(_ settlement: Coordination.Settlement, of outcome: RunOutcome<Int>) {
    func show(_ ending: ParallelStateMachine<Int>.Ending) {
      switch ending {
      case .success(let value):
        status = .success
        applied.append(UInt64(value))
        errorRun = nil
      case .failure(let error):
        status = .error
        errorRun = (error as! RunFailure).run
      }
      isFetching = false
    }
    func applyEarlier(_ earlier: [ParallelStateMachine<Int>.Ending]) {
      for case .success(let value) in earlier { applied.append(UInt64(value)) }
    }
    switch settlement {
    case .showResult(let earlier):
      applyEarlier(earlier)
      switch outcome {
      case .success(let value): show(.success(value))
      case .failure(let error): show(.failure(error))
      case .cancelled: applied.append(.max)  // Flagged by the check: a cancelled run has no result to show.
      }
    case .showHeld(let held, let earlier):
      applyEarlier(earlier)
      show(held)
    case .restore(let restored):
      status = restored
      isFetching = restored == .pending
    case .nothing:
      break
    }
  }

  // MARK: What may happen next

  var events: [(name: String, apply: (inout CoordinationModel) -> String?)] {
    var events: [(name: String, apply: (inout CoordinationModel) -> String?)] = []
    if order.count < 4 {
      for policy in Policy.allCases { events.append(("call \(policy)", { $0.call(policy) })) }
    }
    for caller in order {
      let entry = callers[caller]!
      if entry.run != nil && !entry.attached && (entry.policy == .cancelPrevious || isStarter(caller)) {
        events.append(("attach \(caller)", { $0.attach(caller) }))
      }
      // A queued serial run runs once it found its turn (it waited); a dedupe joiner has no run of its own.
      if let run = entry.run, !entry.ended, entry.policy != .dedupe || isStarter(caller),
        entry.policy != .serial || entry.waited
      {
        for outcome in Outcome.allCases {
          events.append(("end \(caller) (run \(run)) \(outcome)", { $0.end(caller, outcome) }))
        }
      }
      if entry.policy == .debounceCancellingPrevious && !entry.attached {
        events.append(("attach \(caller)", { $0.attach(caller) }))
      }
      if (entry.policy == .dedupe || entry.policy == .serial) && entry.settled.isEmpty {
        if !entry.waited { events.append(("wait \(caller)", { $0.wait(caller) })) }
        if !entry.left && entry.run == nil || (entry.policy == .dedupe && !entry.left) {
          events.append(("leave \(caller)", { $0.leave(caller) }))
        }
      }
      if entry.willRun { events.append(("begin \(caller)", { $0.beginDebounced(caller) })) }
      if (entry.policy == .debounce || entry.policy == .debounceCancellingPrevious) && !entry.triggered {
        events.append(("quiet \(caller)", { $0.trigger(caller, quiet: true) }))
        events.append(("sleep cancelled \(caller)", { $0.trigger(caller, quiet: false) }))
      }
    }
    return events
  }

  private func isStarter(_ caller: UInt64) -> Bool {
    callers[caller]!.policy == .dedupe && callers[caller]!.run != nil
  }

  // MARK: Rules

  /// The rules after every event.
  func brokenRule() -> String? {
    for caller in order where callers[caller]!.settled.count > 1 {
      return "caller \(caller) settled \(callers[caller]!.settled)"
    }
    if applied.contains(.max) { return "a cancelled run's result was shown" }
    if zip(applied, applied.dropFirst()).contains(where: { $0 >= $1 }) {
      return "successes applied out of start order: \(applied)"
    }
    for caller in order where callers[caller]!.workCancelled > 1 {
      return "the task of caller \(caller) was cancelled twice"
    }
    if writers.isEmpty && status == .pending { return "no run is live, yet the state is pending" }
    if writers.isEmpty && isFetching { return "no run is live, yet the state is fetching" }
    let cancellingWriters = writers.values.filter { callers[$0]!.policy == .debounceCancellingPrevious }
    if cancellingWriters.count > 1 { return "debounced runs \(cancellingWriters) are in flight at once" }
    // The state follows the newest run that may still write or ended with a result it was let write.
    let newest = (Array(writers.keys) + Array(results.keys)).max()
    if let newest, let owner = writers[newest] {
      // A run shown as a refresh keeps the status it found (pending only from idle); any other shows pending.
      if !isFetching || status == .idle || (!callers[owner]!.policy.showsFetching && status != .pending) {
        return "run \(newest) is the newest and runs, yet the state is \(status), fetching: \(isFetching)"
      }
    }
    if let newest, let result = results[newest], writers.keys.allSatisfy({ $0 < newest }) {
      switch result {
      case .success:
        if status != .success || applied.last != newest {
          return "run \(newest) succeeded last, yet the state is \(status) with run \(String(describing: applied.last))"
        }
      case .failure:
        if status != .error || errorRun != newest {
          return
            "run \(newest) failed last, yet the state is \(status) with the error of \(String(describing: errorRun))"
        }
      case .cancelled:
        break
      }
    }
    return nil
  }

  /// The rules once nothing more can happen.
  func brokenRuleWhenQuiet() -> String? {
    for caller in order where callers[caller]!.settled.count != 1 {
      return "caller \(caller) (\(callers[caller]!.policy)) settled \(callers[caller]!.settled.count) times"
    }
    if !coordination.parallel.isQuiet { return "every run ended, yet the parallel machine is not quiet" }
    if case .running = coordination.serial.state { return "every run ended, yet a serial run is current" }
    if case .executing = coordination.dedupe.state { return "every run ended, yet a dedupe execution is current" }
    if !coordination.dedupe.ready.isEmpty { return "a dedupe result was never taken" }
    if coordination.debounce.state != .idle { return "every trigger ended, yet one waits" }
    if !coordination.debounceCancellingPrevious.isIdle {
      return "every trigger and run ended, yet \(coordination.debounceCancellingPrevious.state)"
    }
    return nil
  }
}

/// ``RunCoordination`` with policies mixed on one value, in seeded-random orders of every event `run` feeds it.
// Searches of one value type on one thread: off the cooperative pool so that they hold none of its threads, and
// skipped under ThreadSanitizer, which has nothing to find in them (plain `swift test` runs them in full).
@Suite(.offTheCooperativePool, .disabled(if: isThreadSanitizerBuild, "single-threaded search"))
struct RunCoordinationTests {
  @Test func mixedPoliciesSettleEveryRunOnceAndTheStateFollowsTheNewestRun() {
    var walks = 0
    var steps = 0
    for seed: UInt64 in 0..<20_000 {
      var generator = SplitMix(seed: seed)
      var model = CoordinationModel()
      var trace: [String] = []
      while true {
        let events = model.events
        guard let event = events.randomElement(using: &generator) else { break }
        trace.append(event.name)
        steps += 1
        if let problem = event.apply(&model) ?? model.brokenRule() {
          Issue.record("seed \(seed), after [\(trace.joined(separator: ", "))]: \(problem)")
          return
        }
      }
      if let problem = model.brokenRuleWhenQuiet() {
        Issue.record("seed \(seed), after [\(trace.joined(separator: ", "))]: \(problem)")
        return
      }
      walks += 1
    }
    #expect(walks == 20_000)
    #expect(steps > 100_000)
  }
}
