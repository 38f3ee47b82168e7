/// The decisions of one persisted value: which change to save next, when a save may start, whether a value read
/// from the store may be applied, when a load may start and what its outcome does, and when a `save()` or `load()`
/// may return.
///
/// Every change (made in the program or read from the store) carries a number taken under the value's lock, so
/// numbers follow the order in which the changes reached memory. The machine keeps four promises:
/// - **The newest value is stored last.** A save request for a change older than one already accepted is ignored,
///   so a request delayed (by a slow observer, say) never overwrites a newer value.
/// - **Memory and store converge.** A value read from the store is not applied if a save started since the read
///   began, or a change was made since (whether or not its save request arrived): the store then holds, or will
///   hold, the program's newer value. A store
///   value applied while a save may still write an older one is saved again after it.
/// - **`save()` waits for what came before it.** A flush for change number `n` returns once every change up to `n`
///   is in the store (saved, superseded by a value read from the store, or failed with an error).
/// - **A load never undoes the program, and never saves.** Loads run one at a time; a `load()` waits for a load
///   that began after it was called. A load's value replaces memory only if nothing changed since the load began and
///   no change of the program waits to be saved or is being saved: the store then holds, or will hold, the program's
///   value. An applied value is what the store holds, so nothing is saved for it (the default a load falls back to
///   is never saved).
///
/// It only decides: the caller holds the lock around each event and performs the returned action after releasing
/// it (start or wake the save task, call the key, resume waiters). It has no tasks and no clocks, so tests drive it
/// through every ordering of its events.
struct PersistenceStateMachine<Value, Waiter> {
  /// A value to save, and the number of the change that made it.
  struct Change {
    var value: Value
    var sequence: UInt64
  }

  /// What the save task is doing.
  enum Mode {
    /// There is no save task: nothing waits to be saved.
    case idle
    /// The save task waits its delay (or is about to ask for work) before saving `pending`; `nil` once a value read
    /// from the store superseded it.
    case scheduled(pending: Change?)
    /// The save task runs the key's save of `current`; `next` is a newer change to save after it.
    case saving(current: Change, next: Change?)

    var isSaving: Bool {
      if case .saving = self { return true }
      return false
    }
  }

  /// What to do after a save request.
  enum ChangeAction {
    /// Nothing: the change is older than one already accepted, or a save task will pick it up.
    case none
    /// Start the save task.
    case startSaveTask
  }

  /// What the save task does when it is ready for work.
  enum SaveTaskAction {
    /// Call the key's save with this change, then report ``PersistenceStateMachine/saveFinished(error:)``.
    case save(Change)
    /// End the task after resuming these waiters.
    case finish(resume: [Waiter])
  }

  /// What the save task does after a save.
  enum SaveFinishedAction {
    /// Resume these waiters, then wait the delay (unless a flush waits) and ask for work again.
    case continueSaving(resume: [Waiter])
    /// Resume these waiters and end the task.
    case finish(resume: [Waiter])
  }

  /// What a flush does.
  enum FlushAction {
    /// Everything before it is in the store: resume the waiter now.
    case resumeNow(Waiter)
    /// Keep waiting; when `wakeSaveTask` is set, cut the save task's delay short.
    case wait(wakeSaveTask: Bool)
    /// Keep waiting, and start the save task (it saves again after a failed save).
    case waitAndStartSaveTask
  }

  /// Whether a value read from the store may be applied.
  enum StoreReadAction: Equatable {
    /// Apply it, then report ``PersistenceStateMachine/storeValueApplied(_:read:)``.
    case apply
    /// Drop it: the store holds, or will hold, a newer value of the program. Read the store again later.
    case discard
  }

  /// What to do after a value read from the store was applied.
  enum StoreAppliedAction {
    /// Resume these waiters.
    case resume([Waiter])
    /// Resume these waiters and start the save task: a save may have written an older value over the store's.
    case startSaveTask(resume: [Waiter])
  }

  /// The key's load, one at a time.
  enum LoadPhase {
    /// No load runs.
    case idle
    /// A load runs, begun at `read`; `waiters` wait for its outcome, `queued` for the load after it (they asked
    /// after this one began).
    case loading(read: StoreRead, waiters: [Waiter], queued: [Waiter])
  }

  /// What to do after a load was asked for.
  enum LoadRequestAction {
    /// Call the key's load; its value is checked against `read`.
    case start(StoreRead)
    /// Wait: a load runs, and the next one starts when it ends.
    case wait
  }

  /// How a load ended, as far as the machine needs to know.
  enum LoadOutcome {
    /// The key resumed with a value, or with `nil` (the default stands in for it).
    case loaded
    /// The key resumed with an error, or dropped its continuation.
    case failed(any Error)
  }

  /// What to do after a load ended.
  struct LoadEndedAction {
    /// The load's `load()` callers, to resume with the load's error (`nil` when it read the store).
    var loadWaiters: [Waiter]
    /// `save()` callers whose changes the applied value superseded.
    var flushWaiters: [Waiter]
    /// Call the key's load again, for the callers that asked during this one; its value is checked against this.
    var startNext: StoreRead?
  }

  private(set) var mode: Mode = .idle
  /// The number of the newest change accepted, from the program or from the store.
  private(set) var newestSequence: UInt64 = 0
  /// Every change up to this number is in the store: saved (or failed), or superseded by a value from the store.
  private(set) var storedSequence: UInt64 = 0
  /// How many saves have started.
  private(set) var savesStarted: UInt64 = 0
  private var flushWaiters: [(target: UInt64, waiter: Waiter)] = []
  /// Why the store could not be read, until a read or save succeeds.
  private(set) var loadError: (any Error)?
  /// Why the last save failed, until one succeeds.
  private(set) var saveError: (any Error)?
  /// The change whose save failed is still what memory holds: the next `save()` writes it again. A value from the
  /// store that replaced it leaves nothing to write again (its error stays, see ``saveError``).
  private(set) var failedChangeInMemory = false
  /// What keeps the value alive while a save is pending, so a new holder finds it instead of reloading the store.
  private var keepAlive: (any AnyObject & Sendable)?
  /// The key's load.
  private(set) var load = LoadPhase.idle
  /// Whether two values are known to be equal (`false` when they cannot be compared).
  private let sameValue: @Sendable (Value, Value) -> Bool

  /// A machine that compares values with `sameValue`, which answers `false` for values it cannot compare.
  init(sameValue: @escaping @Sendable (Value, Value) -> Bool = { _, _ in false }) {
    self.sameValue = sameValue
  }

  /// How many flushes wait.
  var flushWaiterCount: Int { flushWaiters.count }

  /// What an event may let go of: values, errors, and what keeps the value alive.
  struct Held {
    let mode: Mode
    let loadError: (any Error)?
    let saveError: (any Error)?
    let keepAlive: (any AnyObject & Sendable)?
  }

  /// A copy of what an event may let go of, for the caller to release after its lock. Copying the whole machine
  /// instead would also copy the waiters on the next change of that list, once per event.
  var held: Held { Held(mode: mode, loadError: loadError, saveError: saveError, keepAlive: keepAlive) }

  // MARK: Changes made in the program

  /// The program changed the value (change number `change.sequence`) and asks for it to be saved.
  mutating func changeRequested(_ change: Change, owner: any AnyObject & Sendable) -> ChangeAction {
    guard change.sequence > newestSequence else { return .none }
    newestSequence = change.sequence
    if keepAlive == nil { keepAlive = owner }
    switch mode {
    case .idle:
      mode = .scheduled(pending: change)
      return .startSaveTask
    case .scheduled:
      mode = .scheduled(pending: change)
      return .none
    case .saving(let current, _):
      mode = .saving(current: current, next: change)
      return .none
    }
  }

  /// Whether the save task waits its delay before asking for work: only with something to save and no flush
  /// waiting.
  var saveTaskWaitsForDelay: Bool {
    guard case .scheduled(pending: .some) = mode else { return false }
    return flushWaiters.isEmpty
  }

  /// The newest change the store may not hold yet, for the flush at exit to write on the exiting thread: the one
  /// waiting for its delay, or, while a save runs, the one after it or else the one it saves (that save may not
  /// have reached the store, and the store skips a change it holds already). `nil` when nothing waits to be saved;
  /// a change whose save failed is not written again at exit (``saveError`` told the program).
  ///
  /// It changes nothing: the process is ending, and a second flush (at a signal, then at exit) asks again and finds
  /// the same change, which the store then skips.
  var newestUnsavedChange: Change? {
    switch mode {
    case .idle, .scheduled(pending: nil): return nil
    case .scheduled(pending: let pending?): return pending
    case .saving(let current, let next): return next ?? current
    }
  }

  /// The save task is ready for work (its delay passed or was cut short).
  mutating func saveTaskReady() -> SaveTaskAction {
    switch mode {
    case .scheduled(pending: let pending?):
      mode = .saving(current: pending, next: nil)
      savesStarted += 1
      return .save(pending)
    case .scheduled(pending: nil):
      // A pending change superseded by the store's value: nothing left to save.
      mode = .idle
      keepAlive = nil
      return .finish(resume: takeReadyWaiters())
    case .idle, .saving:
      preconditionFailure("only the save task asks for work, and only while scheduled: \(mode)")
    }
  }

  /// What a `save()` that returns now reports: the failed save's error while its change is still what memory holds
  /// (the call's changes did not reach the store); `nil` once they are stored or replaced by the store's own value,
  /// even while ``saveError`` still tells the program that its change was not saved.
  var flushResult: (any Error)? { failedChangeInMemory ? saveError : nil }

  /// The program read the save error and clears it (``Shared/clearSaveError()``); the next failed save sets it again.
  mutating func saveErrorCleared() {
    saveError = nil
  }

  /// The key's save of the current change returned, with `error` if it failed.
  mutating func saveFinished(error: (any Error)?) -> SaveFinishedAction {
    guard case .saving(let current, let next) = mode else {
      preconditionFailure("a save finished while none ran: \(mode)")
    }
    storedSequence = max(storedSequence, current.sequence)
    saveError = error
    failedChangeInMemory = error != nil
    if error == nil { loadError = nil }
    let ready = takeReadyWaiters()
    if let next {
      mode = .scheduled(pending: next)
      return .continueSaving(resume: ready)
    }
    mode = .idle
    keepAlive = nil
    return .finish(resume: ready)
  }

  /// A `save()` asks to return once every change up to number `target` is in the store. `current` is the value
  /// in memory, read after `target` was taken.
  mutating func flushRequested(target: UInt64, current: Value, waiter: Waiter) -> FlushAction {
    switch mode {
    case .idle:
      if failedChangeInMemory && newestSequence <= target {
        // The last save failed and nothing changed since: save what memory holds again.
        let retry = Change(value: current, sequence: target)
        newestSequence = target
        mode = .scheduled(pending: retry)
        flushWaiters.append((target, waiter))
        return .waitAndStartSaveTask
      }
      if storedSequence >= target { return .resumeNow(waiter) }
      // A change made before the flush has not asked to be saved yet: wait for it.
      flushWaiters.append((target, waiter))
      return .wait(wakeSaveTask: false)
    case .scheduled:
      flushWaiters.append((target, waiter))
      return .wait(wakeSaveTask: true)
    case .saving:
      if storedSequence >= target { return .resumeNow(waiter) }
      flushWaiters.append((target, waiter))
      return .wait(wakeSaveTask: false)
    }
  }

  // MARK: Values read from the store

  /// A read of the store begins; `sequence` is the newest change number now.
  func storeReadStarted(at sequence: UInt64) -> StoreRead {
    StoreRead(sequence: sequence, savesStarted: savesStarted, duringSave: mode.isSaving)
  }

  /// A read of the store that began at `read` returned a value: decides whether to apply it. `sequenceNow` is the
  /// newest change number, taken under the value's lock in the same critical section that then writes the value:
  /// every change of the program takes its number under that lock, so a change made since the read began is seen
  /// here even if its save request has not arrived yet (a slow observer may hold it).
  func storeReadFinished(_ read: StoreRead, sequenceNow: UInt64) -> StoreReadAction {
    if mayHaveSavedSince(read) || sequenceNow != read.sequence { return .discard }
    return .apply
  }

  /// The store reports `value` without a read of its own (``SharedKeyContext/update(_:)``) while memory may hold
  /// changes up to number `sequenceNow`: whether to leave memory alone because the report is the running save's own
  /// echo (reported from inside the save, or equal to the value being saved) and the program changed the value
  /// since that save's change. Memory then holds the newer change, which is saved after this save.
  func storeReportIsStaleEcho(_ value: Value, fromWithinSave: Bool, sequenceNow: UInt64) -> Bool {
    guard case .saving(let current, _) = mode, sequenceNow > current.sequence else { return false }
    return fromWithinSave || sameValue(value, current.value)
  }

  /// A value read from the store (`change`) is now in memory. `read` says when it was read; `fromWithinSave` says
  /// the key reported it from inside its own running save (it is then what the store holds after that save).
  ///
  /// A value reported while a save runs is normally saved again after it, since the save may still write an older
  /// value over it. It is not when it is that save's own echo: reported from inside the save, or equal to the value
  /// being saved (whichever write lands last, the store holds it). A store that reports every write of the program,
  /// its own echo included, is then saved once per change, not forever.
  mutating func storeValueApplied(_ change: Change, read: StoreRead, fromWithinSave: Bool = false)
    -> StoreAppliedAction
  {
    loadError = nil
    // A change of the program made after this value reached memory (or a retry of what memory held) was accepted:
    // it is saved after anything older, so this value needs no save of its own.
    let supersededByTheProgram = newestSequence >= change.sequence
    newestSequence = max(newestSequence, change.sequence)
    guard mayHaveSavedSince(read) else {
      // Memory now equals the store; an older unsaved change is superseded. A failed one keeps its error: the
      // program's change did not reach the store, and it learns so until a save succeeds or it clears the error.
      storedSequence = max(storedSequence, change.sequence)
      failedChangeInMemory = false
      if case .scheduled(pending: let pending?) = mode, pending.sequence < change.sequence {
        mode = .scheduled(pending: nil)
      }
      return .resume(takeReadyWaiters())
    }
    // A save that began before this value came in may write an older value over it: save this one after it.
    if supersededByTheProgram { return .resume([]) }
    switch mode {
    case .idle:
      mode = .scheduled(pending: change)
      return .startSaveTask(resume: [])
    case .scheduled(let pending):
      if (pending?.sequence ?? 0) < change.sequence { mode = .scheduled(pending: change) }
      return .resume([])
    case .saving(let current, let next):
      let reportsThisSave = read.duringSave && read.savesStarted == savesStarted
      if reportsThisSave && (fromWithinSave || sameValue(change.value, current.value)) {
        // The store holds what this save writes: once it finishes, memory and store agree up to this change, and
        // a pending change older than it is superseded.
        let covering = Change(value: current.value, sequence: max(current.sequence, change.sequence))
        mode = .saving(current: covering, next: (next?.sequence ?? 0) > change.sequence ? next : nil)
        return .resume([])
      }
      if (next?.sequence ?? 0) < change.sequence { mode = .saving(current: current, next: change) }
      return .resume([])
    }
  }

  // MARK: Loads

  /// Whether a load runs.
  var isLoading: Bool {
    if case .loading = load { return true }
    return false
  }

  /// How many `load()` calls wait, for the running load or the next one.
  var loadWaiterCount: Int {
    guard case .loading(_, let waiters, let queued) = load else { return 0 }
    return waiters.count + queued.count
  }

  /// A load is asked for: by the first holder (`waiter` is `nil`), or by a `load()`. `sequenceNow` is the newest
  /// change number. With a load running, the caller waits for the next one, which starts when it ends: every
  /// `load()` waits for a load that began after it was called.
  mutating func loadRequested(waiter: Waiter?, sequenceNow: UInt64) -> LoadRequestAction {
    switch load {
    case .idle:
      let read = storeReadStarted(at: sequenceNow)
      load = .loading(read: read, waiters: waiter.map { [$0] } ?? [], queued: [])
      return .start(read)
    case .loading(let read, let waiters, var queued):
      guard let waiter else { preconditionFailure("only the first holder's load comes without a caller") }
      queued.append(waiter)
      load = .loading(read: read, waiters: waiters, queued: queued)
      return .wait
    }
  }

  /// The running load read the store: whether its value may replace memory. Asked under the value's lock, in the
  /// critical section that then writes the value, with `sequenceNow` the newest change number taken there.
  ///
  /// Only if nothing changed since the load began, no save started since, and no change of the program waits to be
  /// saved or is being saved (a failed one aside: the store's value supersedes it, as any value read from the store
  /// does). A change whose save request has not arrived yet (a slow observer may hold it) took a number above the
  /// newest one accepted, so it counts as waiting too. The program's change then wins, and is saved as usual.
  func loadMayApply(sequenceNow: UInt64) -> Bool {
    guard case .loading(let read, _, _) = load else { preconditionFailure("a load ended while none ran: \(load)") }
    guard sequenceNow == newestSequence else { return false }
    switch mode {
    case .idle, .scheduled(pending: nil): return storeReadFinished(read, sequenceNow: sequenceNow) == .apply
    case .scheduled(pending: .some), .saving: return false
    }
  }

  /// The running load ended with `outcome`. `applied` is the change that put its value in memory (when
  /// ``loadMayApply(sequenceNow:)`` allowed it), made in the same critical section, under the value's lock;
  /// `sequenceNow` is the newest change number after it.
  ///
  /// The load's error is kept (a success clears it). An applied value is what the store holds: every change up to
  /// it is in the store, and nothing is saved for it.
  mutating func loadEnded(_ outcome: LoadOutcome, applied: UInt64?, sequenceNow: UInt64) -> LoadEndedAction {
    guard case .loading(_, let waiters, let queued) = load else {
      preconditionFailure("a load ended while none ran: \(load)")
    }
    switch outcome {
    case .loaded: loadError = nil
    case .failed(let error): loadError = error
    }
    var flushWaiters: [Waiter] = []
    if let applied {
      precondition(applied > newestSequence, "a loaded value is the newest change when it is applied")
      newestSequence = applied
      storedSequence = applied
      failedChangeInMemory = false
      flushWaiters = takeReadyWaiters()
    }
    guard !queued.isEmpty else {
      load = .idle
      return LoadEndedAction(loadWaiters: waiters, flushWaiters: flushWaiters, startNext: nil)
    }
    let read = storeReadStarted(at: sequenceNow)
    load = .loading(read: read, waiters: queued, queued: [])
    return LoadEndedAction(loadWaiters: waiters, flushWaiters: flushWaiters, startNext: read)
  }

  // MARK: Errors

  /// The store could not be read (or reads fine again, with `nil`).
  mutating func loadErrorReported(_ error: (any Error)?) {
    loadError = error
  }

  // MARK: Helpers

  private func mayHaveSavedSince(_ read: StoreRead) -> Bool {
    read.duringSave || savesStarted != read.savesStarted || mode.isSaving
  }

  private mutating func takeReadyWaiters() -> [Waiter] {
    guard !flushWaiters.isEmpty else { return [] }
    // One pass, with no key path: in this generic code a key path would be made anew on every call.
    var ready: [Waiter] = []
    var waiting = flushWaiters
    waiting.removeAll(keepingCapacity: true)
    for entry in flushWaiters {
      if entry.target <= storedSequence { ready.append(entry.waiter) } else { waiting.append(entry) }
    }
    flushWaiters = waiting
    return ready
  }
}

extension PersistenceStateMachine: Sendable where Value: Sendable, Waiter: Sendable {}
extension PersistenceStateMachine.Change: Sendable where Value: Sendable {}
extension PersistenceStateMachine.Mode: Sendable where Value: Sendable {}
extension PersistenceStateMachine.SaveTaskAction: Sendable where Value: Sendable, Waiter: Sendable {}
extension PersistenceStateMachine.SaveFinishedAction: Sendable where Waiter: Sendable {}
extension PersistenceStateMachine.FlushAction: Sendable where Waiter: Sendable {}
extension PersistenceStateMachine.StoreAppliedAction: Sendable where Waiter: Sendable {}
extension PersistenceStateMachine.LoadPhase: Sendable where Waiter: Sendable {}
extension PersistenceStateMachine.LoadRequestAction: Sendable {}
extension PersistenceStateMachine.LoadOutcome: Sendable {}
extension PersistenceStateMachine.LoadEndedAction: Sendable where Waiter: Sendable {}
extension PersistenceStateMachine.ChangeAction: Sendable {}
extension PersistenceStateMachine.StoreReadAction: Sendable {}
