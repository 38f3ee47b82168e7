import Foundation
import TestSupport
import Testing

@testable import SharedState

/// The decisions of the mutation queue, through every ordering of its events up to a small depth, beside a model of
/// what the file holds: a kill at any moment must lose no saved entry and re-run at most the one running, the file
/// never counts fewer attempts than started, and an entry that gives up leaves the run order for good (until a
/// retry) while the entries behind it go on.
// A search of one value type on one thread: off the cooperative pool so that it holds none of its threads, and
// skipped under ThreadSanitizer, which has nothing to find in it (plain `swift test` runs it in full).
@Suite(.offTheCooperativePool, .disabled(if: isThreadSanitizerBuild, "single-threaded search"))
struct MutationQueueStateMachineTests {
  typealias Machine = MutationQueueStateMachine<Int>

  /// The entry a restore reads back from the file: `ids[0]`. Entries queued later are `ids[1]`, `ids[2]`, ...
  static let ids = (0..<5).map { UUID(uuidString: "00000000-0000-0000-0000-00000000000\($0)")! }

  static func entry(
    _ number: Int,
    blocker: MutationQueueError? = nil,
    maxAttempts: Int? = nil,
    attempts: Int = 0
  ) -> MutationQueueEntry {
    var entry = MutationQueueEntry(
      id: ids[number], key: ["m", number], arguments: Data("\(number)".utf8),
      enqueuedAt: Date(timeIntervalSince1970: 0),
      blocker: blocker)
    entry.maxAttempts = maxAttempts
    entry.attempts = attempts
    return entry
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
    /// Failures the entry's policy marks permanent.
    var permanentFailures = 0
    /// Retries of entries that gave up.
    var retries = 0
  }

  /// The policy of every entry, and how many attempts the earlier run's entry made before the kill.
  struct Policy {
    /// Every entry's ``QueuedMutationRetryPolicy/maxAttempts``.
    var maxAttempts: Int?
    /// The attempts the file counts for the earlier run's entry (none failed: the last one's end was never heard).
    var restoredAttempts = 0
  }

  /// The machine, the effects it asked for as a queue would carry them out, and what the file holds.
  struct Model {
    var machine: Machine
    var budget: Budget
    var policy: Policy
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
    /// The entries that gave up (and were not retried since), in the order they did.
    var gaveUp: [UUID] = []
    /// The entries retried since they gave up.
    var retried: Set<UUID> = []
    /// Each entry's latest failure: whether permanent, and whether it came online.
    var latestFailure: [UUID: (isPermanent: Bool, online: Bool)] = [:]
    /// The starts of each entry since its latest retry (or since the launch).
    var starts: [UUID: Int] = [:]
    /// The most attempts any write that ended counted for each entry: a start must not outrun it.
    var writtenAttempts: [UUID: Int] = [:]

    // What the machine made happen.
    var writing: (revision: UInt64, entries: [UUID], failed: [UUID], attempts: [UUID: Int])?
    /// The entries of every write that ended, successfully or not: what a run may follow.
    var everWritten: Set<UUID>
    /// What the file holds: the entries of the latest successful write (or of the earlier run).
    var disk: [UUID]
    /// The given-up entries the file holds.
    var diskFailed: [UUID] = []
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

    init(isOnline: Bool, needsRegistration: Bool, budget: Budget = Budget(), policy: Policy = Policy()) {
      machine = Machine(isOnline: isOnline)
      self.isOnline = isOnline
      self.needsRegistration = needsRegistration
      self.budget = budget
      self.policy = policy
      writtenAttempts = [MutationQueueStateMachineTests.ids[0]: policy.restoredAttempts]
      disk = [MutationQueueStateMachineTests.ids[0]]
      everWritten = [MutationQueueStateMachineTests.ids[0]]
      everSaved = everWritten
    }

    /// The entries still to run, in order: the reference the machine's order must follow.
    var remaining: [UUID] {
      queued.filter { !succeeded.contains($0) && !discarded.contains($0) && !gaveUp.contains($0) }
    }

    /// The attempts entry `id` made since its latest retry, over the earlier run and this one.
    func totalStarts(_ id: UUID) -> Int {
      let earlier = id == MutationQueueStateMachineTests.ids[0] && !retried.contains(id) ? policy.restoredAttempts : 0
      return (starts[id] ?? 0) + earlier
    }

    /// Carries out the machine's effects; returns the first rule one of them breaks.
    mutating func perform(_ effects: [Machine.Effect]) -> String? {
      for effect in effects {
        switch effect {
        case .write(let revision, let entries, let failed):
          if !isRestored { return "a write before the restore would overwrite the earlier run's entries" }
          if writing != nil { return "a second write started while one was under way" }
          let attempts = Dictionary((entries + failed).map { ($0.id, $0.attempts) }, uniquingKeysWith: max)
          writing = (revision, entries.map(\.id), failed.map(\.id), attempts)
        case .start(let entry):
          if running != nil { return "\(entry.id) started while \(running!) runs" }
          if succeeded.contains(entry.id) { return "\(entry.id) started again after it succeeded" }
          if entry.id != remaining.first { return "\(entry.id) started out of order; \(remaining) remain" }
          if !isOnline { return "\(entry.id) started offline" }
          if !everWritten.contains(entry.id) { return "\(entry.id) started before any write held it" }
          if needsRegistration && entry.id == MutationQueueStateMachineTests.ids[0] {
            return "\(entry.id) started before its mutation was registered"
          }
          if gaveUp.contains(entry.id) { return "\(entry.id) started after it gave up" }
          // The claim before the start: a kill now finds the file counting this attempt.
          if (writtenAttempts[entry.id] ?? 0) < entry.attempts {
            return "\(entry.id) started attempt \(entry.attempts) before a write counted it"
          }
          starts[entry.id, default: 0] += 1
          if let maxAttempts = policy.maxAttempts, totalStarts(entry.id) > maxAttempts + 1 {
            return "\(entry.id) started \(totalStarts(entry.id)) times, over its \(maxAttempts) attempts and one more"
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
          if discarded.contains(id) {
            if !undone.insert(id).inserted { return "\(id) was undone twice" }
            continue
          }
          // Not discarded: it gave up.
          guard machine.failed.contains(where: { $0.id == id }) else {
            return "\(id) was undone, but neither discarded nor given up"
          }
          if gaveUp.contains(id) { return "\(id) gave up twice" }
          if running == id { return "\(id) gave up while it runs" }
          let failure = latestFailure[id]
          let exhausted = policy.maxAttempts.map { totalStarts(id) >= $0 } ?? false
          let overMaximum = policy.maxAttempts.map { totalStarts(id) > $0 } ?? false
          if failure?.isPermanent != true && !(exhausted && failure?.online == true) && !overMaximum {
            return "\(id) gave up after \(totalStarts(id)) attempts, its latest failure \(String(describing: failure))"
          }
          gaveUp.append(id)
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
            return model.perform(
              model.machine.enqueue(entry(model.enqueued, maxAttempts: model.policy.maxAttempts)))
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
            let earlier = entry(
              0, blocker: model.needsRegistration ? .notRegistered(key: ["m", 0]) : nil,
              maxAttempts: model.needsRegistration ? nil : model.policy.maxAttempts,
              attempts: model.policy.restoredAttempts)
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
            return model.perform(model.machine.unblock(ids[0], maxAttempts: model.policy.maxAttempts))
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
            model.diskFailed = writing.failed
            model.writtenAttempts.merge(writing.attempts, uniquingKeysWith: max)
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
              // The queue goes on after a failed write, as if it had landed.
              model.writtenAttempts.merge(writing.attempts, uniquingKeysWith: max)
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
              model.latestFailure[running] = (false, model.isOnline)
              let effects = model.machine.failed(running, error: HashableError(TestFailure()))
              if let problem = model.perform(effects) { return problem }
              // Online, the last allowed attempt gives up; offline it leaves one more.
              let exhausted = model.policy.maxAttempts.map { model.totalStarts(running) >= $0 } ?? false
              if exhausted && model.isOnline != model.gaveUp.contains(running) {
                return
                  "\(running) failed its last attempt \(model.isOnline ? "online" : "offline"), and gave up: \(!model.isOnline)"
              }
              return nil
            }
          ))
      }
      if model.budget.permanentFailures > 0 {
        events.append(
          (
            "run fails for good",
            { model in
              model.budget.permanentFailures -= 1
              model.running = nil
              model.latestFailure[running] = (true, model.isOnline)
              let effects = model.machine.failed(running, error: HashableError(TestFailure()), isPermanent: true)
              if let problem = model.perform(effects) { return problem }
              if !model.gaveUp.contains(running) { return "\(running) failed for good, yet it did not give up" }
              return nil
            }
          ))
      }
    }
    if model.budget.retries > 0 {
      for id in model.gaveUp {
        events.append(
          (
            "retry \(ids.firstIndex(of: id)!)",
            { model in
              model.budget.retries -= 1
              let (retried, effects) = model.machine.retry(id, maxAttempts: model.policy.maxAttempts, blocker: nil)
              if !retried { return "\(id) gave up, yet it was not retried" }
              // Back in the run order, after every entry queued now, with a fresh count.
              model.gaveUp.removeAll { $0 == id }
              model.retried.insert(id)
              model.starts[id] = 0
              model.latestFailure[id] = nil
              model.queued.removeAll { $0 == id }
              model.queued.append(id)
              return model.perform(effects)
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
      for id in model.gaveUp {
        events.append(
          (
            "discard given-up \(ids.firstIndex(of: id)!)",
            { model in
              model.budget.discards -= 1
              let (discarded, effects) = model.machine.discard(id)
              if !discarded { return "\(id) gave up, yet it was not discarded" }
              if effects.contains(where: { if case .undo = $0 { true } else { false } }) {
                return "\(id) was undone again as it was discarded, after it gave up"
              }
              model.gaveUp.removeAll { $0 == id }
              model.discarded.insert(id)
              model.undone.insert(id)
              return model.perform(effects)
            }
          ))
      }
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
    // (A retried entry is in the file's given-up entries until the retry is written.)
    for id in model.remaining
    where model.everSaved.contains(id) && !model.disk.contains(id) && !model.diskFailed.contains(id) {
      return "\(id) is no longer in the file"
    }
    // An entry that gave up stays in the file (out of its run order) until it is retried or discarded.
    if model.writing == nil && !model.writeFailedSinceSaved {
      for id in model.gaveUp where model.everSaved.contains(id) && !model.diskFailed.contains(id) {
        return "the given-up \(id) is no longer in the file"
      }
    }
    // A kill now re-runs at most one entry the server may have seen: the file holds at most one entry that
    // succeeded or runs. (After a failed write the queue goes on, and the file catches up at the next good one.)
    let seen = model.disk.filter { model.succeeded.contains($0) || model.running == $0 }
    if seen.count > 1 && !model.writeFailedSinceSaved { return "a kill now would run \(seen) again" }
    // A discarded entry never runs after an entry behind it: while the file still holds it, nothing behind it has
    // started (a kill now would run the discarded entry after that one, and that one again).
    if !model.writeFailedSinceSaved {
      for (position, id) in model.disk.enumerated() where model.discarded.contains(id) || model.gaveUp.contains(id) {
        let behind = model.disk[(position + 1)...].filter { model.succeeded.contains($0) || model.running == $0 }
        if !behind.isEmpty { return "the file still holds the discarded \(id), yet \(behind) behind it ran" }
      }
    }
    // Runs went in order: the successes are a prefix of the queue's order, skipping only discarded entries.
    let ranInOrder = model.queued.filter { !model.discarded.contains($0) && !model.gaveUp.contains($0) }
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
    if model.machine.failed.map(\.id) != model.gaveUp {
      return "the machine's given-up entries are \(model.machine.failed.map(\.id)), the reference \(model.gaveUp)"
    }
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

  /// Entries that give up, through every ordering: failures online and offline, permanent ones, retries and
  /// discards of given-up entries, with a maximum of 1 or 2 attempts.
  @Test(arguments: [1, 2])
  func everyOrderingWithAMaximumGivesUpOnlyWhenThePolicySays(maxAttempts: Int) {
    let explored = exploreEveryOrdering(
      from: Model(
        isOnline: true, needsRegistration: false,
        budget: Budget(
          enqueues: 1, failures: 2, toggles: 2, staleReports: 0, discards: 1, flushes: 0, failedWrites: 1,
          permanentFailures: 1, retries: 1),
        policy: Policy(maxAttempts: maxAttempts)),
      depth: 8, events: Self.events, check: Self.check)
    #expect(explored > 30_000)
  }

  /// The earlier run's entry was killed during an attempt: with its last allowed attempt (it gets one more, and no
  /// other), or with that extra one (it gives up before running again).
  @Test(arguments: [(2, 2), (2, 3), (1, 1)])
  func everyOrderingAfterAKillDuringTheLastAttemptRunsItAtMostOnceMore(maxAttempts: Int, restoredAttempts: Int) {
    let explored = exploreEveryOrdering(
      from: Model(
        isOnline: false, needsRegistration: false,
        budget: Budget(
          enqueues: 1, failures: 2, toggles: 3, staleReports: 0, discards: 1, flushes: 0, failedWrites: 1,
          permanentFailures: 0, retries: 1),
        policy: Policy(maxAttempts: maxAttempts, restoredAttempts: restoredAttempts)),
      depth: 8, events: Self.events, check: Self.check)
    #expect(explored > 10_000)
  }

  // MARK: Single paths

  /// Carries out `effects` as a queue whose writes all succeed at once would: ends each write it asks for, and
  /// returns every other effect, in order.
  static func withWritesLanded(_ machine: inout Machine, _ effects: [Machine.Effect]) -> [Machine.Effect] {
    var pending = effects
    var others: [Machine.Effect] = []
    while !pending.isEmpty {
      let effect = pending.removeFirst()
      if case .write(let revision, _, _) = effect {
        pending += machine.writeEnded(revision: revision, error: nil)
      } else {
        others.append(effect)
      }
    }
    return others
  }

  static func started(_ effects: [Machine.Effect]) -> [MutationQueueEntry] {
    effects.compactMap { if case .start(let entry) = $0 { entry } else { nil } }
  }

  static func written(_ effects: [Machine.Effect]) -> (revision: UInt64, entries: [UUID], failed: [UUID])? {
    for case .write(let revision, let entries, let failed) in effects {
      return (revision, entries.map(\.id), failed.map(\.id))
    }
    return nil
  }

  @Test func anEntryRunsOnlyOnceAWriteHoldsItsClaimAndTheNextOnlyOnceItsRemovalIsWritten() {
    var machine = Machine(isOnline: true)
    _ = machine.restored([])
    // Into an idle queue: one write holds the entry and its first attempt.
    guard let first = Self.written(machine.enqueue(Self.entry(1))) else {
      Issue.record("the entry was not written")
      return
    }
    #expect(first.entries == [Self.ids[1]])
    #expect(machine.entries[0].attempts == 1)
    #expect(machine.enqueue(Self.entry(2)).isEmpty)  // written by the next write
    let afterFirstWrite = machine.writeEnded(revision: first.revision, error: nil)
    #expect(Self.started(afterFirstWrite).map(\.id) == [Self.ids[1]])
    #expect(Self.started(afterFirstWrite).first?.attempts == 1)
    guard let second = Self.written(afterFirstWrite) else {
      Issue.record("the second entry was not written: \(afterFirstWrite)")
      return
    }
    #expect(second.entries == [Self.ids[1], Self.ids[2]])
    #expect(machine.succeeded(Self.ids[1]).isEmpty)  // its removal waits for the write under way
    // The removal and the next entry's claim: one write.
    guard let removal = Self.written(machine.writeEnded(revision: second.revision, error: nil)) else {
      Issue.record("the success was not written")
      return
    }
    #expect(removal.entries == [Self.ids[2]])
    #expect(machine.entries[0].attempts == 1)
    let afterRemoval = machine.writeEnded(revision: removal.revision, error: nil)
    #expect(Self.started(afterRemoval).map(\.id) == [Self.ids[2]])
  }

  @Test func aRetryStartsOnlyOnceAWriteCountsItsAttempt() {
    var machine = Machine(isOnline: true)
    _ = Self.withWritesLanded(&machine, machine.restored([Self.entry(0)]))
    #expect(machine.head == .running(Self.ids[0]))
    _ = Self.withWritesLanded(&machine, machine.failed(Self.ids[0], error: HashableError(TestFailure())))
    let afterBackoff = machine.backoffEnded(Self.ids[0], failures: 1)
    guard let claim = Self.written(afterBackoff), Self.started(afterBackoff).isEmpty else {
      Issue.record("the retry started before its attempt was written: \(afterBackoff)")
      return
    }
    #expect(machine.entries[0].attempts == 2)
    let afterClaim = machine.writeEnded(revision: claim.revision, error: nil)
    #expect(Self.started(afterClaim).map(\.attempts) == [2])
  }

  @Test func aFailedEntryIsRetriedAfterItsBackoffOrAtOnceWhenTheNetworkReturns() {
    var machine = Machine(isOnline: true)
    _ = Self.withWritesLanded(&machine, machine.restored([Self.entry(0)]))
    _ = Self.withWritesLanded(&machine, machine.enqueue(Self.entry(1)))
    let failure = Self.withWritesLanded(&machine, machine.failed(Self.ids[0], error: HashableError(TestFailure())))
    guard case .backoff(let id, let failures) = failure.first else {
      Issue.record("no backoff after a failure")
      return
    }
    #expect(id == Self.ids[0] && failures == 1)
    let retry = Self.started(Self.withWritesLanded(&machine, machine.backoffEnded(id, failures: 1)))
    #expect(retry.map(\.id) == [Self.ids[0]] && retry.first?.attempts == 2)
    _ = Self.withWritesLanded(&machine, machine.failed(Self.ids[0], error: HashableError(TestFailure())))
    _ = machine.setOnline(false, sequence: 1)
    let back = Self.withWritesLanded(&machine, machine.setOnline(true, sequence: 2))
    guard case .stopBackoff(Self.ids[0]) = back.first else {
      Issue.record("coming online did not stop the backoff: \(back)")
      return
    }
    #expect(Self.started(back).map(\.id) == [Self.ids[0]] && Self.started(back).first?.attempts == 3)
    #expect(machine.backoffEnded(Self.ids[0], failures: 2).isEmpty)  // the stopped backoff's end is stale
  }

  @Test func aStatusReportHeardAfterANewerOneChangesNothing() {
    var machine = Machine(isOnline: true)
    _ = Self.withWritesLanded(&machine, machine.restored([Self.entry(0)]))  // the entry starts
    _ = Self.withWritesLanded(&machine, machine.failed(Self.ids[0], error: HashableError(TestFailure())))
    #expect(machine.setOnline(false, sequence: 2).isEmpty)
    // The report before it, heard late: coming online would retry at once, but it is older than the offline one.
    #expect(machine.setOnline(true, sequence: 1).isEmpty)
    #expect(!machine.isOnline)
    #expect(machine.head == .retrying(Self.ids[0], failures: 1))
  }

  @Test func aFlushAfterAFailedWriteWritesAgain() {
    var machine = Machine(isOnline: false)
    _ = machine.restored([])
    guard case .write(let revision, _, _) = machine.enqueue(Self.entry(1)).first else {
      Issue.record("the entry was not written")
      return
    }
    _ = machine.writeEnded(revision: revision, error: HashableError(TestFailure()))
    #expect(machine.saveError != nil)
    guard case .write(let again, let entries, _) = machine.flush(7).first else {
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
    _ = Self.withWritesLanded(&machine, machine.restored([Self.entry(0)]))
    _ = Self.withWritesLanded(&machine, machine.enqueue(Self.entry(1)))
    _ = Self.withWritesLanded(&machine, machine.failed(Self.ids[0], error: HashableError(TestFailure())))
    let (discarded, effects) = machine.discard(Self.ids[0])
    #expect(discarded)
    guard let removal = Self.written(effects) else {
      Issue.record("the discard was not written: \(effects)")
      return
    }
    #expect(removal.entries == [Self.ids[1]])
    #expect(Self.started(effects).isEmpty, "started before the write ended")
    let afterWrite = machine.writeEnded(revision: removal.revision, error: nil)
    #expect(Self.started(afterWrite).map(\.id) == [Self.ids[1]])
  }

  @Test func aRunningEntryCannotBeDiscarded() {
    var machine = Machine(isOnline: true)
    _ = Self.withWritesLanded(&machine, machine.restored([Self.entry(0)]))
    #expect(machine.discard(Self.ids[0]).discarded == false)
    _ = Self.withWritesLanded(&machine, machine.failed(Self.ids[0], error: HashableError(TestFailure())))
    let (discarded, effects) = machine.discard(Self.ids[0])
    #expect(discarded)
    #expect(effects.contains { if case .undo(Self.ids[0]) = $0 { true } else { false } })
    #expect(machine.entries.isEmpty)
  }

  // MARK: Giving up

  @Test func aPermanentFailureGivesUpAndTheEntriesBehindGoOnIncludingOnesOfTheSameKey() {
    var machine = Machine(isOnline: true)
    var sameKey = Self.entry(1)
    sameKey = MutationQueueEntry(id: Self.ids[1], key: ["m", 0], arguments: Data(), enqueuedAt: Date())
    _ = Self.withWritesLanded(&machine, machine.restored([Self.entry(0), sameKey]))
    let effects = machine.failed(Self.ids[0], error: HashableError(TestFailure()), isPermanent: true)
    #expect(effects.contains { if case .undo(Self.ids[0]) = $0 { true } else { false } })
    #expect(!effects.contains { if case .backoff = $0 { true } else { false } })
    #expect(machine.failed.map(\.id) == [Self.ids[0]])
    #expect(machine.failed[0].lastError != nil)
    // The next entry (the same key) starts once a write without the given-up one in the run order, and with it in
    // the given-up entries, has ended.
    guard let written = Self.written(effects), Self.started(effects).isEmpty else {
      Issue.record("the give-up was not written before the next started: \(effects)")
      return
    }
    #expect(written.entries == [Self.ids[1]] && written.failed == [Self.ids[0]])
    #expect(Self.started(machine.writeEnded(revision: written.revision, error: nil)).map(\.id) == [Self.ids[1]])
  }

  @Test func theLastAllowedAttemptGivesUpOnlineAndLeavesOneMoreOffline() {
    var online = Machine(isOnline: true)
    _ = Self.withWritesLanded(&online, online.restored([Self.entry(0, maxAttempts: 1)]))
    _ = Self.withWritesLanded(&online, online.failed(Self.ids[0], error: HashableError(TestFailure())))
    #expect(online.failed.map(\.id) == [Self.ids[0]])

    var offline = Machine(isOnline: true)
    _ = Self.withWritesLanded(&offline, offline.restored([Self.entry(0, maxAttempts: 1)]))
    _ = offline.setOnline(false, sequence: 1)
    // The failure came offline: most likely the network's, it does not use up the last attempt.
    _ = Self.withWritesLanded(&offline, offline.failed(Self.ids[0], error: HashableError(TestFailure())))
    #expect(offline.failed.isEmpty)
    let back = Self.withWritesLanded(&offline, offline.setOnline(true, sequence: 2))
    #expect(Self.started(back).map(\.attempts) == [2])
    // That extra attempt failing offline too: no third.
    _ = offline.setOnline(false, sequence: 3)
    _ = Self.withWritesLanded(&offline, offline.failed(Self.ids[0], error: HashableError(TestFailure())))
    let again = Self.withWritesLanded(&offline, offline.setOnline(true, sequence: 4))
    #expect(Self.started(again).isEmpty)
    #expect(offline.failed.map(\.id) == [Self.ids[0]])
  }

  @Test func anEntryKilledDuringItsLastAttemptRunsOnceMoreThenGivesUp() {
    // The file counts 2 of 2 attempts, the last one's end never heard: one more.
    var relaunched = Machine(isOnline: true)
    let effects = Self.withWritesLanded(&relaunched, relaunched.restored([Self.entry(0, maxAttempts: 2, attempts: 2)]))
    #expect(Self.started(effects).map(\.attempts) == [3])
    // Killed again during that one: the file counts 3, and the next launch gives up without running it.
    var again = Machine(isOnline: true)
    let second = Self.withWritesLanded(&again, again.restored([Self.entry(0, maxAttempts: 2, attempts: 3)]))
    #expect(Self.started(second).isEmpty)
    #expect(second.contains { if case .undo(Self.ids[0]) = $0 { true } else { false } })
    #expect(
      (again.failed.first?.lastError?.error as? MutationQueueError)
        == .attemptsInterrupted(key: ["m", 0], attempts: 3))
  }

  @Test func aGivenUpEntryIsRetriedAtTheEndWithAFreshCountOrDiscardedWithoutASecondUndo() {
    var machine = Machine(isOnline: true)
    _ = Self.withWritesLanded(&machine, machine.restored([Self.entry(0, maxAttempts: 1)]))
    _ = Self.withWritesLanded(&machine, machine.enqueue(Self.entry(1)))  // waits behind the running entry
    _ = Self.withWritesLanded(&machine, machine.failed(Self.ids[0], error: HashableError(TestFailure())))
    #expect(machine.head == .running(Self.ids[1]))
    let (retried, effects) = machine.retry(Self.ids[0], maxAttempts: 1, blocker: nil)
    #expect(retried)
    #expect(machine.entries.map(\.id) == [Self.ids[1], Self.ids[0]])
    #expect(machine.entries[1].attempts == 0 && machine.entries[1].lastError == nil)
    #expect(Self.written(effects)?.failed == [])
    _ = Self.withWritesLanded(&machine, effects)
    let next = Self.withWritesLanded(&machine, machine.succeeded(Self.ids[1]))
    #expect(Self.started(next).map(\.attempts) == [1])
    // It gives up again, and is discarded: its changes were undone as it gave up.
    _ = Self.withWritesLanded(&machine, machine.failed(Self.ids[0], error: HashableError(TestFailure())))
    #expect(machine.retry(Self.ids[1], maxAttempts: nil, blocker: nil).retried == false)
    let (discarded, discardEffects) = machine.discard(Self.ids[0])
    #expect(discarded)
    #expect(!discardEffects.contains { if case .undo = $0 { true } else { false } })
    #expect(Self.written(discardEffects)?.failed == [])
    #expect(machine.failed.isEmpty)
  }

  @Test func aClaimWrittenAfterTheQueueWentOfflineWaitsAndIsNotCountedTwice() {
    var machine = Machine(isOnline: true)
    _ = machine.restored([])
    guard let claim = Self.written(machine.enqueue(Self.entry(1))) else {
      Issue.record("the entry was not written")
      return
    }
    _ = machine.setOnline(false, sequence: 1)
    #expect(Self.started(machine.writeEnded(revision: claim.revision, error: nil)).isEmpty)
    let back = machine.setOnline(true, sequence: 2)
    #expect(Self.started(back).map(\.attempts) == [1])
    #expect(Self.written(back) == nil)  // the claim was written already
  }
}
