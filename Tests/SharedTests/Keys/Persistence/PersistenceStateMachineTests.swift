import Foundation
import TestSupport
import Testing

@testable import SharedState

/// The searches run on one thread of their own, and are skipped under ThreadSanitizer, which has nothing to find in
/// them and slows them from seconds to minutes of CPU that the sanitized run's other tests need; plain `swift test`
/// (which CI runs too) runs them in full.
private let searchesRun = !isThreadSanitizerBuild

/// What keeps a value alive while it waits to be saved; the model needs one object for every change.
private final class Owner: Sendable {}

private let owner = Owner()

/// How many events of each kind one ordering may contain.
private struct Budget {
  var localChanges = 2
  var outsideChanges = 1
  var polls = 2
  var flushes = 1
  var failedSaves = 1
  var storeUpdates = 0
  /// Reports of the running save's value by the store itself, before the save returns.
  var echoes = 0
  /// `load()` calls.
  var reloads = 0
  /// Loads that end with an error: the key resumes with one after reading, or drops its continuation before.
  var loadFailures = 0
}

/// How the modelled value starts.
private enum Start {
  /// Loaded synchronously before anyone held it: memory and store agree (the searches that predate loads).
  case loaded
  /// The first holder's load is asynchronous and in flight; the store holds a value (50).
  case loadingStoredValue
  /// The first holder's load is asynchronous and in flight; the store holds nothing, so the default (0) stands in.
  case loadingNothing
}

/// The persisted value, its store and the machine, advanced one event at a time.
///
/// The store is modelled like a file: a version that grows with every write, and the version this value last
/// read or wrote (`known`; `nil` makes the next poll read the store). Reads and writes are atomic, as they are in
/// the file store's actor; a save writes when it finishes.
private struct World: OrderedWorld {
  typealias Machine = PersistenceStateMachine<Int, Int>

  enum Event: Hashable, CustomStringConvertible {
    case localChange
    case requestSave(Int)
    case saveTaskReady
    case saveSucceeds
    case saveFails
    case outsideChange
    case pollStarts
    case pollReads
    case pollDecides
    case pollApplies
    case flush
    case storeUpdate
    /// The store reports the running save's value, from inside the save or from a watcher of its own.
    case echo(fromWithinSave: Bool)
    /// A `load()` is called.
    case reload
    /// The running load reads the store.
    case loadReads
    /// The running load resumes with what it read; decided and written under the value's lock in one step.
    case loadResumes
    /// The running load resumes with an error after reading.
    case loadFails
    /// The running load's continuation is dropped before it read anything.
    case loadDropped

    var description: String {
      switch self {
      case .localChange: "change"
      case .requestSave(let index): "request[\(index)]"
      case .saveTaskReady: "ready"
      case .saveSucceeds: "saved"
      case .saveFails: "saveFailed"
      case .outsideChange: "outside"
      case .pollStarts: "pollStart"
      case .pollReads: "pollRead"
      case .pollDecides: "pollDecide"
      case .pollApplies: "pollApply"
      case .flush: "flush"
      case .storeUpdate: "storeUpdate"
      case .echo(let fromWithinSave): fromWithinSave ? "echoInside" : "echo"
      case .reload: "reload"
      case .loadReads: "loadRead"
      case .loadResumes: "loadResumed"
      case .loadFails: "loadFailed"
      case .loadDropped: "loadDropped"
      }
    }
  }

  enum SaveTask {
    case none
    case ready
    case saving(Machine.Change)
  }

  enum Poll {
    case none
    case started(StoreRead)
    case read(StoreRead, value: Int, version: Int, savesBefore: Int)
    /// Memory holds the value; the machine has not heard of it yet.
    case applying(StoreRead, change: Machine.Change)
  }

  /// The key's load in flight; `number` counts loads from 1, `startedAt` is the newest change number when it began.
  enum Load {
    case none
    case started(number: Int, startedAt: UInt64)
    /// The load read the store: its value, or `nil` when the store held nothing.
    case read(number: Int, startedAt: UInt64, value: Int?)
  }

  var machine = Machine(sameValue: { $0 == $1 })
  var budget: Budget
  /// Whether the store reports every save of the program while it runs (settling then echoes each save too).
  var echoesEverySave = false
  var echoedThisSave = false
  /// Events applied while settling; a value that never goes quiet is reported instead of looping forever.
  var settlingSteps = 0
  var memory = 0
  var sequence: UInt64 = 0
  var nextLocalValue = 1
  var nextOutsideValue = 100
  /// Changes made whose save requests have not arrived yet.
  var unrequested: [Machine.Change] = []
  var saveTask = SaveTask.none
  var store = 0
  var storeVersion = 0
  var known: Int? = 0
  var poll = Poll.none
  var pendingFlushes: [Int: UInt64] = [:]
  var nextFlush = 0
  /// The newest change number the store is known to reflect: a finished save, or a value applied from it.
  var covered: UInt64 = 0
  var lastSavedSequence: UInt64 = 0
  /// How many saves have succeeded; a poll notes it when it reads.
  var savesSucceeded = 0
  /// The newest change made in the program, and its number: kept by the model alone, never asked of the machine.
  var latestLocal: (sequence: UInt64, value: Int)?
  /// The newest number a change had when a read of the store began whose value was then applied; a change numbered
  /// at most this may be replaced by what the store held.
  var newestAppliedReadStart: UInt64 = 0
  var load = Load.none
  var loadsStarted = 0
  /// Waiting `load()` calls, by id, with the number of loads started when each was called.
  var pendingLoads: [Int: Int] = [:]
  var nextLoadWaiter = 1_000
  /// Changes whose save failed: a load may supersede these, as any value read from the store does.
  var failedChanges: Set<UInt64> = []
  var trace: [Event] = []
  var failure: String?

  init(budget: Budget, start: Start = .loaded) {
    self.budget = budget
    switch start {
    case .loaded:
      break
    case .loadingStoredValue:
      (store, storeVersion, known) = (50, 1, 1)
      firstHolderLoads()
    case .loadingNothing:
      firstHolderLoads()
    }
  }

  private mutating func firstHolderLoads() {
    guard case .start = machine.loadRequested(waiter: nil, sequenceNow: sequence) else {
      return fail("the first load did not start")
    }
    startLoad()
  }

  /// The events that may happen next.
  var enabled: [Event] {
    var events: [Event] = []
    if budget.localChanges > 0 { events.append(.localChange) }
    events += unrequested.indices.map { .requestSave($0) }
    switch saveTask {
    case .none: break
    case .ready: events.append(.saveTaskReady)
    case .saving:
      events.append(.saveSucceeds)
      if budget.failedSaves > 0 { events.append(.saveFails) }
      if budget.echoes > 0 && !echoedThisSave {
        events += [.echo(fromWithinSave: true), .echo(fromWithinSave: false)]
      }
    }
    if budget.outsideChanges > 0 { events.append(.outsideChange) }
    switch poll {
    case .none: if budget.polls > 0 { events.append(.pollStarts) }
    case .started: events.append(.pollReads)
    case .read: events.append(.pollDecides)
    case .applying: events.append(.pollApplies)
    }
    if budget.flushes > 0 { events.append(.flush) }
    if budget.storeUpdates > 0 { events.append(.storeUpdate) }
    if budget.reloads > 0 { events.append(.reload) }
    switch load {
    case .none: break
    case .started:
      events.append(.loadReads)
      if budget.loadFailures > 0 { events.append(.loadDropped) }
    case .read:
      events.append(.loadResumes)
      if budget.loadFailures > 0 { events.append(.loadFails) }
    }
    return events
  }

  mutating func fail(_ message: String) {
    if failure == nil { failure = "\(message) after \(trace)" }
  }

  mutating func apply(_ event: Event) {
    trace.append(event)
    // Every budget is finite: an ordering this long means events that start each other forever.
    if trace.count > 500 { return fail("events never stop (\(trace.count) in one ordering)") }
    switch event {
    case .localChange:
      budget.localChanges -= 1
      memory = nextLocalValue
      nextLocalValue += 1
      sequence += 1
      latestLocal = (sequence, memory)
      unrequested.append(Machine.Change(value: memory, sequence: sequence))
    case .requestSave(let index):
      let change = unrequested.remove(at: index)
      if case .startSaveTask = machine.changeRequested(change, owner: owner) { startSaveTask() }
    case .saveTaskReady:
      switch machine.saveTaskReady() {
      case .save(let change):
        saveTask = .saving(change)
        echoedThisSave = false
      case .finish(let waiters):
        saveTask = .none
        resume(waiters)
      }
    case .saveSucceeds, .saveFails:
      guard case .saving(let change) = saveTask else { return fail("no save runs") }
      var error: (any Error)?
      if change.value == 0 { fail("the default was saved") }
      if event == .saveSucceeds {
        if change.sequence <= lastSavedSequence {
          fail("change \(change.sequence) was saved after change \(lastSavedSequence)")
        }
        lastSavedSequence = change.sequence
        savesSucceeded += 1
        store = change.value
        storeVersion += 1
        known = storeVersion
        covered = max(covered, change.sequence)
      } else {
        budget.failedSaves -= 1
        failedChanges.insert(change.sequence)
        error = TestFailure()
      }
      lastSaveFailed = error != nil
      switch machine.saveFinished(error: error) {
      case .continueSaving(let waiters):
        saveTask = .ready
        resume(waiters)
      case .finish(let waiters):
        saveTask = .none
        resume(waiters)
      }
    case .outsideChange:
      budget.outsideChanges -= 1
      store = nextOutsideValue
      nextOutsideValue += 1
      storeVersion += 1
    case .pollStarts:
      budget.polls -= 1
      poll = .started(machine.storeReadStarted(at: sequence))
    case .pollReads:
      guard case .started(let read) = poll else { return fail("no poll started") }
      if known == storeVersion {
        poll = .none
      } else {
        known = storeVersion
        poll = .read(read, value: store, version: storeVersion, savesBefore: savesSucceeded)
      }
    case .pollDecides:
      // The decision and the write of memory happen in one critical section under the value's lock.
      guard case .read(let read, let value, let version, let savesBefore) = poll else { return fail("no poll read") }
      switch machine.storeReadFinished(read, sequenceNow: sequence) {
      case .apply:
        if savesSucceeded != savesBefore { fail("a poll may apply \(value), read before a later save of the program") }
        checkNoLostChange(applyingReadThatBeganAt: read.sequence)
        memory = value
        sequence += 1
        poll = .applying(read, change: Machine.Change(value: value, sequence: sequence))
      case .discard:
        if known == version { known = nil }
        poll = .none
      }
    case .pollApplies:
      guard case .applying(let read, let change) = poll else { return fail("no poll decided") }
      poll = .none
      storeValueApplied(change, read: read)
    case .flush:
      budget.flushes -= 1
      let id = nextFlush
      nextFlush += 1
      switch machine.flushRequested(target: sequence, current: memory, waiter: id) {
      case .resumeNow(let waiter):
        pendingFlushes[waiter] = sequence
        resume([waiter])
      case .wait:
        pendingFlushes[id] = sequence
      case .waitAndStartSaveTask:
        pendingFlushes[id] = sequence
        startSaveTask()
      }
    case .storeUpdate:
      // A key reports, without a read of its own, what its store now holds.
      budget.storeUpdates -= 1
      store = nextOutsideValue
      nextOutsideValue += 1
      storeVersion += 1
      known = storeVersion
      let read = machine.storeReadStarted(at: sequence)
      checkNoLostChange(applyingReadThatBeganAt: read.sequence)
      memory = store
      sequence += 1
      storeValueApplied(Machine.Change(value: store, sequence: sequence), read: read)
    case .echo(let fromWithinSave):
      guard case .saving(let change) = saveTask else { return fail("no save runs") }
      budget.echoes = max(0, budget.echoes - 1)
      echoedThisSave = true
      // The store took the save's value and says so before the save returns.
      store = change.value
      storeVersion += 1
      known = storeVersion
      if machine.storeReportIsStaleEcho(change.value, fromWithinSave: fromWithinSave, sequenceNow: sequence) {
        if sequence == change.sequence {
          fail("the echo of change \(change.sequence) was ignored, nothing newer in memory")
        }
        break
      }
      if let latestLocal, latestLocal.sequence > change.sequence {
        fail("the echo of change \(change.sequence) replaced the newer change \(latestLocal.sequence)")
      }
      let read = machine.storeReadStarted(at: sequence)
      checkNoLostChange(applyingReadThatBeganAt: read.sequence)
      memory = change.value
      sequence += 1
      storeValueApplied(
        Machine.Change(value: change.value, sequence: sequence), read: read, fromWithinSave: fromWithinSave)
    case .reload:
      budget.reloads -= 1
      let id = nextLoadWaiter
      nextLoadWaiter += 1
      pendingLoads[id] = loadsStarted
      if case .start = machine.loadRequested(waiter: id, sequenceNow: sequence) { startLoad() }
    case .loadReads:
      guard case .started(let number, let startedAt) = load else { return fail("no load started") }
      load = .read(number: number, startedAt: startedAt, value: storeVersion == 0 ? nil : store)
    case .loadResumes:
      guard case .read(let number, let startedAt, let value) = load else { return fail("no load read") }
      endLoad(number: number, startedAt: startedAt, .loaded, value: value ?? 0)
    case .loadFails, .loadDropped:
      budget.loadFailures -= 1
      switch load {
      case .none: return fail("no load runs")
      case .started(let number, let startedAt), .read(let number, let startedAt, _):
        endLoad(number: number, startedAt: startedAt, .failed(TestFailure()), value: nil)
      }
    }
    if machine.isLoading == isLoadIdle {
      fail("the machine says loading is \(machine.isLoading) while the model's load is \(load)")
    }
  }

  private var isLoadIdle: Bool {
    if case .none = load { return true }
    return false
  }

  /// The machine started a load: the model's key begins reading.
  private mutating func startLoad() {
    guard case .none = load else { return fail("a second load started while one ran") }
    loadsStarted += 1
    load = .started(number: loadsStarted, startedAt: sequence)
  }

  /// The running load resumes: the decision, the write of memory and the end of the load happen in one critical
  /// section under the value's lock, as in `Persistence.loadResumed`.
  private mutating func endLoad(number: Int, startedAt: UInt64, _ outcome: Machine.LoadOutcome, value: Int?) {
    var applied: UInt64?
    if let value, machine.loadMayApply(sequenceNow: sequence) {
      checkNoLostChange(applyingReadThatBeganAt: startedAt)
      if let latestLocal, latestLocal.sequence > covered, !failedChanges.contains(latestLocal.sequence) {
        fail("a load replaced change \(latestLocal.sequence) (\(latestLocal.value)), not stored yet")
      }
      memory = value
      sequence += 1
      applied = sequence
      covered = sequence
    }
    let ended = machine.loadEnded(outcome, applied: applied, sequenceNow: sequence)
    load = .none
    resume(ended.flushWaiters)
    for waiter in ended.loadWaiters {
      guard let startedWhenAsked = pendingLoads.removeValue(forKey: waiter) else {
        return fail("load() \(waiter) resumed twice, or was never called")
      }
      if number <= startedWhenAsked {
        fail("load() \(waiter) returned with load \(number), which began before it was called")
      }
    }
    if ended.startNext != nil { startLoad() }
  }

  /// Tells the machine that memory took `change`, a value read from the store.
  private mutating func storeValueApplied(_ change: Machine.Change, read: StoreRead, fromWithinSave: Bool = false) {
    switch machine.storeValueApplied(change, read: read, fromWithinSave: fromWithinSave) {
    case .resume(let waiters):
      // Memory took the store's value, superseding every change before it.
      covered = max(covered, change.sequence)
      resume(waiters)
    case .startSaveTask(let waiters):
      resume(waiters)
      startSaveTask()
    }
  }

  /// A read of the store that began before the program's newest change never replaces that change. Computed from
  /// the model's own record of changes and reads, not from the machine's rules.
  private mutating func checkNoLostChange(applyingReadThatBeganAt readStart: UInt64) {
    if let latestLocal, latestLocal.sequence > readStart {
      fail(
        "a read that began at \(readStart) replaced change \(latestLocal.sequence) (\(latestLocal.value)), made after it"
      )
    }
    newestAppliedReadStart = max(newestAppliedReadStart, readStart)
  }

  private mutating func startSaveTask() {
    guard case .none = saveTask else { return fail("a second save task started") }
    saveTask = .ready
  }

  /// A flush may return only once every change made before it is in the store, or with the error of a save.
  private mutating func resume(_ waiters: [Int]) {
    for waiter in waiters {
      guard let target = pendingFlushes.removeValue(forKey: waiter) else {
        return fail("flush \(waiter) resumed twice")
      }
      if machine.flushResult == nil && covered < target {
        fail("flush \(waiter) for change \(target) returned when the store reflected change \(covered)")
      }
    }
  }

  /// Lets every pending request arrive, every save finish and polls run until nothing changes; then memory must
  /// equal the store, and no flush may still wait.
  /// Whether the last save to end failed.
  private var lastSaveFailed = false

  mutating func settle() {
    for _ in 0..<8 {
      while let event = settlingEvent {
        settlingSteps += 1
        apply(event)
      }
      if machine.failedChangeInMemory {
        // A failed save is tried again by the next save(); one the store's value replaced keeps only its error.
        budget.flushes = 1
        apply(.flush)
        continue
      }
      if machine.loadError != nil {
        // A failed load is tried again by the next load().
        budget.reloads = 1
        apply(.reload)
        continue
      }
      let before = storeVersion
      let knownBefore = known
      budget.polls = 1
      apply(.pollStarts)
      while let event = settlingEvent { apply(event) }
      if storeVersion == before && known == knownBefore && known == storeVersion { break }
    }
    if settlingSteps > 1_000 { fail("the value never went quiet: \(settlingSteps) events while settling") }
    if memory != store { fail("memory \(memory) and store \(store) disagree once quiet") }
    // The program learns its change did not reach the store: a value the store reported since does not hide it.
    if lastSaveFailed && machine.saveError == nil { fail("the last save failed, and no saveError says so") }
    if !lastSaveFailed && savesSucceeded > 0 && machine.saveError != nil {
      fail("a save succeeded last, yet saveError is set")
    }
    if let latestLocal, latestLocal.sequence > newestAppliedReadStart, memory != latestLocal.value {
      fail("change \(latestLocal.sequence) (\(latestLocal.value)) was lost: memory \(memory) once quiet")
    }
    if !pendingFlushes.isEmpty { fail("flushes \(pendingFlushes.keys.sorted()) still wait once quiet") }
    if !pendingLoads.isEmpty { fail("load() calls \(pendingLoads.keys.sorted()) still wait once quiet") }
    if machine.isLoading { fail("still loading once quiet") }
    if case .saving = machine.mode { fail("a save still runs once quiet") }
  }

  private var settlingEvent: Event? {
    if settlingSteps > 1_000 { return nil }
    if !unrequested.isEmpty { return .requestSave(0) }
    switch saveTask {
    case .ready: return .saveTaskReady
    case .saving:
      return echoesEverySave && !echoedThisSave ? .echo(fromWithinSave: trace.count % 2 == 0) : .saveSucceeds
    case .none: break
    }
    switch load {
    case .none: break
    case .started: return .loadReads
    case .read: return .loadResumes
    }
    switch poll {
    case .none: return nil
    case .started: return .pollReads
    case .read: return .pollDecides
    case .applying: return .pollApplies
    }
  }
}

/// Every ordering, up to small budgets, of the events of a persisted value: changes and their save requests (in
/// any order), saves that start, finish and fail, outside changes, polls that start, read, decide and apply, and
/// flushes. After each ordering the value settles: memory must equal the store, and no flush may wait. Along the
/// way, saves never go back to an older change, and a flush returns only after what came before it is stored.
@Suite struct PersistenceStateMachineTests {
  /// Explores every ordering depth-first; returns the number of orderings and the first failure.
  private func explore(_ world: World) -> (orderings: Int, failure: String?) {
    searchEveryOrdering(of: world, endsEveryPrefix: true) { $0.settle() }
  }

  /// Explores on a thread of its own: the search is long and never suspends, so it must not hold a thread of the
  /// shared pool.
  private func exploreOnOwnThread(_ budget: Budget, start: Start = .loaded, echoesEverySave: Bool = false) async -> (
    orderings: Int, failure: String?
  ) {
    var world = World(budget: budget, start: start)
    world.echoesEverySave = echoesEverySave
    return await withCheckedContinuation { [world] continuation in
      let thread = Thread { continuation.resume(returning: explore(world)) }
      thread.stackSize = 8 << 20
      thread.start()
    }
  }

  @Test(.enabled(if: searchesRun, "single-threaded search: skipped under ThreadSanitizer"))
  func everyOrderingOfChangesSavesAPollAFlushAndAFailureEndsWithMemoryEqualToTheStore() async {
    let budget = Budget(localChanges: 2, outsideChanges: 1, polls: 1, flushes: 1, failedSaves: 1)
    let (orderings, failure) = await exploreOnOwnThread(budget)
    #expect(failure == nil, "\(failure ?? "")")
    #expect(orderings > 100_000)
  }

  @Test(.enabled(if: searchesRun, "single-threaded search: skipped under ThreadSanitizer"))
  func everyOrderingOfTwoPollsAgainstChangesAndSavesConverges() async {
    let budget = Budget(localChanges: 2, outsideChanges: 1, polls: 2, flushes: 0, failedSaves: 0)
    let (orderings, failure) = await exploreOnOwnThread(budget)
    #expect(failure == nil, "\(failure ?? "")")
    #expect(orderings > 10_000)
  }

  @Test(.enabled(if: searchesRun, "single-threaded search: skipped under ThreadSanitizer"))
  func everyOrderingWithAStoreUpdateDuringSavesConverges() async {
    // A key that reports its store through `update(_:)` only (its calls are made one after another).
    let budget = Budget(localChanges: 2, outsideChanges: 0, polls: 0, flushes: 1, failedSaves: 1, storeUpdates: 2)
    let (orderings, failure) = await exploreOnOwnThread(budget)
    #expect(failure == nil, "\(failure ?? "")")
    #expect(orderings > 1_000)
  }

  @Test(.enabled(if: searchesRun, "single-threaded search: skipped under ThreadSanitizer"))
  func everyOrderingOfThreeChangesAndTwoFlushesSavesTheNewestLast() async {
    let budget = Budget(localChanges: 3, outsideChanges: 0, polls: 0, flushes: 2, failedSaves: 0)
    let (orderings, failure) = await exploreOnOwnThread(budget)
    #expect(failure == nil, "\(failure ?? "")")
    #expect(orderings > 1_000)
  }

  @Test(.enabled(if: searchesRun, "single-threaded search: skipped under ThreadSanitizer"))
  func everyOrderingWithAStoreThatEchoesEverySaveGoesQuietAndLosesNoChange() async {
    let budget = Budget(
      localChanges: 2, outsideChanges: 0, polls: 0, flushes: 1, failedSaves: 1, storeUpdates: 1, echoes: 2)
    let (orderings, failure) = await exploreOnOwnThread(budget, echoesEverySave: true)
    #expect(failure == nil, "\(failure ?? "")")
    #expect(orderings > 10_000)
  }

  @Test(.enabled(if: searchesRun, "single-threaded search: skipped under ThreadSanitizer"))
  func everyOrderingOfAFirstLoadAgainstChangesSavesAStoreUpdateAndAFlushConverges() async {
    // The first holder's load is in flight: it may read, resume, fail or be dropped at any point.
    let budget = Budget(
      localChanges: 2, outsideChanges: 0, polls: 0, flushes: 1, failedSaves: 1, storeUpdates: 1, loadFailures: 1)
    let (orderings, failure) = await exploreOnOwnThread(budget, start: .loadingStoredValue)
    #expect(failure == nil, "\(failure ?? "")")
    #expect(orderings > 100_000)
  }

  @Test(.enabled(if: searchesRun, "single-threaded search: skipped under ThreadSanitizer"))
  func everyOrderingOfTwoReloadsAgainstAChangeAFailedSaveAndAStoreUpdateConverges() async {
    let budget = Budget(
      localChanges: 1, outsideChanges: 0, polls: 0, flushes: 0, failedSaves: 1, storeUpdates: 1, reloads: 2)
    let (orderings, failure) = await exploreOnOwnThread(budget, start: .loadingStoredValue)
    #expect(failure == nil, "\(failure ?? "")")
    #expect(orderings > 100_000)
  }

  @Test(.enabled(if: searchesRun, "single-threaded search: skipped under ThreadSanitizer"))
  func everyOrderingOfTwoReloadsAgainstAChangeAFlushAndAFailedLoadConverges() async {
    let budget = Budget(
      localChanges: 1, outsideChanges: 0, polls: 0, flushes: 1, failedSaves: 0, reloads: 2, loadFailures: 1)
    let (orderings, failure) = await exploreOnOwnThread(budget, start: .loadingStoredValue)
    #expect(failure == nil, "\(failure ?? "")")
    #expect(orderings > 100_000)
  }

  @Test(.enabled(if: searchesRun, "single-threaded search: skipped under ThreadSanitizer"))
  func everyOrderingOfALoadThatFindsNothingAgainstAChangeAStoreUpdateAndAReloadNeverSavesTheDefault() async {
    let budget = Budget(
      localChanges: 1, outsideChanges: 0, polls: 0, flushes: 0, failedSaves: 1, storeUpdates: 1, reloads: 1,
      loadFailures: 1)
    let (orderings, failure) = await exploreOnOwnThread(budget, start: .loadingNothing)
    #expect(failure == nil, "\(failure ?? "")")
    #expect(orderings > 10_000)
  }

  @Test(.enabled(if: searchesRun, "single-threaded search: skipped under ThreadSanitizer"))
  func everyOrderingOfALoadThatFindsNothingAgainstAnOutsideChangeAndAPollNeverSavesTheDefault() async {
    let budget = Budget(localChanges: 1, outsideChanges: 1, polls: 1, flushes: 0, failedSaves: 0, loadFailures: 1)
    let (orderings, failure) = await exploreOnOwnThread(budget, start: .loadingNothing)
    #expect(failure == nil, "\(failure ?? "")")
    #expect(orderings > 10_000)
  }

  /// Longer random orderings than the exhaustive tests reach; a failure names its seed.
  @Test(
    .enabled(if: searchesRun, "single-threaded search: skipped under ThreadSanitizer"),
    arguments: [UInt64(1), 2, 3, 4])
  func seededRandomOrderingsConverge(seed: UInt64) async {
    if let failure = await withCheckedContinuation({ continuation in
      Thread { continuation.resume(returning: randomOrderings(seed: seed)) }.start()
    }) {
      Issue.record("\(failure)")
    }
  }

  private func randomOrderings(seed: UInt64) -> String? {
    var generator = SplitMix(seed: seed)
    for run in 0..<3_000 {
      // Odd runs model a file key (outside changes found by polls), even runs a key that reports its store through
      // `update(_:)` one call after another; every third run loads asynchronously and reloads.
      let loads = run.isMultiple(of: 3)
      let budget =
        run.isMultiple(of: 2)
        ? Budget(
          localChanges: 5, outsideChanges: 0, polls: 0, flushes: 3, failedSaves: 2, storeUpdates: 4, echoes: 3,
          reloads: loads ? 3 : 0, loadFailures: loads ? 2 : 0)
        : Budget(
          localChanges: 5, outsideChanges: 3, polls: 5, flushes: 3, failedSaves: 2, storeUpdates: 0,
          reloads: loads ? 3 : 0, loadFailures: loads ? 2 : 0)
      let start: Start = !loads ? .loaded : run.isMultiple(of: 4) ? .loadingNothing : .loadingStoredValue
      var world = World(budget: budget, start: start)
      while world.failure == nil, !world.enabled.isEmpty {
        let events = world.enabled
        world.apply(events[Int(generator.next() % UInt64(events.count))])
      }
      world.settle()
      if let failure = world.failure { return "seed \(seed), run \(run): \(failure)" }
    }
    return nil
  }

  /// The two orderings of the reported defects, spelled out.
  @Test func aDelayedOlderRequestIsIgnored() {
    var world = World(budget: Budget(localChanges: 2, outsideChanges: 0, polls: 0, flushes: 0, failedSaves: 0))
    for event: World.Event in [.localChange, .localChange, .requestSave(1), .saveTaskReady, .saveSucceeds] {
      world.apply(event)
    }
    world.apply(.requestSave(0))
    #expect(world.store == 2)
    guard case .none = world.saveTask else {
      Issue.record("the older request started a save")
      return
    }
    world.settle()
    #expect(world.failure == nil, "\(world.failure ?? "")")
  }

  /// A poll begins, a change is made whose save request is delayed, and the poll's older value comes in: it must
  /// not replace the change.
  @Test func aPollThatBeganBeforeAChangeWhoseRequestIsDelayedDoesNotReplaceIt() {
    var world = World(budget: Budget(localChanges: 1, outsideChanges: 1, polls: 1, flushes: 0, failedSaves: 0))
    let events: [World.Event] = [.outsideChange, .pollStarts, .localChange, .pollReads, .pollDecides]
    for event in events { world.apply(event) }
    while let event = world.enabled.first(where: { $0 == .pollApplies || $0 == .requestSave(0) }) {
      world.apply(event)
    }
    #expect(world.failure == nil, "\(world.failure ?? "")")
    #expect(world.memory == 1)
    world.settle()
    #expect(world.failure == nil, "\(world.failure ?? "")")
    #expect(world.store == 1)
  }

  @Test func aPollThatReadBeforeALocalSaveIsDiscarded() {
    var world = World(budget: Budget(localChanges: 1, outsideChanges: 1, polls: 1, flushes: 0, failedSaves: 0))
    let events: [World.Event] = [
      .outsideChange, .pollStarts, .pollReads, .localChange, .requestSave(0), .saveTaskReady, .saveSucceeds,
      .pollDecides,
    ]
    for event in events { world.apply(event) }
    guard case .none = world.poll else {
      Issue.record("the poll's older value was applied")
      return
    }
    #expect(world.memory == 1)
    #expect(world.store == 1)
    world.settle()
    #expect(world.failure == nil, "\(world.failure ?? "")")
  }

  /// The first holder's load is in flight when the program changes the value: the change wins, and is saved.
  @Test func aChangeMadeWhileTheFirstLoadRunsWinsOverTheLoadedValue() {
    var world = World(
      budget: Budget(localChanges: 1, outsideChanges: 0, polls: 0, flushes: 0, failedSaves: 0),
      start: .loadingStoredValue)
    for event: World.Event in [.localChange, .loadReads, .loadResumes] { world.apply(event) }
    #expect(world.memory == 1)
    #expect(!world.machine.isLoading)
    world.settle()
    #expect(world.failure == nil, "\(world.failure ?? "")")
    #expect(world.store == 1)
  }

  /// A change not saved yet when a `load()` begins is not replaced by what the load finds.
  @Test func aReloadLeavesAChangeThatWaitsToBeSaved() {
    var world = World(
      budget: Budget(localChanges: 1, outsideChanges: 0, polls: 0, flushes: 0, failedSaves: 0, reloads: 1))
    for event: World.Event in [.localChange, .requestSave(0), .reload, .loadReads, .loadResumes] { world.apply(event) }
    #expect(world.memory == 1)
    #expect(world.pendingLoads.isEmpty)
    world.settle()
    #expect(world.failure == nil, "\(world.failure ?? "")")
    #expect(world.store == 1)
  }

  /// A `load()` made while the first load runs waits for a second load, which starts when the first ends.
  @Test func aReloadDuringTheFirstLoadWaitsForTheNextOne() {
    var world = World(
      budget: Budget(localChanges: 0, outsideChanges: 0, polls: 0, flushes: 0, failedSaves: 0, reloads: 1),
      start: .loadingStoredValue)
    for event: World.Event in [.reload, .loadReads, .loadResumes] { world.apply(event) }
    #expect(world.memory == 50)
    #expect(world.pendingLoads.count == 1)
    #expect(world.loadsStarted == 2)
    for event: World.Event in [.loadReads, .loadResumes] { world.apply(event) }
    #expect(world.pendingLoads.isEmpty)
    #expect(world.failure == nil, "\(world.failure ?? "")")
  }
}
