import Foundation

/// The decisions of a ``MutationQueue``: which entry runs, when the file is written, when a flush is answered.
///
/// A value type with one mutating method per event, each returning the effects the caller performs after releasing
/// its lock (start a run, write the file, wait out a backoff, resume flushes, undo a discarded entry's optimistic
/// changes). It holds no task, clock or file: the queue acts on its effects and reports back with the next event.
///
/// The rules it keeps:
/// - Entries run one at a time, in the order they were queued; a failing entry is retried (after a backoff) and
///   the entries behind it wait, so none is ever skipped while it may still succeed.
/// - An entry gives up (fails for good) when its registration's policy says so: a failure the policy marks
///   permanent, or a failure online of its last allowed attempt. It leaves the run order for ``failed`` (where it
///   stays, in the file too, until the program retries or discards it), its optimistic changes are undone, and the
///   entries behind it go on, as after a discard.
/// - Every run is claimed before it starts: its attempt is counted and the run starts only once a write holding
///   that count has ended. The file never counts fewer attempts than started, so kills cannot make an entry run
///   without bound. An entry may run once more than its maximum, and never more: for an attempt whose end was
///   never heard (a kill) or whose failure came while offline.
/// - An entry runs only once the queue is restored, online, and a write that holds the entry (its claim) has ended:
///   a run the server may have seen is always in the file, so a restart runs it again (at least once).
/// - An entry leaves the queue only when its run succeeded (or the program discards it, or it gives up), and the
///   next one starts only once a write without it has ended: after a kill, at most the entry that was running runs
///   again.
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
    /// The first entry, `id`, has its run claimed: it starts once a write of revision `through` or later (which
    /// holds the claimed attempt's count) has ended.
    case starting(UUID, through: UInt64)
    /// The first entry, `id`, runs.
    case running(UUID)
    /// The first entry, `id`, failed for the `failures`-th time and waits out its backoff.
    case retrying(UUID, failures: Int)
    /// The first entry succeeded, was discarded or gave up, and left; the next starts once a write of revision
    /// `through` or later has ended.
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
    /// Write `entries` and `failed`, the queue's contents at `revision`, then report
    /// ``writeEnded(revision:error:)``.
    case write(revision: UInt64, entries: [Entry], failed: [Entry])
    /// Run `entry` (its ``Entry/attempts`` is this attempt's number), then report ``succeeded(_:)`` or
    /// ``failed(_:error:)``.
    case start(Entry)
    /// Wait out the backoff before the entry's retry, then report ``backoffEnded(_:failures:)``.
    case backoff(id: UUID, failures: Int)
    /// The backoff of entry `id` is no longer waited for: stop waiting.
    case stopBackoff(id: UUID)
    /// Resume these flushes, with the error of the write that answered them (or `nil`).
    case resumeFlushes([Waiter], error: HashableError?)
    /// Entry `id` left the run order without succeeding (discarded, or given up): undo its optimistic changes.
    case undo(id: UUID)
  }

  private(set) var phase = Phase.restoring
  /// The queued entries, in order; the first is the one that runs.
  private(set) var entries: [Entry] = []
  /// The entries that gave up, in the order they did: out of the run order, kept (in the file too) until the
  /// program retries or discards them.
  private(set) var failed: [Entry] = []
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
    // Into an idle queue: the write that holds the entry holds its first claim too.
    return proceed()
  }

  /// The entries of an earlier run were read back: they go before the entries queued meanwhile (which came later).
  /// `failedEarlier` are the ones that had given up.
  mutating func restored(_ earlier: [Entry], failed failedEarlier: [Entry] = []) -> [Effect] {
    guard phase == .restoring else { return [] }
    phase = .ready
    let queuedMeanwhile = entries
    let read = { (entry: Entry) -> Entry in
      var entry = entry
      entry.revision = 0
      entry.isClaimed = false
      return entry
    }
    entries = earlier.map(read) + queuedMeanwhile
    failed = failedEarlier.map(read)
    return proceed()
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
    return effects + proceed()
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
    return effects + startIfClaimWritten() + proceed()
  }

  /// The run of entry `id` succeeded: it leaves the queue.
  mutating func succeeded(_ id: UUID) -> [Effect] {
    guard head == .running(id), entries.first?.id == id else {
      preconditionFailure("entry \(id) succeeded, but \(head) is the queue's head")
    }
    entries.removeFirst()
    revision += 1
    head = .removing(through: revision)
    // The next entry's claim goes in the write of the removal.
    return proceed()
  }

  /// The run of entry `id` failed with `error`, which the entry's policy marks permanent or not: it gives up if
  /// the error is permanent, or if this was its last allowed attempt and the queue is online (a failure while
  /// offline was most likely the network's: it leaves one more attempt). Otherwise it stays first, and is retried
  /// after a backoff, and the failure is written.
  mutating func failed(_ id: UUID, error: HashableError, isPermanent: Bool = false) -> [Effect] {
    guard head == .running(id), entries.first?.id == id else {
      preconditionFailure("entry \(id) failed, but \(head) is the queue's head")
    }
    entries[0].failures += 1
    entries[0].lastError = error
    let isLastAttempt = entries[0].maxAttempts.map { entries[0].attempts >= $0 } ?? false
    if isPermanent || (isLastAttempt && isOnline) {
      return giveUpFirst() + requestWrite()
    }
    head = .retrying(id, failures: entries[0].failures)
    // The failure and its error are written during the backoff, so a relaunch shows them.
    revision += 1
    return [.backoff(id: id, failures: entries[0].failures)] + requestWrite()
  }

  /// The backoff after failure number `failures` of entry `id` ended.
  mutating func backoffEnded(_ id: UUID, failures: Int) -> [Effect] {
    // A backoff the network's return (or a discard) already ended is not the head's any more.
    guard head == .retrying(id, failures: failures) else { return [] }
    head = .idle
    return proceed()
  }

  /// The program discards entry `id`, which will not run: returns whether it was queued and not running, or had
  /// given up. A given-up entry's optimistic changes were undone as it gave up: they are not undone again.
  mutating func discard(_ id: UUID) -> (discarded: Bool, effects: [Effect]) {
    if let index = failed.firstIndex(where: { $0.id == id }) {
      failed.remove(at: index)
      revision += 1
      return (true, requestWrite())
    }
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
    return (true, effects + proceed())
  }

  /// The program retries entry `id`, which gave up: it goes back at the end of the run order with no attempts
  /// counted, its error cleared, under the policy of `maxAttempts` and with `blocker` (its mutation's registration
  /// as it is now). Returns whether it had given up; its optimistic changes were made again by the caller.
  mutating func retry(
    _ id: UUID,
    maxAttempts: Int?,
    blocker: MutationQueueError?
  ) -> (retried: Bool, effects: [Effect]) {
    guard let index = failed.firstIndex(where: { $0.id == id }) else { return (false, []) }
    var entry = failed.remove(at: index)
    revision += 1
    entry.revision = revision
    entry.attempts = 0
    entry.failures = 0
    entry.lastError = nil
    entry.isClaimed = false
    entry.maxAttempts = maxAttempts
    entry.blocker = blocker
    entries.append(entry)
    return (true, proceed())
  }

  /// Entry `id`, which could not run (`blocker`), now can: its mutation was registered, with `maxAttempts`.
  mutating func unblock(_ id: UUID, maxAttempts: Int? = nil) -> [Effect] {
    guard let index = entries.firstIndex(where: { $0.id == id }), entries[index].blocker != nil else { return [] }
    entries[index].blocker = nil
    entries[index].maxAttempts = maxAttempts
    return proceed()
  }

  /// The entries `ids` now run under a policy allowing `maxAttempts`: their mutation was registered again. An entry
  /// that already made more attempts gives up before its next.
  mutating func setMaxAttempts(_ maxAttempts: Int?, for ids: Set<UUID>) -> [Effect] {
    for index in entries.indices where ids.contains(entries[index].id) {
      entries[index].maxAttempts = maxAttempts
    }
    return proceed()
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
    return [.write(revision: revision, entries: entries, failed: failed)]
  }

  /// Claims the first entry's next run if it may run now, then writes what changed (the claim with it).
  private mutating func proceed() -> [Effect] {
    let effects = startNext()
    return effects + requestWrite()
  }

  /// Claims the first entry's next run if it may run now (or gives it up, if its policy allows no more), and
  /// starts it if that claim is written already. The caller requests the write.
  private mutating func startNext() -> [Effect] {
    guard phase == .ready, isOnline, let first = entries.first, first.blocker == nil else { return [] }
    switch head {
    case .idle, .removing: break
    case .starting, .running, .retrying: return []
    }
    // The attempt that would start: a claim kept while the queue was offline is this one's.
    let attempt = first.isClaimed ? first.attempts : first.attempts + 1
    if let maxAttempts = first.maxAttempts, attempt > maxAttempts + 1 {
      // Its one extra attempt was claimed already (after a kill, or a failure offline): no more.
      if first.failures < first.attempts || first.lastError == nil {
        entries[0].lastError = HashableError(
          MutationQueueError.attemptsInterrupted(key: first.key, attempts: first.attempts))
      }
      return giveUpFirst()
    }
    if !first.isClaimed {
      revision += 1
      entries[0].attempts += 1
      entries[0].isClaimed = true
    }
    // Through the newest revision: it holds the claim, and the removal of the entry before, if it just left.
    head = .starting(first.id, through: revision)
    return startIfClaimWritten()
  }

  /// Starts the claimed first entry if a write holding its claim has ended; if the queue went offline meanwhile,
  /// keeps the claim for when it goes on.
  private mutating func startIfClaimWritten() -> [Effect] {
    guard case .starting(let id, let through) = head, through <= writtenRevision else { return [] }
    guard isOnline else {
      head = .idle
      return []
    }
    entries[0].isClaimed = false
    head = .running(id)
    return [.start(entries[0])]
  }

  /// The first entry gives up: it leaves the run order for ``failed``, its optimistic changes are undone, and the
  /// next entry's claim is made (it starts once a write without the given-up entry has ended, as after a
  /// success). The caller requests the write.
  private mutating func giveUpFirst() -> [Effect] {
    var entry = entries.removeFirst()
    entry.isClaimed = false
    failed.append(entry)
    revision += 1
    head = .removing(through: revision)
    return [.undo(id: entry.id)] + startNext()
  }
}

extension MutationQueueStateMachine.Effect: Sendable where Waiter: Sendable {}
