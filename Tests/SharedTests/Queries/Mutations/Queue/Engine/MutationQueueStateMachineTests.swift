import Foundation
import TestSupport
import Testing

@testable import SharedState

/// The decisions of the mutation queue, through every ordering of its events up to a small depth, beside a model of
/// what the file holds: a kill at any moment must lose no saved entry and re-run at most the one running.
// A search of one value type on one thread: off the cooperative pool so that it holds none of its threads, and
// skipped under ThreadSanitizer, which has nothing to find in it (plain `swift test` runs it in full).
@Suite(.offTheCooperativePool, .disabled(if: isThreadSanitizerBuild, "single-threaded search"))
struct MutationQueueStateMachineTests {
  typealias Machine = MutationQueueStateMachine<Int>

  /// The entry a restore reads back from the file: `ids[0]`. Entries queued later are `ids[1]`, `ids[2]`, ...
  static let ids = (0..<5).map { UUID(uuidString: "00000000-0000-0000-0000-00000000000\($0)")! }

  static func entry(_ number: Int, blocker: MutationQueueError? = nil) -> MutationQueueEntry {
    MutationQueueEntry(
      id: ids[number], key: ["m", number], arguments: Data("\(number)".utf8),
      enqueuedAt: Date(timeIntervalSince1970: 0),
      blocker: blocker)
  }

  /// How many events of each kind one ordering may contain.
  struct Budget {
    var enqueues = 2
    var failures = 2
    var toggles = 3
    /// Reports of the online status that arrive after a newer one (two changes made at once, heard out of order).
    var staleReports = 1
    var discards = 1
    var flushes = 1
    var failedWrites = 1
  }

  /// The machine, the effects it asked for as a queue would carry them out, and what the file holds.
  struct Model {
    var machine: Machine
    var budget: Budget
    /// Whether the earlier run's entry waits for its mutation's registration.
    var needsRegistration: Bool

    // What the queue was asked to do.
    var isRestored = false
    var isOnline: Bool
    /// The sequence number of the latest online status report.
    var statusSequence: UInt64 = 0
    var queued: [UUID] = []
    var enqueued = 0
    var discarded: Set<UUID> = []
    var undone: Set<UUID> = []

    // What the machine made happen.
    var writing: (revision: UInt64, entries: [UUID])?
    /// The entries of every write that ended, successfully or not: what a run may follow.
    var everWritten: Set<UUID>
    /// What the file holds: the entries of the latest successful write (or of the earlier run).
    var disk: [UUID]
    /// Every entry a successful write held.
    var everSaved: Set<UUID>
    /// Whether a write failed since the latest successful one.
    var writeFailedSinceSaved = false
    var running: UUID?
    var started: [UUID] = []
    var succeeded: [UUID] = []
    var backoffs: [(id: UUID, failures: Int)] = []
    /// Flushes by number, with the entries queued when each was called; removed when resumed.
    var flushes: [Int: [UUID]] = [:]
    var flushCount = 0

    init(isOnline: Bool, needsRegistration: Bool, budget: Budget = Budget()) {
      machine = Machine(isOnline: isOnline)
      self.isOnline = isOnline
      self.needsRegistration = needsRegistration
      self.budget = budget
      disk = [MutationQueueStateMachineTests.ids[0]]
      everWritten = [MutationQueueStateMachineTests.ids[0]]
      everSaved = everWritten
    }

    /// The entries still to run, in order: the reference the machine's order must follow.
    var remaining: [UUID] {
      queued.filter { !succeeded.contains($0) && !discarded.contains($0) }
    }

    /// Carries out the machine's effects; returns the first rule one of them breaks.
    mutating func perform(_ effects: [Machine.Effect]) -> String? {
      for effect in effects {
        switch effect {
        case .write(let revision, let entries):
          if !isRestored { return "a write before the restore would overwrite the earlier run's entries" }
          if writing != nil { return "a second write started while one was under way" }
          writing = (revision, entries.map(\.id))
        case .start(let entry):
          if running != nil { return "\(entry.id) started while \(running!) runs" }
          if succeeded.contains(entry.id) { return "\(entry.id) started again after it succeeded" }
          if entry.id != remaining.first { return "\(entry.id) started out of order; \(remaining) remain" }
          if !isOnline { return "\(entry.id) started offline" }
          if !everWritten.contains(entry.id) { return "\(entry.id) started before any write held it" }
          if needsRegistration && entry.id == MutationQueueStateMachineTests.ids[0] {
            return "\(entry.id) started before its mutation was registered"
          }
          running = entry.id
          started.append(entry.id)
        case .backoff(let id, let failures):
          if id != remaining.first { return "\(id) backs off, but it is not first" }
          backoffs.append((id, failures))
        case .stopBackoff(let id):
          if !backoffs.contains(where: { $0.id == id }) { return "a backoff of \(id) was stopped, but none ran" }
        case .resumeFlushes(let waiters, let error):
          for waiter in waiters {
            guard let queuedThen = flushes.removeValue(forKey: waiter) else {
              return "flush \(waiter) resumed twice, or never waited"
            }
            if error == nil {
              let missing = queuedThen.filter { remaining.contains($0) && !disk.contains($0) }
              if !missing.isEmpty { return "flush \(waiter) returned, yet \(missing) are not in the file" }
            }
          }
        case .undo(let id):
          if !discarded.contains(id) { return "\(id) was undone, but not discarded" }
          if !undone.insert(id).inserted { return "\(id) was undone twice" }
        }
      }
      return nil
    }
  }

  /// The events that may happen next in `model`.
  static func events(_ model: Model) -> [(name: String, apply: (inout Model) -> String?)] {
    var events: [(name: String, apply: (inout Model) -> String?)] = []
    if model.budget.enqueues > 0 {
      events.append(
        (
          "enqueue",
          { model in
            model.budget.enqueues -= 1
            model.enqueued += 1
            let id = ids[model.enqueued]
            model.queued.append(id)
            return model.perform(model.machine.enqueue(entry(model.enqueued)))
          }
        ))
    }
    if !model.isRestored {
      events.append(
        (
          "restore",
          { model in
            model.isRestored = true
            // The earlier run's entry goes before every entry queued since.
            model.queued.insert(ids[0], at: 0)
            let earlier = entry(0, blocker: model.needsRegistration ? .notRegistered(key: ["m", 0]) : nil)
            return model.perform(model.machine.restored([earlier]))
          }
        ))
    }
    if model.needsRegistration && model.isRestored {
      events.append(
        (
          "register",
          { model in
            model.needsRegistration = false
            return model.perform(model.machine.unblock(ids[0]))
          }
        ))
    }
    if let writing = model.writing {
      events.append(
        (
          "write ok",
          { model in
            model.writing = nil
            model.disk = writing.entries
            model.everWritten.formUnion(writing.entries)
            model.everSaved.formUnion(writing.entries)
            model.writeFailedSinceSaved = false
            return model.perform(model.machine.writeEnded(revision: writing.revision, error: nil))
          }
        ))
      if model.budget.failedWrites > 0 {
        events.append(
          (
            "write fails",
            { model in
              model.budget.failedWrites -= 1
              model.writing = nil
              model.everWritten.formUnion(writing.entries)
              model.writeFailedSinceSaved = true
              return model.perform(
                model.machine.writeEnded(revision: writing.revision, error: HashableError(TestFailure())))
            }
          ))
      }
    }
    if model.budget.toggles > 0 {
      events.append(
        (
          model.isOnline ? "offline" : "online",
          { model in
            model.budget.toggles -= 1
            model.isOnline.toggle()
            model.statusSequence += 1
            return model.perform(model.machine.setOnline(model.isOnline, sequence: model.statusSequence))
          }
        ))
    }
    if model.budget.staleReports > 0 && model.statusSequence > 0 {
      events.append(
        (
          "stale report",
          { model in
            // The report before the latest one, heard after it: it must change nothing.
            model.budget.staleReports -= 1
            return model.perform(model.machine.setOnline(!model.isOnline, sequence: model.statusSequence - 1))
          }
        ))
    }
    if let running = model.running {
      events.append(
        (
          "run ok",
          { model in
            model.running = nil
            model.succeeded.append(running)
            return model.perform(model.machine.succeeded(running))
          }
        ))
      if model.budget.failures > 0 {
        events.append(
          (
            "run fails",
            { model in
              model.budget.failures -= 1
              model.running = nil
              return model.perform(model.machine.failed(running, error: HashableError(TestFailure())))
            }
          ))
      }
    }
    // Every backoff may still end, even a stopped one (its task may have been on its way).
    for (index, backoff) in model.backoffs.enumerated() {
      events.append(
        (
          "backoff \(backoff.failures) ends",
          { model in
            model.backoffs.remove(at: index)
            return model.perform(model.machine.backoffEnded(backoff.id, failures: backoff.failures))
          }
        ))
    }
    if model.budget.discards > 0 {
      for id in model.remaining where model.machine.entries.contains(where: { $0.id == id }) {
        events.append(
          (
            "discard \(ids.firstIndex(of: id)!)",
            { model in
              model.budget.discards -= 1
              let (discarded, effects) = model.machine.discard(id)
              if discarded {
                if model.running == id { return "the running entry \(id) was discarded" }
                model.discarded.insert(id)
              } else if model.running != id {
                return "\(id) was not discarded, yet it does not run"
              }
              return model.perform(effects)
            }
          ))
      }
    }
    if model.budget.flushes > 0 {
      events.append(
        (
          "flush",
          { model in
            model.budget.flushes -= 1
            model.flushCount += 1
            model.flushes[model.flushCount] = model.isRestored ? model.remaining : []
            return model.perform(model.machine.flush(model.flushCount))
          }
        ))
    }
    return events
  }

  /// The rules that hold after every event.
  static func check(_ model: Model) -> String? {
    // Nothing saved is ever lost: every entry still to run that was in the file is in it.
    for id in model.remaining where model.everSaved.contains(id) && !model.disk.contains(id) {
      return "\(id) is no longer in the file"
    }
    // A kill now re-runs at most one entry the server may have seen: the file holds at most one entry that
    // succeeded or runs. (After a failed write the queue goes on, and the file catches up at the next good one.)
    let seen = model.disk.filter { model.succeeded.contains($0) || model.running == $0 }
    if seen.count > 1 && !model.writeFailedSinceSaved { return "a kill now would run \(seen) again" }
    // A discarded entry never runs after an entry behind it: while the file still holds it, nothing behind it has
    // started (a kill now would run the discarded entry after that one, and that one again).
    if !model.writeFailedSinceSaved {
      for (position, id) in model.disk.enumerated() where model.discarded.contains(id) {
        let behind = model.disk[(position + 1)...].filter { model.succeeded.contains($0) || model.running == $0 }
        if !behind.isEmpty { return "the file still holds the discarded \(id), yet \(behind) behind it ran" }
      }
    }
    // Runs went in order: the successes are a prefix of the queue's order, skipping only discarded entries.
    let ranInOrder = model.queued.filter { !model.discarded.contains($0) }
    if Array(ranInOrder.prefix(model.succeeded.count)) != model.succeeded {
      return "entries succeeded out of order: \(model.succeeded)"
    }
    // The machine follows the newest status report, whatever order the reports arrived in.
    if model.machine.isOnline != model.isOnline {
      return "the machine counts the device \(model.machine.isOnline ? "online" : "offline"), the newest report not"
    }
    // The machine agrees with the reference about what is queued.
    let machineEntries = model.machine.entries.map(\.id)
    let expected = model.isRestored ? model.remaining : model.remaining.filter { $0 != ids[0] }
    if machineEntries != expected { return "the machine holds \(machineEntries), the reference \(expected)" }
    // Nothing waits forever once nothing is under way.
    let backingOff = model.backoffs.contains { backoff in
      if case .retrying(backoff.id, backoff.failures) = model.machine.head { return true }
      return false
    }
    if model.writing == nil && model.running == nil && !backingOff && model.isRestored {
      if !model.flushes.isEmpty { return "flushes \(model.flushes.keys.sorted()) wait, but nothing is written" }
      if model.isOnline, let first = model.remaining.first,
        !(model.needsRegistration && first == ids[0])
      {
        return "\(first) could run, but nothing runs"
      }
    }
    if !model.isRestored && !model.flushes.isEmpty { return "a flush before the restore waits" }
    return nil
  }

  @Test(arguments: [false, true])
  func everyOrderingKeepsTheOrderAndLosesNothing(needsRegistration: Bool) {
    let explored = exploreEveryOrdering(
      from: Model(isOnline: false, needsRegistration: needsRegistration), depth: 7, events: Self.events,
      check: Self.check)
    #expect(explored > 50_000)
  }

  @Test func everyOrderingFromOnlineKeepsTheOrderAndLosesNothing() {
    let explored = exploreEveryOrdering(
      from: Model(isOnline: true, needsRegistration: false, budget: Budget(failures: 1, toggles: 2)), depth: 7,
      events: Self.events, check: Self.check)
    #expect(explored > 50_000)
  }

  // MARK: Single paths

  @Test func anEntryRunsOnlyOnceAWriteHoldsItAndTheNextOnlyOnceItsRemovalIsWritten() {
    var machine = Machine(isOnline: true)
    _ = machine.restored([])
    guard case .write(let first, _) = machine.enqueue(Self.entry(1)).first else {
      Issue.record("the entry was not written")
      return
    }
    #expect(machine.enqueue(Self.entry(2)).isEmpty)  // written by the next write
    let afterFirstWrite = machine.writeEnded(revision: first, error: nil)
    guard afterFirstWrite.count == 2, case .write(let second, let entries) = afterFirstWrite[0],
      case .start(let started) = afterFirstWrite[1]
    else {
      Issue.record("expected a write of the second entry and a start of the first: \(afterFirstWrite)")
      return
    }
    #expect(entries.map(\.id) == [Self.ids[1], Self.ids[2]])
    #expect(started.id == Self.ids[1])
    #expect(machine.succeeded(Self.ids[1]).isEmpty)  // its removal waits for the write under way
    guard case .write(let removal, let remaining) = machine.writeEnded(revision: second, error: nil).first else {
      Issue.record("the success was not written")
      return
    }
    #expect(remaining.map(\.id) == [Self.ids[2]])
    let afterRemoval = machine.writeEnded(revision: removal, error: nil)
    guard afterRemoval.count == 1, case .start(let next) = afterRemoval[0] else {
      Issue.record("the second entry did not start once the removal was written: \(afterRemoval)")
      return
    }
    #expect(next.id == Self.ids[2])
  }

  @Test func aFailedEntryIsRetriedAfterItsBackoffOrAtOnceWhenTheNetworkReturns() {
    var machine = Machine(isOnline: true)
    _ = machine.restored([Self.entry(0)])
    _ = machine.enqueue(Self.entry(1))
    guard case .backoff(let id, let failures) = machine.failed(Self.ids[0], error: HashableError(TestFailure())).first
    else {
      Issue.record("no backoff after a failure")
      return
    }
    #expect(id == Self.ids[0] && failures == 1)
    guard case .start(let retry) = machine.backoffEnded(id, failures: 1).last else {
      Issue.record("the entry was not retried")
      return
    }
    #expect(retry.id == Self.ids[0] && retry.attempts == 2)
    _ = machine.failed(Self.ids[0], error: HashableError(TestFailure()))
    _ = machine.setOnline(false, sequence: 1)
    let back = machine.setOnline(true, sequence: 2)
    guard back.count == 2, case .stopBackoff(Self.ids[0]) = back[0], case .start(let again) = back[1] else {
      Issue.record("coming online did not retry at once: \(back)")
      return
    }
    #expect(again.id == Self.ids[0] && again.attempts == 3)
    #expect(machine.backoffEnded(Self.ids[0], failures: 2).isEmpty)  // the stopped backoff's end is stale
  }

  @Test func aStatusReportHeardAfterANewerOneChangesNothing() {
    var machine = Machine(isOnline: true)
    _ = machine.restored([Self.entry(0)])  // the entry starts
    _ = machine.failed(Self.ids[0], error: HashableError(TestFailure()))
    #expect(machine.setOnline(false, sequence: 2).isEmpty)
    // The report before it, heard late: coming online would retry at once, but it is older than the offline one.
    #expect(machine.setOnline(true, sequence: 1).isEmpty)
    #expect(!machine.isOnline)
    #expect(machine.head == .retrying(Self.ids[0], failures: 1))
  }

  @Test func aFlushAfterAFailedWriteWritesAgain() {
    var machine = Machine(isOnline: false)
    _ = machine.restored([])
    guard case .write(let revision, _) = machine.enqueue(Self.entry(1)).first else {
      Issue.record("the entry was not written")
      return
    }
    _ = machine.writeEnded(revision: revision, error: HashableError(TestFailure()))
    #expect(machine.saveError != nil)
    guard case .write(let again, let entries) = machine.flush(7).first else {
      Issue.record("the flush did not write again")
      return
    }
    #expect(again == revision && entries.map(\.id) == [Self.ids[1]])
    guard case .resumeFlushes(let waiters, nil) = machine.writeEnded(revision: again, error: nil).first else {
      Issue.record("the flush was not resumed")
      return
    }
    #expect(waiters == [7])
    #expect(machine.saveError == nil)
  }

  /// A discard is like a success: the entry behind starts only once a write without the discarded one has ended,
  /// so a kill can never run the discarded entry after the one behind it.
  @Test func discardingAFailedHeadStartsTheNextOnlyOnceTheDiscardIsWritten() {
    var machine = Machine(isOnline: true)
    _ = machine.restored([Self.entry(0)])
    guard case .write(let revision, _) = machine.enqueue(Self.entry(1)).first else {
      Issue.record("the entry was not written")
      return
    }
    _ = machine.writeEnded(revision: revision, error: nil)
    _ = machine.failed(Self.ids[0], error: HashableError(TestFailure()))
    let (discarded, effects) = machine.discard(Self.ids[0])
    #expect(discarded)
    guard case .write(let removal, let entries) = effects.last(where: { if case .write = $0 { true } else { false } })
    else {
      Issue.record("the discard was not written: \(effects)")
      return
    }
    #expect(entries.map(\.id) == [Self.ids[1]])
    #expect(!effects.contains { if case .start = $0 { true } else { false } }, "started before the write ended")
    let afterWrite = machine.writeEnded(revision: removal, error: nil)
    guard afterWrite.count == 1, case .start(let next) = afterWrite[0] else {
      Issue.record("the next entry did not start once the discard was written: \(afterWrite)")
      return
    }
    #expect(next.id == Self.ids[1])
  }

  @Test func aRunningEntryCannotBeDiscarded() {
    var machine = Machine(isOnline: true)
    _ = machine.restored([Self.entry(0)])
    #expect(machine.discard(Self.ids[0]).discarded == false)
    _ = machine.failed(Self.ids[0], error: HashableError(TestFailure()))
    let (discarded, effects) = machine.discard(Self.ids[0])
    #expect(discarded)
    #expect(effects.contains { if case .undo(Self.ids[0]) = $0 { true } else { false } })
    #expect(machine.entries.isEmpty)
  }
}
