import Foundation

/// The decisions of a ``MutationQueue``: which entry runs, when the file is written, when a flush is answered.
///
/// A value type with one mutating method per event, each returning the effects the caller performs after releasing
/// its lock (start a run, write the file, wait out a backoff, resume flushes, undo a discarded entry's optimistic
/// changes). It holds no task, clock or file: the queue acts on its effects and reports back with the next event.
///
/// The rules it keeps:
/// - Entries run one at a time, in the order they were queued; a failing entry is retried (after a backoff) and
///   the entries behind it wait, so none is ever skipped.
/// - An entry runs only once the queue is restored, online, and a write that holds the entry has ended: a run the
///   server may have seen is always in the file, so a restart runs it again (at least once).
/// - An entry leaves the queue only when its run succeeded (or the program discards it), and the next one starts
///   only once a write without it has ended: after a kill, at most the entry that was running runs again.
/// - One write at a time; a change made while one is under way is written by the next, which starts as it ends.
/// - Nothing is written before the queue is restored, so the entries of an earlier run are never overwritten unread.
/// - A status report older than the one applied (by its sequence number) is ignored, so reports that arrive out of
///   order end on the newest.
struct MutationQueueStateMachine<Waiter> {
  typealias Entry = MutationQueueEntry

  /// Whether the entries of an earlier run were read back yet.
  enum Phase: Equatable {
    /// Not yet: entries queued meanwhile wait, and nothing is written.
    case restoring
    /// Restored: entries run and the file is written.
    case ready
  }

  /// What the entry at the front of the queue is doing.
  enum Head: Equatable {
    /// Nothing runs: the queue is empty, offline, or its first entry cannot run yet.
    case idle
    /// The first entry, `id`, runs.
    case running(UUID)
    /// The first entry, `id`, failed for the `failures`-th time and waits out its backoff.
    case retrying(UUID, failures: Int)
    /// The first entry succeeded or was discarded, and left; the next starts once a write of revision `through` or
    /// later has ended.
    case removing(through: UInt64)
  }

  /// The file's writer.
  enum Writer: Equatable {
    case idle
    /// A write of the contents at `revision` is under way.
    case writing(revision: UInt64)
  }

  /// What the caller does after an event, once its lock is released.
  enum Effect {
    /// Write `entries`, the queue's contents at `revision`, then report ``writeEnded(revision:error:)``.
    case write(revision: UInt64, entries: [Entry])
    /// Run `entry` (its ``Entry/attempts`` is this attempt's number), then report ``succeeded(_:)`` or
    /// ``failed(_:error:)``.
    case start(Entry)
    /// Wait out the backoff before the entry's retry, then report ``backoffEnded(_:failures:)``.
    case backoff(id: UUID, failures: Int)
    /// The backoff of entry `id` is no longer waited for: stop waiting.
    case stopBackoff(id: UUID)
    /// Resume these flushes, with the error of the write that answered them (or `nil`).
    case resumeFlushes([Waiter], error: HashableError?)
    /// Entry `id` left without succeeding: undo its optimistic changes.
    case undo(id: UUID)
  }

  private(set) var phase = Phase.restoring
  /// The queued entries, in order; the first is the one that runs.
  private(set) var entries: [Entry] = []
  private(set) var head = Head.idle
  private(set) var isOnline: Bool
  /// The sequence number of the status report applied last.
  private(set) var statusSequence: UInt64 = 0
  /// The revision of the queue's contents: raised by every change the file must hold.
  private(set) var revision: UInt64 = 0
  private(set) var writer = Writer.idle
  /// The newest revision whose write ended, whether it succeeded or failed.
  private(set) var writtenRevision: UInt64 = 0
  /// The newest revision whose write succeeded: what the file holds.
  private(set) var durableRevision: UInt64 = 0
  /// The error of the latest write, until one succeeds.
  private(set) var saveError: HashableError?
  /// The flushes waiting for the contents at `revision` to be written.
  private var flushes: [(revision: UInt64, waiter: Waiter)] = []

  init(isOnline: Bool) {
    self.isOnline = isOnline
  }

  /// How many flushes wait.
  var waitingFlushes: Int { flushes.count }

  /// Whether entry `entry` is in the file.
  func isSaved(_ entry: Entry) -> Bool {
    entry.revision <= durableRevision
  }

  // MARK: Events

  /// The program queued `entry`, at the end.
  mutating func enqueue(_ entry: Entry) -> [Effect] {
    revision += 1
    var entry = entry
    entry.revision = revision
    entries.append(entry)
    return requestWrite()
  }

  /// The entries of an earlier run were read back: they go before the entries queued meanwhile (which came later).
  mutating func restored(_ earlier: [Entry]) -> [Effect] {
    guard phase == .restoring else { return [] }
    phase = .ready
    let queuedMeanwhile = entries
    entries = earlier.map { entry in
      var entry = entry
      entry.revision = 0
      return entry
    }
    entries += queuedMeanwhile
    return requestWrite() + startNext()
  }

  /// The network status changed (or was confirmed), as the source's report number `sequence`: a report older than
  /// the one applied last changes nothing.
  mutating func setOnline(_ isOnline: Bool, sequence: UInt64) -> [Effect] {
    guard sequence > statusSequence else { return [] }
    statusSequence = sequence
    let cameOnline = isOnline && !self.isOnline
    self.isOnline = isOnline
    guard cameOnline else { return [] }
    var effects: [Effect] = []
    // A failure while offline was most likely the network's: the retry goes now rather than after its backoff.
    if case .retrying(let id, _) = head {
      head = .idle
      effects.append(.stopBackoff(id: id))
    }
    return effects + startNext()
  }

  /// The write of the contents at `revision` ended, with `error` if it failed.
  mutating func writeEnded(revision written: UInt64, error: HashableError?) -> [Effect] {
    guard writer == .writing(revision: written) else {
      preconditionFailure("a write of revision \(written) ended, but \(writer) was under way")
    }
    writer = .idle
    writtenRevision = max(writtenRevision, written)
    if error == nil {
      durableRevision = max(durableRevision, written)
      saveError = nil
    } else {
      saveError = error
    }
    var effects: [Effect] = []
    let answered = flushes.filter { $0.revision <= written }.map(\.waiter)
    flushes.removeAll { $0.revision <= written }
    if !answered.isEmpty { effects.append(.resumeFlushes(answered, error: error)) }
    // A write that failed still lets the queue go on: the entries reach the server, and the error shows.
    if case .removing(let through) = head, through <= written { head = .idle }
    return effects + requestWrite() + startNext()
  }

  /// The run of entry `id` succeeded: it leaves the queue.
  mutating func succeeded(_ id: UUID) -> [Effect] {
    guard head == .running(id), entries.first?.id == id else {
      preconditionFailure("entry \(id) succeeded, but \(head) is the queue's head")
    }
    entries.removeFirst()
    revision += 1
    head = .removing(through: revision)
    return requestWrite()
  }

  /// The run of entry `id` failed with `error`: it stays first, and is retried after a backoff.
  mutating func failed(_ id: UUID, error: HashableError) -> [Effect] {
    guard head == .running(id), entries.first?.id == id else {
      preconditionFailure("entry \(id) failed, but \(head) is the queue's head")
    }
    entries[0].failures += 1
    entries[0].lastError = error
    head = .retrying(id, failures: entries[0].failures)
    return [.backoff(id: id, failures: entries[0].failures)]
  }

  /// The backoff after failure number `failures` of entry `id` ended.
  mutating func backoffEnded(_ id: UUID, failures: Int) -> [Effect] {
    // A backoff the network's return (or a discard) already ended is not the head's any more.
    guard head == .retrying(id, failures: failures) else { return [] }
    head = .idle
    return startNext()
  }

  /// The program discards entry `id`, which will not run: returns whether it was queued and not running.
  mutating func discard(_ id: UUID) -> (discarded: Bool, effects: [Effect]) {
    guard let index = entries.firstIndex(where: { $0.id == id }) else { return (false, []) }
    // A running entry may already have reached the server: it ends as its run ends.
    if index == 0 && head == .running(id) { return (false, []) }
    var effects: [Effect] = []
    if index == 0, case .retrying(id, _) = head {
      head = .idle
      effects.append(.stopBackoff(id: id))
    }
    entries.remove(at: index)
    revision += 1
    // As after a success, the entry behind the first one starts only once a write without it has ended: a kill
    // while that entry runs must not find the discarded one in the file, to run it after (and that entry again).
    if index == 0 { head = .removing(through: revision) }
    effects.append(.undo(id: id))
    return (true, effects + requestWrite() + startNext())
  }

  /// Entry `id`, which could not run (`blocker`), now can: its mutation was registered.
  mutating func unblock(_ id: UUID) -> [Effect] {
    guard let index = entries.firstIndex(where: { $0.id == id }), entries[index].blocker != nil else { return [] }
    entries[index].blocker = nil
    return startNext()
  }

  /// Entry `id` cannot run: its mutation was registered, but its arguments no longer decode.
  mutating func block(_ id: UUID, _ blocker: MutationQueueError) -> [Effect] {
    guard let index = entries.firstIndex(where: { $0.id == id }), head != .running(id) else { return [] }
    entries[index].blocker = blocker
    return []
  }

  /// The program waits with `waiter` until what is queued now is written.
  mutating func flush(_ waiter: Waiter) -> [Effect] {
    // Before the restore nothing may be written; with nothing unwritten there is nothing to wait for.
    guard phase == .ready, revision > durableRevision else {
      return [.resumeFlushes([waiter], error: nil)]
    }
    flushes.append((revision, waiter))
    if writer == .idle {
      // The latest write failed and nothing changed since: write the same contents again.
      return startWrite()
    }
    return []
  }

  // MARK: Decisions

  /// Starts a write if the contents changed since the latest write, and none is under way.
  private mutating func requestWrite() -> [Effect] {
    guard phase == .ready, writer == .idle, revision > writtenRevision else { return [] }
    return startWrite()
  }

  private mutating func startWrite() -> [Effect] {
    writer = .writing(revision: revision)
    return [.write(revision: revision, entries: entries)]
  }

  /// Starts the first entry if it may run now.
  private mutating func startNext() -> [Effect] {
    guard phase == .ready, isOnline, head == .idle, let first = entries.first, first.blocker == nil,
      first.revision <= writtenRevision
    else { return [] }
    entries[0].attempts += 1
    head = .running(first.id)
    return [.start(entries[0])]
  }
}

extension MutationQueueStateMachine.Effect: Sendable where Waiter: Sendable {}
