import TestSupport
import Testing

@testable import SharedState

// MARK: - Parallel: which run the state shows

/// The failure of run `run`, so a shown error says which run it came from.
private struct RunFailure: Error {
  let run: UInt64
}

/// The shared state as the actions of ``ParallelStateMachine`` write it, beside a reference model of the rule it must
/// follow, written independently of the machine.
private struct ParallelModel {
  var machine = ParallelStateMachine<Int>()

  // The state the actions wrote.
  var status = OperationStatus.idle
  /// Every success applied, in order (as an accumulating `applySuccess` sees them).
  var applied: [UInt64] = []
  var valueRun: UInt64? { applied.last }
  var errorRun: UInt64?

  // The reference: runs started (in order), how each ended, resets.
  enum Ending: Equatable {
    case success
    case failure
    case cancelled
  }
  var started: [UInt64] = []
  var endings: [UInt64: Ending] = [:]
  /// Runs that ended with a result since the last reset.
  var resultsSinceReset: Set<UInt64> = []
  /// Successes that ended before any newer run was shown, since the last reset: each must be applied, in start
  /// order, by the time a run not older than it is shown.
  var owedSuccesses: Set<UInt64> = []
  /// Whether a reset came after the last start (which wrote pending).
  var resetSinceLastStart = false
  /// The newest run whose result the reference has shown.
  var newestShown: UInt64 = 0
  /// The status to show when no run decides: what the last shown run or reset left.
  var settled = OperationStatus.idle
  var callbacks: [UInt64: Int] = [:]

  var live: [UInt64] { started.filter { endings[$0] == nil } }

  /// The run the state must follow: the most recently started run that was not cancelled, is not older than a run
  /// already shown, and (if it ended) ended since the last reset.
  var followed: UInt64? {
    started.filter { run in
      run > newestShown && (endings[run] == nil || resultsSinceReset.contains(run))
    }.max()
  }

  mutating func start() -> String? {
    let run = machine.start(from: status)
    guard run == (started.last ?? 0) + 1 else { return "run numbers are not in start order: \(run)" }
    started.append(run)
    status = .pending
    resetSinceLastStart = false
    return nil
  }

  mutating func end(_ run: UInt64, _ ending: Ending) -> String? {
    guard endings[run] == nil else { return "run \(run) ended twice" }
    endings[run] = ending
    callbacks[run, default: 0] += 1
    let result: ParallelStateMachine<Int>.Ending? =
      switch ending {
      case .success: .success(Int(run))
      case .failure: .failure(RunFailure(run: run))
      case .cancelled: nil
      }
    if ending == .success && run > newestShown { owedSuccesses.insert(run) }
    // Ending without the value's lock must be offered exactly when the end writes nothing.
    var unseen = machine
    let endsUnseen: Bool
    switch unseen.endUnseen(run, with: result) {
    case .writes: endsUnseen = false
    case .ended: endsUnseen = true
    }
    let wrote: Bool
    if let result {
      resultsSinceReset.insert(run)
      switch machine.finish(run, with: result) {
      case .show(let earlier):
        if let problem = write(earlier, then: result) { return problem }
        wrote = true
      case .hide:
        wrote = false
      }
    } else {
      switch machine.cancel(run) {
      case .keep:
        wrote = false
      case .show(let held, let earlier):
        if let problem = write(earlier, then: held) { return problem }
        wrote = true
      case .restore(let restored):
        status = restored
        wrote = true
      }
    }
    if wrote == endsUnseen {
      return
        "run \(run) \(wrote ? "writes" : "writes nothing"), yet endUnseen answered \(endsUnseen ? "ended" : "writes")"
    }
    return referenceStep()
  }

  mutating func reset() -> String? {
    _ = machine.reset()
    status = .idle
    errorRun = nil
    resultsSinceReset = []
    owedSuccesses = []
    resetSinceLastStart = true
    settled = .idle
    return nil
  }

  /// Applies the held-back successes, then shows `result`; checks that successes are applied in start order.
  private mutating func write(
    _ earlier: [ParallelStateMachine<Int>.Ending], then result: ParallelStateMachine<Int>.Ending
  ) -> String? {
    for case .success(let success) in earlier { applied.append(UInt64(success)) }
    switch result {
    case .success(let success):
      status = .success
      applied.append(UInt64(success))
      errorRun = nil
    case .failure(let error):
      status = .error
      errorRun = (error as? RunFailure)?.run
    }
    guard zip(applied, applied.dropFirst()).allSatisfy({ $0 < $1 }) else {
      return "successes applied out of start order: \(applied)"
    }
    return nil
  }

  /// Advances the reference's own record of what it has shown, and checks that no owed success was lost.
  mutating func referenceStep() -> String? {
    if let followed, let ending = endings[followed], ending != .cancelled {
      newestShown = followed
      settled = ending == .success ? .success : .error
      let due = owedSuccesses.filter { $0 <= followed }
      if let missing = due.first(where: { !applied.contains($0) }) {
        return "the success of run \(missing), held back, was never applied (applied \(applied))"
      }
      owedSuccesses.subtract(due)
    }
    return nil
  }

  /// What the reference says the state shows now, against what the actions wrote.
  func mismatch() -> String? {
    for run in live {
      let expected: ParallelStateMachine<Int>.ProgressAction = run == followed ? .show : .ignore
      if machine.progress(run) != expected { return "progress of run \(run) answered \(machine.progress(run))" }
    }
    // A run that ended shows no more progress (a yield from a context that outlived its run).
    for run in endings.keys where machine.progress(run) != .ignore { return "run \(run) ended, yet shows progress" }
    if live.isEmpty {
      if status == .pending { return "no run is left, yet the state is pending" }
      if !machine.isQuiet { return "no run is left, yet the machine is not quiet" }
    }
    guard let followed else {
      return status == settled ? nil : "no run decides: status \(status), expected \(settled)"
    }
    switch endings[followed] {
    case nil:
      let expected: OperationStatus = resetSinceLastStart ? .idle : .pending
      return status == expected ? nil : "run \(followed) runs: status \(status), expected \(expected)"
    case .success:
      return status == .success && valueRun == followed && errorRun == nil
        ? nil : "run \(followed) succeeded: status \(status), value of run \(String(describing: valueRun))"
    case .failure:
      return status == .error && errorRun == followed
        ? nil : "run \(followed) failed: status \(status), error of run \(String(describing: errorRun))"
    case .cancelled:
      return "the followed run was cancelled"
    }
  }
}

/// Runs the machines of every operation policy through every ordering of their events up to a small depth.
// Searches of one value type on one thread: off the cooperative pool so that they hold none of its threads, and
// skipped under ThreadSanitizer, which has nothing to find in them (plain `swift test` runs them in full).
@Suite(.offTheCooperativePool, .disabled(if: isThreadSanitizerBuild, "single-threaded search"))
struct OperationStateMachineInterleavingTests {
  @Test func parallelStateFollowsTheMostRecentlyStartedRunInEveryOrdering() {
    let explored = exploreEveryOrdering(
      from: ParallelModel(), depth: 8,
      events: { model in
        var events: [(name: String, apply: (inout ParallelModel) -> String?)] = []
        if model.started.count < 3 { events.append(("start", { $0.start() })) }
        for run in model.live {
          events.append(("success \(run)", { $0.end(run, .success) }))
          events.append(("failure \(run)", { $0.end(run, .failure) }))
          events.append(("cancel \(run)", { $0.end(run, .cancelled) }))
        }
        if !model.started.isEmpty { events.append(("reset", { $0.reset() })) }
        return events
      },
      check: { $0.mismatch() })
    #expect(explored > 20_000)
  }

  @Test func cancelPreviousLetsOnlyTheLatestRunWriteInEveryOrdering() {
    struct Model {
      var machine = CancelPreviousStateMachine<UInt64>()
      var started: [UInt64] = []
      var attached: Set<UInt64> = []
      var finished: [UInt64: CancelPreviousStateMachine<UInt64>.FinishAction] = [:]
      /// How often each run's work was handed back to cancel.
      var cancelled: [UInt64: Int] = [:]
      /// Runs a newer run superseded while they still ran.
      var superseded: Set<UInt64> = []
      /// Runs whose task finished before it was attached: cancelling it then is harmless.
      var attachedAfterFinish: Set<UInt64> = []
    }
    let explored = exploreEveryOrdering(
      from: Model(), depth: 9,
      events: { model in
        var events: [(name: String, apply: (inout Model) -> String?)] = []
        if model.started.count < 3 {
          events.append(
            (
              "start",
              { model in
                let run = UInt64(model.started.count + 1)
                if let previous = model.started.last, model.finished[previous] == nil {
                  model.superseded.insert(previous)
                }
                model.started.append(run)
                switch model.machine.start(run) {
                case .supersede(let superseded, let work):
                  if superseded != run - 1 || model.finished[superseded] != nil {
                    return "run \(run) superseded run \(superseded)"
                  }
                  if let work { model.cancelled[work, default: 0] += 1 }
                case .none:
                  if let previous = model.started.dropLast().last, model.finished[previous] == nil {
                    return "run \(run) did not supersede run \(previous)"
                  }
                }
                return nil
              }
            ))
        }
        for run in model.started where !model.attached.contains(run) {
          events.append(
            (
              "attach \(run)",
              { model in
                model.attached.insert(run)
                if model.finished[run] != nil { model.attachedAfterFinish.insert(run) }
                if model.machine.attach(run, work: run) == .cancel { model.cancelled[run, default: 0] += 1 }
                return nil
              }
            ))
        }
        // A run's task may finish before it is attached.
        for run in model.started where model.finished[run] == nil {
          events.append(
            (
              "finish \(run)",
              { model in
                let result = model.machine.finish(run)
                model.finished[run] = result
                // Only the latest run at the time it ends writes; a superseded one settles as cancelled.
                let expected: CancelPreviousStateMachine<UInt64>.FinishAction =
                  run == model.started.last ? .latest : .superseded
                return result == expected ? nil : "run \(run) finished as \(result), expected \(expected)"

              }
            ))
        }
        return events
      },
      check: { model in
        if let twice = model.cancelled.first(where: { $0.value > 1 }) { return "run \(twice.key) cancelled twice" }
        // Every run superseded while it ran is cancelled once its work exists; no other run is ever cancelled.
        for run in model.started where !model.attachedAfterFinish.contains(run) {
          let expected = model.superseded.contains(run) && model.attached.contains(run) ? 1 : 0
          if model.cancelled[run, default: 0] != expected {
            return "run \(run) was cancelled \(model.cancelled[run, default: 0]) times, expected \(expected)"
          }
        }
        return nil
      })
    #expect(explored > 300)
  }

  @Test func dedupeGivesEveryCallerExactlyOneResultInEveryOrdering() {
    struct Model {
      var machine = DedupeStateMachine<String, UInt64, UInt64>()
      var callers: [UInt64] = []
      var starters: [UInt64] = []
      /// The execution each caller belongs to (its starter).
      var executionOf: [UInt64: UInt64] = [:]
      var attached: Set<UInt64> = []
      var completed: Set<UInt64> = []
      var waited: Set<UInt64> = []
      var left: Set<UInt64> = []
      /// What each caller received.
      var received: [UInt64: [String]] = [:]
      var workCancelled: [UInt64: Int] = [:]
      var current: UInt64?

      mutating func resume(_ caller: UInt64, _ outcome: String) {
        received[caller, default: []].append(outcome)
      }
    }
    let explored = exploreEveryOrdering(
      from: Model(), depth: 9,
      events: { model in
        var events: [(name: String, apply: (inout Model) -> String?)] = []
        if model.callers.count < 3 {
          events.append(
            (
              "join",
              { model in
                let caller = UInt64(model.callers.count + 1)
                model.callers.append(caller)
                switch model.machine.join(caller) {
                case .start:
                  model.starters.append(caller)
                  model.current = caller
                  model.executionOf[caller] = caller
                case .join:
                  guard let current = model.current else { return "joined with no execution under way" }
                  model.executionOf[caller] = current
                }
                return nil
              }
            ))
        }
        for starter in model.starters where !model.attached.contains(starter) {
          events.append(
            (
              "attach \(starter)",
              { model in
                model.attached.insert(starter)
                if model.machine.attach(starter, work: starter) == .cancel {
                  model.workCancelled[starter, default: 0] += 1
                }
                return nil
              }
            ))
        }
        // An execution's task may complete before it is attached.
        for starter in model.starters where !model.completed.contains(starter) {
          events.append(
            (
              "complete \(starter)",
              { model in
                model.completed.insert(starter)
                switch model.machine.complete(starter, with: "result \(starter)") {
                case .resume(let waiters):
                  for waiter in waiters { model.resume(waiter, "result \(starter)") }
                  if model.current == starter { model.current = nil } else { return "completed a stale execution" }
                case .abandoned:
                  if model.current == starter { return "the current execution counted as abandoned" }
                }
                return nil
              }
            ))
        }
        for caller in model.callers where !model.waited.contains(caller) {
          events.append(
            (
              "wait \(caller)",
              { model in
                model.waited.insert(caller)
                switch model.machine.wait(caller, waiter: caller) {
                case .resume(let outcome): model.resume(caller, outcome)
                case .suspend: break
                case .cancelled: model.resume(caller, "cancelled")
                }
                return nil
              }
            ))
        }
        for caller in model.callers where !model.left.contains(caller) {
          events.append(
            (
              "leave \(caller)",
              { model in
                model.left.insert(caller)
                if case .leave(let waiter, let work) = model.machine.leave(caller) {
                  if let waiter { model.resume(waiter, "cancelled") }
                  if let work {
                    model.workCancelled[work, default: 0] += 1
                    if model.current == work { model.current = nil }
                  }
                  if work == nil, case .idle = model.machine.state, model.current != nil {
                    model.current = nil  // Abandoned before its work was attached.
                  }
                }
                return nil
              }
            ))
        }
        return events
      },
      check: { model in
        for (caller, outcomes) in model.received where outcomes.count > 1 {
          return "caller \(caller) received \(outcomes)"
        }
        for (caller, outcomes) in model.received {
          guard let outcome = outcomes.first, outcome != "cancelled" else { continue }
          if outcome != "result \(model.executionOf[caller]!)" { return "caller \(caller) got \(outcome)" }
        }
        if let twice = model.workCancelled.first(where: { $0.value > 1 }) { return "work \(twice.key) cancelled twice" }
        // Nobody waits forever: a caller that waited is resumed once its execution completed or it left.
        for caller in model.waited where model.received[caller] == nil {
          let execution = model.executionOf[caller]!
          if model.completed.contains(execution) || model.left.contains(caller) {
            return "caller \(caller) waits forever"
          }
        }
        return nil
      })
    #expect(explored > 10_000)
  }

  @Test func serialRunsOneAtATimeInCallOrderInEveryOrdering() {
    struct Model {
      var machine = SerialStateMachine<UInt64>()
      var tickets: [UInt64] = []
      var nextRun: UInt64 = 100
      /// The run number each ticket got when its turn came.
      var turns: [UInt64: UInt64] = [:]
      /// Tickets in the order they proceeded.
      var proceeded: [UInt64] = []
      var waited: Set<UInt64> = []
      var left: Set<UInt64> = []
      var finished: Set<UInt64> = []
      var resumedCancelled: [UInt64: Int] = [:]
      var resumed: [UInt64: Int] = [:]
      /// The ticket whose turn came when the run ahead finished, not started yet: waits and leaves may come between.
      var pendingStart: UInt64?

      mutating func startTurn(_ ticket: UInt64) {
        nextRun += 1
        turns[ticket] = nextRun
        if case .resume(let waiter) = machine.start(ticket, as: nextRun) {
          resumed[waiter, default: 0] += 1
          proceeded.append(waiter)
        }
      }
    }
    let explored = exploreEveryOrdering(
      from: Model(), depth: 10,
      events: { model in
        var events: [(name: String, apply: (inout Model) -> String?)] = []
        if model.tickets.count < 3 {
          events.append(
            (
              "enqueue",
              { model in
                let ticket = UInt64(model.tickets.count + 1)
                model.tickets.append(ticket)
                if model.machine.enqueue(ticket) == .start {
                  model.startTurn(ticket)
                  model.proceeded.append(ticket)
                  model.waited.insert(ticket)  // A run whose turn is at once does not wait.
                }
                return nil
              }
            ))
        }
        for ticket in model.tickets where !model.waited.contains(ticket) {
          events.append(
            (
              "wait \(ticket)",
              { model in
                model.waited.insert(ticket)
                switch model.machine.wait(ticket, waiter: ticket) {
                case .proceed(let run):
                  if model.turns[ticket] != run { return "ticket \(ticket) proceeded as the wrong run" }
                  model.proceeded.append(ticket)
                case .suspend: break
                case .cancelled: model.resumedCancelled[ticket, default: 0] += 1
                }
                return nil
              }
            ))
        }
        for ticket in model.tickets where !model.left.contains(ticket) && !model.finished.contains(ticket) {
          events.append(
            (
              "leave \(ticket)",
              { model in
                model.left.insert(ticket)
                if case .resumeCancelled(let waiter) = model.machine.leave(ticket) {
                  model.resumedCancelled[waiter, default: 0] += 1
                }
                return nil
              }
            ))
        }
        for ticket in model.proceeded where !model.finished.contains(ticket) {
          events.append(
            (
              "finish \(ticket)",
              { model in
                model.finished.insert(ticket)
                if case .start(let next) = model.machine.finish(ticket) { model.pendingStart = next }
                return nil
              }
            ))
        }
        if let next = model.pendingStart {
          events.append(
            (
              "start \(next)",
              { model in
                model.pendingStart = nil
                model.startTurn(next)
                return nil
              }
            ))
        }
        return events
      },
      check: { model in
        if model.proceeded != model.proceeded.sorted() { return "runs proceeded out of call order: \(model.proceeded)" }
        let running = model.proceeded.filter { !model.finished.contains($0) }
        if running.count > 1 { return "runs \(running) run at once" }
        for ticket in model.tickets {
          let outcomes = model.proceeded.filter { $0 == ticket }.count + model.resumedCancelled[ticket, default: 0]
          if outcomes > 1 { return "ticket \(ticket) resumed \(outcomes) times" }
        }
        // No run waits forever: once everything ahead of a waiting ticket finished or left, it was resumed.
        for ticket in model.waited where !model.proceeded.contains(ticket) && model.resumedCancelled[ticket] == nil {
          let ahead = model.tickets.filter { $0 < ticket }
          let clear = ahead.allSatisfy {
            model.finished.contains($0)
              || (model.left.contains($0) && model.turns[$0] == nil && model.pendingStart != $0)
          }
          if model.pendingStart == ticket { continue }
          if clear || model.left.contains(ticket) { return "ticket \(ticket) waits forever" }
        }
        return nil
      })
    #expect(explored > 5_000)
  }

  @Test func debounceRunsOnlyTheLastTriggerOfABurstInEveryOrdering() {
    struct Model {
      var machine = DebounceStateMachine()
      var triggers: [UInt64] = []
      var settled: [UInt64: DebounceStateMachine.QuietAction] = [:]
      var cancelled: Set<UInt64> = []
    }
    let explored = exploreEveryOrdering(
      from: Model(), depth: 8,
      events: { model in
        var events: [(name: String, apply: (inout Model) -> String?)] = []
        if model.triggers.count < 4 {
          events.append(
            (
              "trigger",
              { model in
                let trigger = UInt64(model.triggers.count + 1)
                model.triggers.append(trigger)
                model.machine.trigger(trigger)
                return nil
              }
            ))
        }
        for trigger in model.triggers where model.settled[trigger] == nil && !model.cancelled.contains(trigger) {
          events.append(
            (
              "quiet \(trigger)",
              { model in
                let action = model.machine.quiet(trigger)
                model.settled[trigger] = action
                // Only the latest trigger runs, when its quiet time ends; every earlier one is coalesced.
                let expected: DebounceStateMachine.QuietAction = trigger == model.triggers.last ? .run : .coalesce
                return action == expected ? nil : "trigger \(trigger) got \(action), expected \(expected)"
              }
            ))
          events.append(
            (
              "cancel \(trigger)",
              { model in
                model.cancelled.insert(trigger)
                model.machine.cancel(trigger)
                return nil
              }
            ))
        }
        return events
      },
      check: { model in
        let ran = model.settled.filter { $0.value == .run }.keys
        if ran.count > model.triggers.count { return "more runs than triggers" }
        // Once every trigger has waited or been cancelled, the machine holds nothing.
        let open = model.triggers.filter { model.settled[$0] == nil && !model.cancelled.contains($0) }
        if open.isEmpty, model.machine.state != .idle {
          return "nothing waits, yet the machine is \(model.machine.state)"
        }
        return nil
      })
    #expect(explored > 1_000)
  }

  @Test func debounceCancellingPreviousRunsTheLastTriggerAndCancelsWhatItSupersedesInEveryOrdering() {
    typealias Machine = DebounceCancellingPreviousStateMachine<UInt64>
    struct Model {
      var machine = Machine()
      var triggers: [UInt64] = []
      /// The run each trigger started as (a run is numbered after its trigger: run `100 + trigger`).
      var runs: [UInt64: UInt64] = [:]
      /// Triggers whose sleep ended (quiet, or cancelled).
      var slept: Set<UInt64> = []
      var attached: Set<UInt64> = []
      var finished: Set<UInt64> = []
      /// How often each trigger's task (its work, named by the trigger) was handed back to cancel.
      var cancelled: [UInt64: Int] = [:]
      /// Triggers a later trigger followed while they waited, and triggers whose run a later run superseded.
      var coalesced: Set<UInt64> = []
      var superseded: Set<UInt64> = []
      /// Triggers whose task was attached after it stopped waiting and running as the latest: cancelling it is
      /// harmless then.
      var attachedLate: Set<UInt64> = []

      /// The trigger whose run started last.
      var latestRun: UInt64? { runs.max { $0.value < $1.value }?.key }

      /// Whether trigger `trigger` still waits as the latest trigger, or runs as the latest run.
      func isLive(_ trigger: UInt64) -> Bool {
        if runs[trigger] == nil { return trigger == triggers.last && !slept.contains(trigger) }
        return trigger == latestRun && !finished.contains(trigger)
      }

      mutating func cancel(_ work: UInt64?) {
        if let work { cancelled[work, default: 0] += 1 }
      }
    }
    let explored = exploreEveryOrdering(
      from: Model(), depth: 10,
      events: { model in
        var events: [(name: String, apply: (inout Model) -> String?)] = []
        if model.triggers.count < 3 {
          events.append(
            (
              "trigger",
              { model in
                let trigger = UInt64(model.triggers.count + 1)
                // The trigger before it is coalesced if it still waits: its sleep has not ended.
                let previous = model.triggers.last
                let previousWaits = previous.map { model.runs[$0] == nil && !model.slept.contains($0) } ?? false
                model.triggers.append(trigger)
                switch model.machine.trigger(trigger) {
                case .coalesce(let work):
                  guard previousWaits, let previous else { return "trigger \(trigger) coalesced no waiting trigger" }
                  model.coalesced.insert(previous)
                  if work != (model.attached.contains(previous) ? previous : nil) {
                    return "trigger \(trigger) handed back \(String(describing: work)) for trigger \(previous)"
                  }
                  model.cancel(work)
                case .none:
                  if previousWaits { return "trigger \(trigger) did not coalesce trigger \(previous!)" }
                }
                return nil
              }
            ))
        }
        for trigger in model.triggers where !model.attached.contains(trigger) {
          events.append(
            (
              "attach \(trigger)",
              { model in
                model.attached.insert(trigger)
                if !model.isLive(trigger) { model.attachedLate.insert(trigger) }
                if model.machine.attach(trigger, work: trigger) == .cancel { model.cancel(trigger) }
                return nil
              }
            ))
        }
        for trigger in model.triggers where !model.slept.contains(trigger) {
          // The quiet time passed: a trigger still waiting starts its run in the same step.
          events.append(
            (
              "quiet \(trigger)",
              { model in
                model.slept.insert(trigger)
                let isLatest = trigger == model.triggers.last
                guard model.machine.isWaiting(trigger) else {
                  return isLatest ? "trigger \(trigger), the latest, no longer waits" : nil
                }
                guard isLatest else { return "trigger \(trigger) waits after a later trigger" }
                let previous = model.latestRun
                let run = 100 + trigger
                guard case .run(let superseding) = model.machine.quiet(trigger, as: run) else {
                  return "trigger \(trigger) was waiting, yet coalesced"
                }
                model.runs[trigger] = run
                if let previous, !model.finished.contains(previous) {
                  model.superseded.insert(previous)
                  guard superseding?.run == model.runs[previous] else {
                    return "run \(run) superseded \(String(describing: superseding?.run)), not the run in flight"
                  }
                  model.cancel(superseding?.work)
                } else if superseding != nil {
                  return "run \(run) superseded a run that had ended"
                }
                return nil
              }
            ))
          events.append(
            (
              "sleep cancelled \(trigger)",
              { model in
                model.slept.insert(trigger)
                model.machine.cancel(trigger)
                return nil
              }
            ))
        }
        for (trigger, run) in model.runs where !model.finished.contains(trigger) {
          events.append(
            (
              "finish \(run)",
              { model in
                let isLatest = trigger == model.latestRun
                model.finished.insert(trigger)
                let action = model.machine.finish(run)
                if model.machine.isSuperseded(run) != true { return "run \(run) ended, yet is not superseded" }
                // Only the latest run at the time it ends writes; a superseded one settles as cancelled.
                let expected: Machine.FinishAction = isLatest ? .latest : .superseded
                return action == expected ? nil : "run \(run) finished as \(action), expected \(expected)"
              }
            ))
        }
        return events
      },
      check: { model in
        if let twice = model.cancelled.first(where: { $0.value > 1 }) { return "task \(twice.key) cancelled twice" }
        // A coalesced trigger and a superseded run are cancelled once their task exists (a task attached after it
        // stopped being the latest, too, harmlessly); no other task is.
        for trigger in model.triggers {
          let stopped =
            model.coalesced.contains(trigger) || model.superseded.contains(trigger)
            || model.attachedLate.contains(trigger)
          let expected = stopped && model.attached.contains(trigger) ? 1 : 0
          if model.cancelled[trigger, default: 0] != expected {
            return "task \(trigger) was cancelled \(model.cancelled[trigger, default: 0]) times, expected \(expected)"
          }
        }
        // Only the latest run may write.
        for (trigger, run) in model.runs where !model.finished.contains(trigger) {
          let isLatest = trigger == model.latestRun
          if model.machine.isSuperseded(run) == isLatest {
            return "run \(run) is the latest: \(isLatest), yet superseded: \(model.machine.isSuperseded(run))"
          }
        }
        // Once no trigger waits and no run is under way, the machine holds nothing.
        let isOpen = model.triggers.contains {
          !model.slept.contains($0) || (model.runs[$0] != nil && !model.finished.contains($0))
        }
        if !isOpen && !model.machine.isIdle {
          return "nothing waits or runs, yet the machine is \(model.machine.state)"
        }
        return nil
      })
    #expect(explored > 10_000)
  }
}
