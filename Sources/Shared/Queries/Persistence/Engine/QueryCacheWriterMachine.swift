/// When the persisted query cache is written: a change waits for a throttle interval, so that many changes make one
/// write; one write runs at a time; a flush writes at once and resumes its caller once everything changed before it
/// is written.
///
/// A value type with one mutating method per event, each returning a named action; the caller holds the engine's
/// lock around the call and acts (starts the timer, starts the write, resumes the waiters) after releasing it. The
/// machine knows nothing of clocks, tasks or files, so that its tests drive it through every ordering of its events.
/// Changes are numbered: a write covers every change numbered up to the one that was newest when it started, and a
/// flush waits for a write that covers the newest change at the time it was asked.
struct QueryCacheWriterMachine<Waiter> {
  /// What the writer is doing.
  enum Phase: Equatable {
    /// Nothing waits to be written, or a write failed and the next change or flush writes again.
    case idle
    /// A change waits for the timer `timer` to end.
    case waiting(timer: UInt64)
    /// A write of every change up to `covers` runs; `then` says what follows it.
    case writing(covers: UInt64, then: AfterWrite)
  }

  /// What follows the write under way.
  enum AfterWrite: Equatable {
    /// Nothing: no change came during the write.
    case rest
    /// Changes came during the write: they wait for a new throttle interval.
    case waitAgain
    /// A flush waits for changes the write does not cover: the next write starts as this one ends.
    case writeAtOnce
  }

  /// A flush waiting for a write, with the newest change it waits for.
  private struct Flush {
    var id: UInt64
    var waiter: Waiter
    var through: UInt64
  }

  private(set) var phase = Phase.idle
  /// The number of the newest change.
  private(set) var latestChange: UInt64 = 0
  /// The newest change a successful write covered.
  private(set) var written: UInt64 = 0
  private var flushes: [Flush] = []
  private var timers: UInt64 = 0

  init() {}

  /// Whether a change is not written yet (waiting, being written, or after a failed write).
  var hasUnwrittenChanges: Bool { written < latestChange }

  enum ChangeAction: Equatable {
    /// Start the timer `timer`; when it ends, call ``timerEnded(_:)`` with it.
    case startTimer(UInt64)
    /// A timer runs already, or a write that follows will cover the change.
    case none
  }

  /// The cache changed.
  mutating func changed() -> ChangeAction {
    latestChange += 1
    switch phase {
    case .idle:
      timers += 1
      phase = .waiting(timer: timers)
      return .startTimer(timers)
    case .waiting:
      return .none
    case .writing(let covers, .rest):
      phase = .writing(covers: covers, then: .waitAgain)
      return .none
    case .writing:
      return .none
    }
  }

  enum TimerAction: Equatable {
    /// Write now: call ``writeEnded(succeeded:)`` when the write ends.
    case write
    /// The timer was overtaken (by a flush): nothing to do.
    case none
  }

  /// The timer `timer` ended.
  mutating func timerEnded(_ timer: UInt64) -> TimerAction {
    guard phase == .waiting(timer: timer) else { return .none }
    phase = .writing(covers: latestChange, then: .rest)
    return .write
  }

  enum FlushAction: Equatable {
    /// Nothing is unwritten: resume the caller now.
    case resume
    /// Write now (cancelling the timer `cancellingTimer`, if any); the caller waits for that write.
    case write(cancellingTimer: UInt64?)
    /// The caller waits for the write under way, or the one that follows it at once.
    case wait
  }

  /// A caller asks for everything changed so far to be written, and waits with `waiter` (identified by `id`).
  mutating func flushRequested(_ id: UInt64, waiter: Waiter) -> FlushAction {
    switch phase {
    case .idle:
      guard hasUnwrittenChanges else { return .resume }
      flushes.append(Flush(id: id, waiter: waiter, through: latestChange))
      phase = .writing(covers: latestChange, then: .rest)
      return .write(cancellingTimer: nil)
    case .waiting(let timer):
      flushes.append(Flush(id: id, waiter: waiter, through: latestChange))
      phase = .writing(covers: latestChange, then: .rest)
      return .write(cancellingTimer: timer)
    case .writing(let covers, _):
      flushes.append(Flush(id: id, waiter: waiter, through: latestChange))
      if latestChange > covers { phase = .writing(covers: covers, then: .writeAtOnce) }
      return .wait
    }
  }

  enum CancelAction {
    /// Resume the caller's waiter as cancelled.
    case resumeCancelled(Waiter)
    /// Its waiter was resumed already.
    case none
  }

  /// The caller of flush `id` was cancelled: it stops waiting (the write it asked for goes on).
  mutating func flushCancelled(_ id: UInt64) -> CancelAction {
    guard let index = flushes.firstIndex(where: { $0.id == id }) else { return .none }
    return .resumeCancelled(flushes.remove(at: index).waiter)
  }

  /// What follows the end of a write.
  struct WriteEndAction {
    /// Flushes the write covered, to resume: with success if it succeeded, with its error otherwise.
    var resumed: [Waiter]
    /// What to start next.
    var next: Next
  }

  enum Next: Equatable {
    case none
    /// Start the timer `timer`, as ``ChangeAction/startTimer(_:)``.
    case startTimer(UInt64)
    /// Write again now.
    case write
  }

  /// The write under way ended: it succeeded or failed.
  mutating func writeEnded(succeeded: Bool) -> WriteEndAction {
    guard case .writing(let covers, let then) = phase else { return WriteEndAction(resumed: [], next: .none) }
    if succeeded { written = max(written, covers) }
    let resumed = flushes.filter { $0.through <= covers }.map(\.waiter)
    flushes.removeAll { $0.through <= covers }
    switch then {
    case .rest:
      phase = .idle
      return WriteEndAction(resumed: resumed, next: .none)
    case .waitAgain:
      timers += 1
      phase = .waiting(timer: timers)
      return WriteEndAction(resumed: resumed, next: .startTimer(timers))
    case .writeAtOnce:
      phase = .writing(covers: latestChange, then: .rest)
      return WriteEndAction(resumed: resumed, next: .write)
    }
  }
}
