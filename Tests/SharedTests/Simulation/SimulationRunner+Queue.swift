import Foundation

@testable import SharedState

/// The mutation queue in a simulated program: its launch (before or after the persisted cache, before any holder), its steps,
/// the crash that ends a launch at any write of its file, and its invariants.
extension SimulationRunner {
  typealias Edit = SimulatedQueueServer.Edit

  // MARK: Launching

  /// Makes this launch's queue as the app does: registers the mutation functions, then restores the entries from
  /// the bytes the previous launch left; checks what the restore read back against what the app knew was written.
  func launchQueue() {
    guard let harness = queueHarness else { return }
    harness.launch += 1
    harness.isKilled = false
    let url = harness.folder.appendingPathComponent("queue-\(harness.launch).json")
    do {
      try FileManager.default.createDirectory(at: harness.folder, withIntermediateDirectories: true)
      if let bytes = harness.bytes { try bytes.write(to: url) }
    } catch {
      harness.violation = "the simulation could not write the queue's file: \(error)"
      return
    }
    harness.url = url
    harness.network = ManualOnlineStatus(isOnline: model.isOnline)
    harness.clock = ManualClock()
    let queue = MutationQueue(
      file: url, network: harness.network, retryDelay: { _ in SimulationQueueHarness.retryDelay },
      clock: harness.clock)
    let server = harness.server
    let launch = harness.launch
    let reached = harness.reached
    let optimistic = OptimisticMutation { (edit: Edit, cache: OptimisticCache) in
      let found = cache.update(["sim", edit.key], as: State.self) { state in
        if state.value?.contains(edit.item) == false { state.value?.append(edit.item) }
      }
      reached.set(edit.entry, found.isUpdated)
    }
    for key in 0..<SimulationSetup.keyCount {
      // Some keys give up after a few refusals: their entries leave the run order, their changes undone.
      let retry = SimulationQueueHarness.maxAttempts(key: key).map { QueuedMutationRetryPolicy(maxAttempts: $0) }
      queue.register(
        MutationKey<Edit, Int>.mutation(["sim-queue", key]), invalidates: [["sim", key]], retry: retry,
        optimistic: optimistic
      ) { edit, _ in
        try await server.call(edit, launch: launch)
      }
    }
    harness.queue = queue
    let restored: [QueuedMutation]
    do {
      restored = try queue.restore()
    } catch {
      harness.violation = "the queue's restore failed: \(error)"
      return
    }
    var read: [Int] = []
    for entry in restored {
      guard let edit = try? entry.arguments(as: Edit.self) else {
        harness.violation = "a restored entry's arguments do not decode"
        return
      }
      read.append(edit.entry)
      harness.entries[entry.id] = edit.entry
    }
    // The entries that gave up come back given up; the model dropped their changes as they did (or drops them
    // below, if the app had not seen it before the kill).
    var readFailed: Set<Int> = []
    for entry in queue.state.wrappedValue.failed {
      guard let edit = try? entry.arguments(as: Edit.self) else {
        harness.violation = "a restored given-up entry's arguments do not decode"
        return
      }
      readFailed.insert(edit.entry)
      harness.entries[entry.id] = edit.entry
      harness.gaveUp[edit.entry] = (harness.launch, step)
    }
    for entry in harness.gaveUp.keys where !readFailed.contains(entry) {
      // Its give-up was not written: it is read back queued (and checked below), or was discarded.
      harness.gaveUp[entry] = nil
    }
    checkRestored(read, failed: readFailed)
    // What was queued and not read back is gone, with its change.
    for entry in harness.live where !read.contains(entry) {
      if let edit = harness.edits[entry] { model.queueEntryDropped(entry, key: edit.key, item: edit.item) }
    }
    harness.live = read
    for entry in read {
      harness.discarded[entry] = nil
      harness.succeeded.remove(entry)
      harness.gaveUp[entry] = nil
      if let edit = harness.edits[entry] { addQueuedChange(entry, edit) }
    }
  }

  /// Entry `entry`'s change was made (queued, or read back): it waits for its query whatever the store keeps (a
  /// query, a persisted value, or nothing yet), so the model always applies it, and the store must have taken it.
  private func addQueuedChange(_ entry: Int, _ edit: Edit) {
    guard let harness = queueHarness else { return }
    if harness.reached[entry] == false, harness.violation == nil {
      harness.violation = "queued entry \(entry)'s change was dropped, where it waits for q\(edit.key)"
    }
    model.queueEntryAdded(entry, key: edit.key, item: edit.item)
  }

  /// What a restore must read back: in order, every entry written and still queued, no entry whose leaving was
  /// written.
  private func checkRestored(_ read: [Int], failed: Set<Int>) {
    guard let harness = queueHarness, harness.violation == nil else { return }
    if read != read.sorted() || Set(read).count != read.count {
      harness.violation = "the queue read back its entries out of order: \(read)"
      return
    }
    for entry in harness.acknowledged.sorted()
    where harness.discarded[entry] == nil && !harness.succeeded.contains(entry) && !read.contains(entry)
      && !failed.contains(entry)
    {
      harness.violation = "queued entry \(entry) was written (acknowledged) but not read back at the relaunch"
      return
    }
    for entry in read {
      if let written = harness.discardWritten[entry] {
        harness.violation = "queued entry \(entry) was read back, though its discard was written at step \(written)"
        return
      }
      if harness.successWritten.contains(entry) {
        harness.violation = "queued entry \(entry) was read back, though its success was written"
        return
      }
    }
  }

  /// The launch under way ends: killed (its file's bytes are what a kill leaves), or normally (the queue's writes
  /// end first, as they do at a normal exit). The server refuses whatever the launch still sends.
  func endQueueLaunch(killed: Bool, serverApplies: Bool = false) async {
    guard let harness = queueHarness, !harness.isKilled else { return }
    if !killed, let queue = harness.queue {
      absorbQueue()
      let (live, left) = (harness.live, harness.succeeded)
      if (try? await queue.flush()) != nil { noteFlushed(live: live, left: left) }
    }
    // What the app saw before the kill is at most what the file holds.
    absorbQueue()
    harness.bytes = harness.url.flatMap { try? Data(contentsOf: $0) }
    // Offline first: the killed launch's queue hears its calls end as a failure offline, which gives no entry up
    // (a killed process does nothing more; an undo there would reach the persisted cache the relaunch reads).
    harness.network.setOnline(false)
    harness.server.kill(launch: harness.launch, applies: serverApplies)
    if let queue = harness.queue { harness.retired.append(queue) }
    harness.queue = nil
    harness.isKilled = true
  }

  // MARK: Steps

  func performQueue(_ step: SimulationQueueStep) async -> SimulationFailure? {
    guard let harness = queueHarness, let queue = harness.queue else { return nil }
    switch step {
    case .enqueue(let key):
      return enqueue(key: key, on: queue)
    case .discard(let pick):
      discard(pick: pick, on: queue)
    case .answer(let pick, let succeeds):
      answerQueuedCall(pick: pick, succeeds: succeeds)
    case .flush:
      absorbQueue()
      let (live, left) = (harness.live, harness.succeeded)
      do {
        try await queue.flush()
        noteFlushed(live: live, left: left)
      } catch {
        return SimulationFailure(step: self.step, invariant: "the queue's flush failed: \(error)")
      }
    case .crash(let action, let yields, let serverApplies):
      switch action {
      case .none: break
      case .enqueue(let key):
        if let failure = enqueue(key: key, on: queue) { return failure }
      case .discard(let pick): discard(pick: pick, on: queue)
      case .answer(let pick): answerQueuedCall(pick: pick, succeeds: true)
      }
      for _ in 0..<yields { await Task.yield() }
      await endQueueLaunch(killed: true, serverApplies: serverApplies)
      return await relaunch()
    }
    return nil
  }

  /// The server answers the queued call picked by `pick`; returns its entry. A success's invalidation is owed from
  /// this step, even if the app hears of the success (the entry leaving the queue) a step later, as a mutation's is.
  @discardableResult
  private func answerQueuedCall(pick: Int, succeeds: Bool) -> Int? {
    guard let harness = queueHarness,
      let entry = harness.server.answer(pick: pick, succeeds: succeeds, launch: harness.launch)
    else { return nil }
    if succeeds { harness.answeredAt[entry] = step }
    return entry
  }

  private func enqueue(key: Int, on queue: MutationQueue) -> SimulationFailure? {
    guard let harness = queueHarness else { return nil }
    let entry = harness.entryCount
    harness.entryCount += 1
    let edit = Edit(entry: entry, key: key, item: 5_000 + entry)
    do {
      let id = try queue.enqueue(["sim-queue", key], edit)
      harness.entries[id] = entry
    } catch {
      return SimulationFailure(step: step, invariant: "the queue refused an entry: \(error)")
    }
    harness.edits[entry] = edit
    harness.live.append(entry)
    addQueuedChange(entry, edit)
    return nil
  }

  private func discard(pick: Int, on queue: MutationQueue) {
    guard let harness = queueHarness, !harness.live.isEmpty || !harness.gaveUp.isEmpty else { return }
    let given = harness.gaveUp.keys.sorted()
    if pick % (harness.live.count + given.count) >= harness.live.count {
      // An entry that gave up, discarded from a screen: its change was undone as it gave up.
      let entry = given[pick % (harness.live.count + given.count) - harness.live.count]
      guard let id = harness.id(of: entry), queue.discard(id) else {
        harness.violation = "queued entry \(entry) gave up, but its discard was refused"
        return
      }
      harness.gaveUp[entry] = nil
      harness.discarded[entry] = (harness.launch, step)
      return
    }
    let entry = harness.live[pick % (harness.live.count + given.count)]
    guard let id = harness.id(of: entry), queue.discard(id), let edit = harness.edits[entry] else { return }
    harness.live.removeAll { $0 == entry }
    harness.discarded[entry] = (harness.launch, step)
    model.queueEntryDropped(entry, key: edit.key, item: edit.item)
  }

  /// A flush ended: the entries queued then, and those that had left, are written.
  private func noteFlushed(live: [Int], left: Set<Int>) {
    guard let harness = queueHarness else { return }
    harness.acknowledged.formUnion(live)
    harness.successWritten.formUnion(left)
    for entry in harness.discarded.keys where harness.discardWritten[entry] == nil {
      harness.discardWritten[entry] = step
    }
  }

  // MARK: Settling

  /// Tells the model which entries left the queue after a success, and notes which the queue says are written.
  func absorbQueue() {
    guard let harness = queueHarness, let queue = harness.queue else { return }
    let state = queue.state.wrappedValue
    let entries = state.entries
    let present = Set(entries.compactMap { harness.entries[$0.id] })
    let failed = Set(state.failed.compactMap { harness.entries[$0.id] })
    for entry in harness.live where !present.contains(entry) && failed.contains(entry) {
      // It gave up: its change is undone, as a discard's.
      harness.gaveUp[entry] = (harness.launch, step)
      if let edit = harness.edits[entry] { model.queueEntryDropped(entry, key: edit.key, item: edit.item) }
    }
    for entry in harness.live where !present.contains(entry) && !failed.contains(entry) {
      harness.succeeded.insert(entry)
      if let edit = harness.edits[entry] {
        let answered = min(harness.answeredAt[entry] ?? step, step)
        model.queueEntrySucceeded(entry, key: edit.key, item: edit.item, step: answered)
      }
    }
    harness.live.removeAll { !present.contains($0) }
    for entry in entries where entry.isSaved {
      if let number = harness.entries[entry.id] { harness.acknowledged.insert(number) }
    }
  }

  /// What changes while the queue's tasks run.
  func queueFingerprint() -> String {
    guard let harness = queueHarness else { return "" }
    let state = harness.queue?.state.wrappedValue
    let entries = state?.entries.map { "\($0.status),\($0.isSaved)" } ?? []
    return "\(harness.server.fingerprint)\(entries)\(state?.failed.count ?? 0)\(state?.isPaused ?? true)"
  }

  /// The queue's promises: what the server saw, what a restore read back, and nothing stuck while online.
  func queueBrokenInvariant() -> String? {
    guard let harness = queueHarness else { return nil }
    if let violation = harness.violation { return violation }
    if let offline = harness.server.offlineCalls.first { return "a queued call reached the server offline: \(offline)" }
    var runs: [Int: Int] = [:]
    for run in harness.server.runs {
      runs[run.entry, default: 0] += 1
      if let gaveUp = harness.gaveUp[run.entry], gaveUp.launch == run.launch, run.step > gaveUp.step {
        return "queued entry \(run.entry) ran at step \(run.step), after it gave up at step \(gaveUp.step)"
      }
      if let key = harness.edits[run.entry]?.key, let maxAttempts = SimulationQueueHarness.maxAttempts(key: key),
        runs[run.entry, default: 0] > maxAttempts + 1
      {
        return "queued entry \(run.entry) ran \(runs[run.entry, default: 0]) times, over its \(maxAttempts) "
          + "attempts and one more"
      }
    }
    if let broken = harness.server.brokenPromise(
      discarded: harness.discarded, discardWritten: harness.discardWritten)
    {
      return broken
    }
    guard model.isOnline, let queue = harness.queue else { return nil }
    let state = queue.state.wrappedValue
    if state.isPaused { return "the queue shows paused while online" }
    guard let head = state.entries.first else { return nil }
    let number = harness.entries[head.id].map { "\($0)" } ?? "?"
    switch head.status {
    case .waiting: return "queued entry \(number) waits while the queue is online and idle"
    case .running where harness.server.callsUnderWay(launch: harness.launch).isEmpty:
      return "queued entry \(number) shows running, but no call of it is under way"
    case .blocked(let reason): return "queued entry \(number) is blocked: \(reason)"
    case .failed: return "queued entry \(number) shows failed, but it is in the run order"
    case .running, .waitingToRetry: return nil
    }
  }

  /// A fetch of `key` was answered: the items of queued entries whose change has no query to show in (orphaned by
  /// a removal) stay ambiguous until their entries leave, as a mutation's do.
  func noteQueuedItemsAfterFetch(key: Int) {
    guard let harness = queueHarness else { return }
    for entry in harness.live {
      guard let edit = harness.edits[entry], edit.key == key,
        !model.changes.contains(where: { $0.mutation == SimulationModel.queueChangeID(entry) })
      else { continue }
      model.ambiguous[key].insert(edit.item)
    }
  }

  /// Whether the queue of the launch under way runs an entry.
  var queueRunsEntry: Bool {
    queueHarness?.queue?.state.wrappedValue.entries.first?.status == .running
  }

  // MARK: Ending

  /// At the end of the program: online, the server accepts every call and backoffs end, until the queue is empty;
  /// then every entry written (and not discarded) must have run.
  func drainQueue() async -> SimulationFailure? {
    guard let harness = queueHarness, harness.queue != nil else { return nil }
    if let failure = await SharedRegistry.$current.withValue(registry, operation: { await perform(.setOnline(true)) }) {
      return failure
    }
    for _ in 0..<100 {
      absorbQueue()
      guard let queue = harness.queue, !queue.entries.isEmpty else { break }
      while answerQueuedCall(pick: 0, succeeds: true) != nil {}
      harness.clock.advance(by: SimulationQueueHarness.retryDelay)
      if let failure = await SharedRegistry.$current.withValue(registry, operation: { await settleAndCheck() }) {
        return failure
      }
    }
    absorbQueue()
    if let queue = harness.queue, !queue.entries.isEmpty {
      return SimulationFailure(step: step, invariant: "the queue still holds \(queue.entries.count) entries online")
    }
    let applied = Set(harness.server.applied.map(\.entry))
    for entry in harness.acknowledged.sorted()
    where harness.discarded[entry] == nil && harness.gaveUp[entry] == nil && !applied.contains(entry) {
      return SimulationFailure(step: step, invariant: "queued entry \(entry) was written but never ran")
    }
    return nil
  }
}
