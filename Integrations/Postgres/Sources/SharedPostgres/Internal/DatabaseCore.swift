import Foundation
import Logging
import PostgresNIO
import Synchronization

/// The working parts of a ``SharedPostgresDatabase``: the listening loop, the loop that applies what it hears, the
/// connection for reads and writes, and, per key, the held values and the machine that decides which versions
/// reach them.
///
/// Everything other instances announce, and every reload after a reconnect, goes through one applying loop, and a
/// load puts its value in memory holding the same landing turn, so values reach memory one after another in the
/// order they were decided. Decisions are made under `state`'s lock;
/// values are applied, and user code (merge functions) called, after it.
final class DatabaseCore: Sendable {
  let instanceID = UUID().uuidString
  let identity = UUID()
  private let configuration: SharedPostgresDatabase.Configuration
  private let settings: ConnectionSettings
  private let table: ValueTable
  let connection: SerialConnection
  private let logger: Logger
  private let state = Mutex(State())
  private let deliveries: AsyncStream<Delivery>.Continuation
  private let deliveryStream: Mutex<AsyncStream<Delivery>?>
  /// For tests: code run at points of a load, a save or a landing (``runHook(_:)``); all empty otherwise.
  let testHooks = Mutex(TestHooks())
  /// How many rows made again (deleted and written anew) were found, over every key: announcements carry the
  /// count when they were heard, so one heard before its key's row was found made again is of the old row. Only
  /// grows under `state`'s lock (with the key's machine); read without it for each notification.
  private let recreations = Atomic<UInt64>(0)
  /// Values from the store land in memory one at a time: another instance's changes and loads.
  private let landing = AsyncSemaphore()

  private struct State {
    var keys: [String: KeyEntry] = [:]
    var nextToken: UInt64 = 0
    var listening = false
    /// Whether holders were told the server is lost (once per outage).
    var outageReported = false
    var closed = false
    var listeningWaiters: [UInt64: CheckedContinuation<Void, any Error>] = [:]
    /// Why the listening connection last failed, until it is up again.
    var listeningFailure: SharedPostgresError.Cause?
    var tasks: [Task<Void, Never>] = []
    /// The task that writes failed saves again, while some are left.
    var retrying: Task<Void, Never>?
    /// Writes in flight (saves, checked updates, overwrites), and who waits for none to be.
    var writesRunning = 0
    var writesIdleWaiters: [CheckedContinuation<Void, Never>] = []
    /// Values whose last holder is gone while a save of the framework may still be on its way: kept (weakly, through
    /// their context) so that ``close(flushingWithin:)`` writes a change whose save had not started.
    var released: [(key: String, holder: any HeldValue)] = []
  }

  /// Code the tests run at points of a load, a save or a landing, to hold them there or act meanwhile.
  struct TestHooks: Sendable {
    typealias Hook = @Sendable () async -> Void
    /// Runs when a load begins, before it reads its row.
    var beforeLoadRead: Hook?
    /// Runs after a load read its row, before the key applies it.
    var afterLoadRead: Hook?
    /// Runs after a write committed, before its result is applied.
    var afterWriteCommitted: Hook?
    /// Runs after a save's write returned, before the save returns to the framework.
    var afterWriteReturned: Hook?
    /// Runs when a save begins, before this instance counts it as running.
    var beforeSaveStarted: Hook?
    /// Runs with the read/write connection taken, before a write's statement is sent on it.
    var beforeWriteStatement: Hook?
    /// Runs after another instance's change was decided to go to memory, before it lands there.
    var beforeLanding: Hook?
    /// Runs before a checked update or a merge reads the row.
    var beforeRowRead: Hook?
  }

  private struct KeyEntry {
    var machine = KeyVersionStateMachine()
    var holders: [UInt64: any HeldValue] = [:]
    /// The JSON memory last held when it agreed with the row (loaded, landed or written), or the value it started
    /// from: memory that differs from it holds a change of the program (``close(flushingWithin:)`` writes it).
    var agreedJSON: Data?
    /// The newest row this instance saw (read, wrote or heard): a checked update's first attempt starts from it
    /// instead of reading the row; its version check catches a row that moved on since.
    var lastRow: ValueTable.Row?
  }

  /// What the applying loop does next.
  private enum Delivery: Sendable {
    /// A notification's payload, and how many rows made again had been found when it was heard.
    case announcement(String, heardAt: UInt64)
    /// A change held during a save or a load, heard again.
    case redeliver(key: String, StoredChange)
    /// The listener is up again: reload every held value (and save the ones whose save failed).
    case reloadAll
    /// The listener is lost.
    case outage(SharedPostgresError.Cause)
  }

  init(configuration: SharedPostgresDatabase.Configuration) {
    self.configuration = configuration
    let settings = ConnectionSettings(configuration)
    self.settings = settings
    // No message logged carries the password: the connections' settings, which hold it, are never logged.
    let logger = configuration.logger
    self.logger = logger
    self.table = ValueTable(
      name: configuration.tableName, channel: configuration.channel, writer: instanceID, logger: logger)
    self.connection = SerialConnection(settings: settings, table: table)
    let (stream, continuation) = AsyncStream.makeStream(of: Delivery.self)
    self.deliveries = continuation
    self.deliveryStream = Mutex(stream)
  }

  /// Starts the listening and applying loops, and the checks of the idle read/write connection; ``stop()`` ends
  /// them. A configuration that cannot be used starts nothing: every load, save and wait fails with its problem.
  func start() {
    if let problem = settings.problem {
      logger.error("PostgreSQL: the configuration cannot be used", metadata: ["problem": "\(problem)"])
      return
    }
    let stream = deliveryStream.withLock { $0.take() }
    let applying = Task {
      guard let stream else { return }
      for await delivery in stream { await self.apply(delivery) }
    }
    let listening = Task { await self.listen() }
    let checking = Task { await self.connection.checkWhileIdle() }
    state.withLock { $0.tasks = [applying, listening, checking] }
  }

  /// Cancels the loops without waiting (the database object is gone).
  func stop() {
    let (tasks, waiters) = state.withLock { state in
      state.closed = true
      defer {
        state.listeningWaiters = [:]
        state.retrying = nil
      }
      return (state.tasks + [state.retrying].compactMap { $0 }, state.listeningWaiters)
    }
    deliveries.finish()
    for task in tasks { task.cancel() }
    for waiter in waiters.values { waiter.resume(throwing: SharedPostgresError.closed) }
  }

  /// Writes the changes not saved yet (waiting first for the writes in flight), for at most `deadline`; then stops
  /// and closes the connections. Returns the changes that were not written, each with its reason.
  func close(flushingWithin deadline: Duration) async -> [SharedPostgresDatabase.UnwrittenChange] {
    let failures = Mutex<[String: any Error]>([:])
    let written = Mutex<Set<String>>([])
    let finished = await within(deadline) {
      await self.writesIdle()
      for (key, holder, agreed) in self.flushCandidates() {
        do {
          try await holder.writeIfChanged(since: agreed)
          written.withLock { _ = $0.insert(key) }
        } catch {
          failures.withLock { $0[key] = error }
        }
      }
    }
    if !finished {
      // What is still different from the row, and not reported yet, missed the deadline.
      for (key, holder, agreed) in flushCandidates() where holder.differs(from: agreed) {
        let done = written.withLock { $0.contains(key) }
        if !done { failures.withLock { $0[key] = $0[key] ?? SharedPostgresError.notWrittenBeforeClose(key: key) } }
      }
    }
    stop()
    await connection.close()
    return failures.withLock { $0 }.map { SharedPostgresDatabase.UnwrittenChange(key: $0.key, error: $0.value) }
      .sorted { $0.key < $1.key }
  }

  /// Every value in memory that ``close(flushingWithin:)`` may have to write: the held ones and the released ones
  /// still alive, each with the JSON memory last agreed with the row on.
  private func flushCandidates() -> [(key: String, holder: any HeldValue, agreed: Data?)] {
    state.withLock { state in
      var candidates: [(key: String, holder: any HeldValue, agreed: Data?)] = []
      for (key, entry) in state.keys {
        for holder in entry.holders.values { candidates.append((key, holder, entry.agreedJSON)) }
      }
      for (key, holder) in state.released {
        candidates.append((key, holder, state.keys[key]?.agreedJSON))
      }
      return candidates
    }
  }

  /// Runs `work` in a task of its own and waits until it ends or `limit` passes, whichever comes first; returns
  /// whether it ended. The work goes on after the limit (closing the connections then ends it).
  private func within(_ limit: Duration, _ work: @escaping @Sendable () async -> Void) async -> Bool {
    let race = FirstToEnd()
    let ended = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
      race.start(continuation)
      race.timer(
        Task {
          try? await Task.sleep(for: limit)
          race.end(returning: false)
        })
      Task {
        await work()
        race.end(returning: true)
      }
    }
    race.cancelTimer()
    return ended
  }

  // MARK: Listening

  private func listen() async {
    var failures = 0
    while !Task.isCancelled {
      var cause: SharedPostgresError.Cause
      do {
        let listener = try await settings.connect(id: 0)
        let watch = ListenerWatch()
        // The LISTEN gets the statement deadline: on a half-open connection it would never complete.
        let limit = settings.statementTimeout
        let watchdog = Task {
          try? await Task.sleep(for: limit)
          guard !Task.isCancelled, !watch.hasStarted else { return }
          watch.closing(because: .timedOut("LISTEN", after: limit))
          try? await listener.close()
        }
        do {
          try await listener.listen(on: configuration.channel) { notifications in
            watch.listenStarted()
            watchdog.cancel()
            listeningStarted()
            let keepalive = Task { await keepAlive(listener, watch: watch) }
            defer { keepalive.cancel() }
            for try await notification in notifications {
              deliveries.yield(.announcement(notification.payload, heardAt: recreationsFound()))
            }
          }
          cause = SharedPostgresError.Cause(kind: .connectionClosed, summary: "the server ended the listening")
        } catch {
          cause = SharedPostgresError.Cause(error)
        }
        watchdog.cancel()
        if let closed = watch.closeCause { cause = closed }
        try? await listener.close()
      } catch {
        cause = SharedPostgresError.Cause(error)
      }
      if Task.isCancelled { return }
      let (wasListening, waiters) = listeningLost(cause)
      if wasListening { failures = 0 }
      failures += 1
      let delay = reconnectDelay(afterFailures: failures)
      logger.warning(
        "PostgreSQL: not listening for other instances' changes; connecting again",
        metadata: ["cause": "\(cause)", "delay": "\(delay)", "attempt": "\(failures)"])
      for waiter in waiters { waiter.resume(throwing: SharedPostgresError.disconnected(cause)) }
      try? await Task.sleep(for: delay)
    }
  }

  /// Checks `listener` every keepalive interval with a cheap query; closes it when the previous check got no answer
  /// by the next one (a half-open connection: nothing ever arrives, and nothing fails), so the listening loop makes
  /// a new connection.
  private func keepAlive(_ listener: PostgresConnection, watch: ListenerWatch) async {
    let answered = KeepaliveAnswer()
    let logger = self.logger
    while !Task.isCancelled {
      try? await Task.sleep(for: configuration.keepaliveInterval)
      if Task.isCancelled { return }
      guard answered.takeForNewCheck() else {
        watch.closing(because: .timedOut("the listening connection's check", after: configuration.keepaliveInterval))
        try? await listener.close()
        return
      }
      // Not awaited here: on a half-open connection it never returns, until the close above fails it.
      Task {
        if (try? await listener.query("SELECT 1", logger: logger).collect()) != nil {
          answered.answer()
        }
      }
    }
  }

  private func listeningStarted() {
    logger.info("PostgreSQL: listening for other instances' changes", metadata: ["channel": "\(configuration.channel)"])
    let waiters = state.withLock { state in
      state.listening = true
      state.outageReported = false
      state.listeningFailure = nil
      defer { state.listeningWaiters = [:] }
      return Array(state.listeningWaiters.values)
    }
    // Whatever was announced before LISTEN took effect is in the rows: read them again.
    deliveries.yield(.reloadAll)
    for waiter in waiters { waiter.resume() }
  }

  /// Returns whether the listener had been up, and, when connecting again cannot fix `cause` by itself (a login or
  /// TLS handshake refused), those waiting for it, to fail with it.
  private func listeningLost(
    _ cause: SharedPostgresError.Cause
  ) -> (wasListening: Bool, waiters: [CheckedContinuation<Void, any Error>]) {
    let (wasListening, report, waiters) = state.withLock { state in
      let wasListening = state.listening
      state.listening = false
      state.listeningFailure = cause
      let report = !state.outageReported
      state.outageReported = true
      var waiters: [CheckedContinuation<Void, any Error>] = []
      if !cause.kind.mayHealByReconnecting {
        waiters = Array(state.listeningWaiters.values)
        state.listeningWaiters = [:]
      }
      return (wasListening, report, waiters)
    }
    if report { deliveries.yield(.outage(cause)) }
    return (wasListening, waiters)
  }

  /// Waits until listening, for at most `timeout`; throws the failure that connecting again cannot fix by itself at
  /// once, and the last failure (or a time-out) when the time is up.
  func waitUntilListening(timeout: Duration) async throws {
    do {
      try await withDeadline(timeout) { try await self.waitUntilListening() }
    } catch is DeadlinePassed {
      let failure = state.withLock { $0.listeningFailure }
      throw SharedPostgresError.disconnected(failure ?? .timedOut("listening", after: timeout))
    }
  }

  private func waitUntilListening() async throws {
    let id = state.withLock { state -> UInt64 in
      state.nextToken += 1
      return state.nextToken
    }
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
        let resumeWith = state.withLock { state -> Result<Void, any Error>? in
          if state.closed { return .failure(SharedPostgresError.closed) }
          if let problem = settings.problem { return .failure(problem) }
          if state.listening { return .success(()) }
          if let failure = state.listeningFailure, !failure.kind.mayHealByReconnecting {
            return .failure(SharedPostgresError.disconnected(failure))
          }
          if Task.isCancelled { return .failure(CancellationError()) }
          state.listeningWaiters[id] = continuation
          return nil
        }
        if let resumeWith { continuation.resume(with: resumeWith) }
      }
    } onCancel: {
      let waiter = state.withLock { $0.listeningWaiters.removeValue(forKey: id) }
      waiter?.resume(throwing: CancellationError())
    }
  }

  // MARK: Applying

  private func apply(_ delivery: Delivery) async {
    switch delivery {
    case .announcement(let payload, let heardAt):
      guard let announcement = ChangeAnnouncement.parse(payload) else { return }
      guard announcement.writer != instanceID else {
        // This instance's own write: announcements heard from now on were committed after it.
        state.withLock { $0.keys[announcement.key]?.machine.ownAnnouncementHeard(version: announcement.version) }
        return
      }
      await hear(announcement.change, key: announcement.key, heardAt: heardAt)
    case .redeliver(let key, let change):
      await hear(change, key: key, heardAt: recreationsFound())
    case .reloadAll:
      let keys = state.withLock { state in
        for key in state.keys.keys { state.keys[key]?.machine.listeningRestarted() }
        return state.keys.filter { !$0.value.holders.isEmpty }.map(\.key)
      }
      for key in keys { await reload(key) }
    case .outage(let cause):
      let holders = state.withLock { state in state.keys.values.flatMap { $0.holders.values } }
      for holder in holders { holder.reportLoadError(SharedPostgresError.disconnected(cause)) }
    }
  }

  /// Decides whether another instance's `change` of `key` goes to memory, and puts it there.
  ///
  /// Loads wait until the change has landed (``load(_:land:)``), and the landing is decided again against the
  /// versions this instance knows by then: between the decision and the landing (a database round trip, when the
  /// row must be read) this instance may have saved, or be saving, a newer version, which memory then keeps.
  private func hear(_ change: StoredChange, key: String, heardAt: UInt64) async {
    guard hasHolders(key) else {
      // No value to land in, but a checked update of the key starts from it.
      if let json = change.json { rowHeard(key, ValueTable.Row(json: json, version: change.version)) }
      return
    }
    await landing.wait()
    defer { landing.signal() }
    let action = state.withLock { state -> KeyVersionStateMachine.NotificationAction in
      guard var entry = state.keys[key], !entry.holders.isEmpty else { return .ignore }
      let action = entry.machine.notified(change, heardAt: heardAt)
      state.keys[key] = entry
      return action
    }
    let change: StoredChange
    switch action {
    case .apply(let applied): change = applied
    case .verify:
      // Late, or of a row made again: the read tells, and lands the row if it was made again.
      await readAndLand(key, heard: holdersHearing(key))
      return
    case .ignore, .hold: return
    }
    // A change the program makes from now on keeps memory: it is saved over this version.
    let heard = holdersHearing(key)
    await runHook(\.beforeLanding)
    if let json = change.json {
      await land(key, version: change.version, json: json, heard: heard)
    } else {
      await readAndLand(key, heard: heard)
    }
  }

  /// The holders of `key`, each with the point its value was at when a change was heard (or a read began).
  private func holdersHearing(_ key: String) -> [(holder: any HeldValue, heard: (any Sendable)?)] {
    holders(of: key).map { ($0, $0.changeHeard()) }
  }

  /// Reads the row of `key` again (after a reconnect) and puts it in memory if it is newer than what this instance
  /// has; see ``hear(_:key:heardAt:)``.
  private func readAndApply(_ key: String) async {
    await landing.wait()
    defer { landing.signal() }
    await readAndLand(key, heard: holdersHearing(key))
  }

  /// Reads the row of `key` and puts it in memory if it is newer than what this instance has; the caller holds the
  /// landing turn. A read that finds an older version than the ones known when it began finds a row made again
  /// (``KeyVersionStateMachine/rowRecreated(version:knownBeforeRead:found:)``).
  private func readAndLand(_ key: String, heard: [(holder: any HeldValue, heard: (any Sendable)?)]) async {
    do {
      let knownBefore = knownVersion(of: key)
      let row = try await connection.withConnection { try await self.table.read(key, on: $0.connection) }
      let newer = row.map { row in
        state.withLock { state in
          guard var entry = state.keys[key] else { return false }
          defer { state.keys[key] = entry }
          return rowRecreated(&entry.machine, version: row.version, knownBefore: knownBefore)
            || entry.machine.rowRead(version: row.version)
        }
      }
      if let row, newer == true {
        await land(key, version: row.version, json: row.json, heard: heard)
      } else {
        for holder in holders(of: key) { holder.reportLoadError(nil) }
      }
    } catch {
      for holder in holders(of: key) { holder.reportLoadError(SharedPostgresError.wrapping(error)) }
    }
  }

  /// Puts `version` of `key`, decided earlier, in memory if it still may go there: decided again now, since this
  /// instance may have saved or loaded a newer version since the decision, or be saving one. The caller holds the
  /// landing turn.
  private func land(
    _ key: String, version: Int64, json: Data, heard: [(holder: any HeldValue, heard: (any Sendable)?)]
  ) async {
    let holders = heard.map(\.holder)
    let change = StoredChange(version: version, json: json)
    rowSeen(key, ValueTable.Row(json: json, version: version))
    guard state.withLock({ $0.keys[key]?.machine.landingStarted(change) ?? false }) else {
      for holder in holders { holder.reportLoadError(nil) }
      return
    }
    var held = true
    var undecodable = false
    for (holder, mark) in heard {
      switch await holder.receive(json, heard: mark) {
      case .taken: break
      case .kept: held = false
      case .undecodable: (held, undecodable) = (false, true)
      }
    }
    state.withLock { state in
      state.keys[key]?.machine.landingFinished()
      if undecodable {
        state.keys[key]?.machine.rowUndecodable(version: version)
      } else {
        state.keys[key]?.machine.rowDecoded(version: version)
      }
      if held {
        // Memory holds this version, unless a merge wrote a newer one while it landed: that one is the agreed value.
        if version >= state.keys[key]?.machine.baseVersion ?? 0 { state.keys[key]?.agreedJSON = json }
        state.keys[key]?.machine.memoryHolds(version: version)
      }
    }
  }

  private func hasHolders(_ key: String) -> Bool {
    state.withLock { state in state.keys[key].map { !$0.holders.isEmpty } ?? false }
  }

  private func reload(_ key: String) async {
    let failed = state.withLock { $0.keys[key]?.machine.lastSaveFailed ?? false }
    guard failed else { return await readAndApply(key) }
    for holder in holders(of: key) {
      await holder.saveAgain()
      holder.reportLoadError(nil)
    }
  }

  /// Starts writing failed saves again, with a growing delay, until none is left: the connection that reads and
  /// writes may come back while the listening one never dropped (so no reload runs). Each failed value keeps its
  /// `saveError` until it is written.
  private func retryFailedSaves() {
    state.withLock { state in
      guard state.retrying == nil, !state.closed else { return }
      state.retrying = Task { await self.retryingFailedSaves() }
    }
  }

  /// The wait after `failures` failed attempts in a row (from 1): the reconnect delay, doubling with each failure,
  /// up to the maximum.
  private func reconnectDelay(afterFailures failures: Int) -> Duration {
    min(configuration.maximumReconnectDelay, configuration.reconnectDelay * (1 << min(failures - 1, 20)))
  }

  private func retryingFailedSaves() async {
    var attempts = 0
    while !Task.isCancelled {
      attempts += 1
      try? await Task.sleep(for: reconnectDelay(afterFailures: attempts))
      let failed = state.withLock { state -> [String] in
        let failed = state.keys.filter { $0.value.machine.lastSaveFailed && !$0.value.holders.isEmpty }.map(\.key)
        if failed.isEmpty || Task.isCancelled { state.retrying = nil }
        return failed
      }
      if failed.isEmpty || Task.isCancelled { return }
      for key in failed {
        for holder in holders(of: key) { await holder.saveAgain() }
      }
    }
  }

  private func holders(of key: String) -> [any HeldValue] {
    state.withLock { state in state.keys[key].map { Array($0.holders.values) } ?? [] }
  }

  // MARK: Holders

  /// Holds `holder`, whose memory starts from `initialJSON` (the default, or a value loaded already).
  func hold(_ holder: any HeldValue, key: String, initialJSON: Data?) -> UInt64 {
    state.withLock { state in
      state.nextToken += 1
      state.keys[key, default: KeyEntry()].holders[state.nextToken] = holder
      state.keys[key, default: KeyEntry()].agreedJSON = initialJSON
      return state.nextToken
    }
  }

  /// Lets go of a holder; its value is kept in sight (weakly) while it is alive, for ``close(flushingWithin:)``.
  func release(_ token: UInt64, key: String) {
    let (released, earlier) = state.withLock { state in
      let released = state.keys[key]?.holders.removeValue(forKey: token)
      defer { state.released = [] }
      return (released, state.released)
    }
    // Whether an earlier released value is alive reads its box: after the lock.
    var kept = earlier.filter { $0.holder.isAlive }
    if let released, released.isAlive { kept.append((key, released)) }
    state.withLock { $0.released += kept }
    withExtendedLifetime((released, earlier)) {}  // Freed after the lock.
  }

  /// Runs the test hook at `hook`, if a test set one.
  func runHook(_ hook: KeyPath<TestHooks, TestHooks.Hook?>) async {
    if let run = testHooks.withLock({ $0[keyPath: hook] }) { await run() }
  }

  // MARK: Reads and writes

  /// Reads the row of `key` for a load and hands it to `land`, which resumes the load, in turn with other instances'
  /// changes landing (``hear(_:key:heardAt:)``): when one of them landed a newer version since the read, the row is
  /// read again first, so the load does not put an older value over it. The key says with
  /// ``memoryHolds(_:version:)`` whether the value reached memory.
  ///
  /// ``loadStarted(_:)`` comes first, when the framework asks for the load; this ends it.
  func load(_ key: String, land: (ValueTable.Row?) -> Void) async throws {
    var ended = false
    func end() {
      guard !ended else { return }
      ended = true
      let action = state.withLock { $0.keys[key, default: KeyEntry()].machine.loadFinished() }
      if case .redeliver(let change) = action { deliveries.yield(.redeliver(key: key, change)) }
    }
    defer { end() }
    await runHook(\.beforeLoadRead)
    var row = try await readForLoad(key)
    await runHook(\.afterLoadRead)
    await landing.wait()
    defer { landing.signal() }
    // The load ends before the landing turn is given up: a row read and decided in the next turn is then not held
    // (and dropped) for a load that already handed its value over.
    defer { end() }
    if let read = row, state.withLock({ $0.keys[key]?.machine.loadIsBehind(version: read.version) ?? false }) {
      row = try await readForLoad(key)
    }
    land(row)
  }

  /// The framework asked for a load of `key`: changes heard from now on wait until ``load(_:land:)`` ends, so that
  /// none lands in memory after the framework began the load (it would then drop the load's value).
  func loadStarted(_ key: String) {
    state.withLock { $0.keys[key, default: KeyEntry()].machine.loadStarted() }
  }

  private func readForLoad(_ key: String) async throws -> ValueTable.Row? {
    let knownBefore = knownVersion(of: key)
    let row = try await connection.withConnection { try await self.table.read(key, on: $0.connection) }
    rowSeen(key, row, read: true)
    if let row {
      state.withLock { state in
        var machine = state.keys[key, default: KeyEntry()].machine
        _ = rowRecreated(&machine, version: row.version, knownBefore: knownBefore)
        machine.loaded(version: row.version)
        state.keys[key, default: KeyEntry()].machine = machine
      }
    } else {
      state.withLock { $0.keys[key, default: KeyEntry()].machine.rowMissing() }
    }
    return row
  }

  /// Asks `machine` whether a read that found `version` found its row made again; counts it if so, so that
  /// announcements heard before are taken as of the old row. Called under `state`'s lock, which keeps two counts
  /// from taking the same number.
  private func rowRecreated(_ machine: inout KeyVersionStateMachine, version: Int64, knownBefore: Int64) -> Bool {
    let found = recreations.load(ordering: .sequentiallyConsistent) + 1
    guard machine.rowRecreated(version: version, knownBeforeRead: knownBefore, found: found) else { return false }
    recreations.store(found, ordering: .sequentiallyConsistent)
    return true
  }

  /// How many rows made again were found so far (the stamp of an announcement heard now).
  private func recreationsFound() -> UInt64 {
    recreations.load(ordering: .sequentiallyConsistent)
  }

  private func knownVersion(of key: String) -> Int64 {
    state.withLock { $0.keys[key]?.machine.knownVersion ?? 0 }
  }

  /// The JSON memory of `key` last held when it agreed with the row (loaded, landed or written), or the value it
  /// started from: memory that differs from it holds a change of this instance that the row lacks.
  func agreedJSON(of key: String) -> Data? {
    state.withLock { $0.keys[key]?.agreedJSON }
  }

  /// Memory took the value of `version` of `key`, whose JSON is `json`: later merges compare the row against it.
  func memoryHolds(_ key: String, version: Int64, json: Data) {
    state.withLock { state in
      state.keys[key, default: KeyEntry()].machine.memoryHolds(version: version)
      state.keys[key, default: KeyEntry()].agreedJSON = json
    }
  }

  /// Writes `json` as the next version of `key` and announces it. With `merge`: reads the row, and when it holds a
  /// version this instance's memory is not based on, `merge` combines it with `json` (outside every lock and the
  /// connection's turn), then writes the result only if the row is still at the version read (`UPDATE … WHERE
  /// version = …`, or an insert if it is still missing), reading again when another instance wrote meanwhile. No
  /// transaction and no row lock: a connection lost at any point ends the save with an error, never a hang.
  ///
  /// Without `merge` (last writer wins) the row is replaced without being read, once this instance has looked at
  /// it; the first save reads it first, as a merge does. A row that does not decode (`decodes`) is never written
  /// over: the save throws ``SharedPostgresError/undecodableRow(key:version:)`` until the program decides.
  ///
  /// When what `merge` returns is the row's JSON itself (memory holds no change of this instance, or the row holds
  /// the combination already), nothing is written: the save ends on the row's version, as if it had written it.
  ///
  /// `afterWrite` gets what was written and says whether memory now holds it; it runs before the version is taken
  /// as the base of later merges.
  ///
  /// - Returns: The JSON written.
  @discardableResult
  func write(
    _ key: String, json: Data, merge: (@Sendable (Data) throws -> Data)?, decodes: @Sendable (Data) -> Bool,
    afterWrite: (Data) async -> Bool
  ) async throws -> Data {
    await runHook(\.beforeSaveStarted)
    let start = state.withLock { state -> KeyVersionStateMachine.BlindSaveAction in
      if merge != nil {
        let (_, save, insertVersion) = state.keys[key, default: KeyEntry()].machine.saveStarted()
        return .readFirst(save: save, insertVersion: insertVersion)
      }
      return state.keys[key, default: KeyEntry()].machine.blindSaveStarted()
    }
    let save: UInt64
    let insertVersion: Int64
    let readsFirst: Bool
    switch start {
    case .refuse(let version):
      throw SharedPostgresError.undecodableRow(key: key, version: version)
    case .readFirst(let number, let version):
      (save, insertVersion, readsFirst) = (number, version, true)
    case .write(let number, let version):
      (save, insertVersion, readsFirst) = (number, version, false)
    }
    writeStarted()
    var written: (version: Int64, json: Data)?
    var refused: Int64?
    var memoryHoldsWritten = false
    defer {
      let action = state.withLock { state in
        var entry = state.keys[key, default: KeyEntry()]
        defer { state.keys[key] = entry }
        if let refused { return entry.machine.saveRefused(save, version: refused) }
        if memoryHoldsWritten, let written { entry.agreedJSON = written.json }
        return entry.machine.saveFinished(save, written: written?.version, memoryHoldsWritten: memoryHoldsWritten)
      }
      if case .redeliver(let change) = action { deliveries.yield(.redeliver(key: key, change)) }
      if written == nil && refused == nil { retryFailedSaves() }
      writeFinished()
    }
    if readsFirst {
      while written == nil {
        let row = try await readRow(key)
        var toWrite = json
        if let row {
          // The base is read now: a landing during the read moved it.
          let base = state.withLock { $0.keys[key]?.machine.baseVersion ?? 0 }
          if let merge, row.version > base {
            do {
              toWrite = try merge(row.json)
            } catch SharedPostgresError.undecodable(_, _) {
              refused = row.version
              throw SharedPostgresError.undecodableRow(key: key, version: row.version)
            }
            if toWrite == row.json {
              // The row holds what would be written (memory holds no change of this instance): nothing to write.
              written = (row.version, row.json)
              break
            }
          } else if merge == nil, !decodes(row.json) {
            refused = row.version
            throw SharedPostgresError.undecodableRow(key: key, version: row.version)
          }
        } else {
          state.withLock { $0.keys[key]?.machine.rowMissing() }
        }
        let outcome = try await writeChecked(
          key, json: toWrite, expected: row?.version ?? 0, insertVersion: insertVersion)
        // Another instance wrote (or made the row) meanwhile: read it again.
        if case .written(let version) = outcome { written = (version, toWrite) }
      }
    } else {
      let table = self.table
      let version = try await connection.withConnection { session in
        await self.runHook(\.beforeWriteStatement)
        return try await table.write(key, json: json, insertVersion: insertVersion, on: session)
      }
      guard let version else { throw SharedPostgresError.disconnected(reason: "the write returned no version") }
      written = (version, json)
      ownWriteReturned(key, version: version, json: json)
    }
    await runHook(\.afterWriteCommitted)
    memoryHoldsWritten = await afterWrite(written?.json ?? json)
    return written?.json ?? json
  }

  /// Reads the row of `key` on the read/write connection (no lock, no transaction).
  func readRow(_ key: String) async throws -> ValueTable.Row? {
    await runHook(\.beforeRowRead)
    let table = self.table
    let row = try await connection.withConnection { session in
      try session.checkOpen()
      return try await table.read(key, on: session.connection)
    }
    rowSeen(key, row, read: true)
    return row
  }

  /// The newest row of `key` this instance saw, if it saw one: a checked update's first attempt starts from it.
  func lastRowSeen(_ key: String) -> ValueTable.Row? {
    state.withLock { $0.keys[key]?.lastRow }
  }

  /// Another instance's `row` of `key` was heard while no value of the key is held: a checked update starts from it
  /// if it is newer than what this instance saw. Kept only for a key this instance already uses.
  private func rowHeard(_ key: String, _ row: ValueTable.Row) {
    state.withLock { state in
      guard let entry = state.keys[key], row.version > entry.lastRow?.version ?? 0 else { return }
      state.keys[key]?.lastRow = row
    }
  }

  /// A write of this instance returned `version` of `key`, written as `json`.
  private func ownWriteReturned(_ key: String, version: Int64, json: Data) {
    state.withLock { $0.keys[key, default: KeyEntry()].machine.ownWriteReturned(version: version) }
    rowSeen(key, ValueTable.Row(json: json, version: version))
  }

  /// This instance saw `row` of `key`: a read's result replaces what was seen (`nil`: no row); a version written or
  /// heard does only when it is newer.
  private func rowSeen(_ key: String, _ row: ValueTable.Row?, read: Bool = false) {
    state.withLock { state in
      guard read || (row?.version ?? 0) > (state.keys[key]?.lastRow?.version ?? 0) else { return }
      state.keys[key, default: KeyEntry()].lastRow = row
    }
  }

  /// Writes `json` as the next version of `key` only if the row is still at `expected` (0: still missing, then
  /// made at `insertVersion`), and announces it. When the row moved on, nothing is written, and the outcome carries
  /// the row's version and value as the write found them, if it could tell (then the newest row seen, as a read's).
  func writeChecked(
    _ key: String, json: Data, expected: Int64, insertVersion: Int64
  ) async throws -> ValueTable.CheckedWrite {
    let table = self.table
    let outcome = try await connection.withConnection { session in
      await self.runHook(\.beforeWriteStatement)
      return try await table.writeChecked(
        key, json: json, expected: expected, insertVersion: insertVersion, on: session)
    }
    switch outcome {
    case .written(let version): ownWriteReturned(key, version: version, json: json)
    case .conflict(let newest?): rowSeen(key, newest, read: true)
    case .conflict(nil): break
    }
    return outcome
  }

  // MARK: Checked updates and overwrites

  /// The version a missing row of `key` is made at: one above the newest version this instance knows.
  func insertVersion(of key: String) -> Int64 {
    state.withLock { ($0.keys[key]?.machine.knownVersion ?? 0) + 1 }
  }

  /// A row of `key` read at `version` decodes, or does not (and no migration converts it).
  func rowDecoded(_ key: String, version: Int64, decodes: Bool) {
    state.withLock { state in
      if decodes {
        state.keys[key, default: KeyEntry()].machine.rowDecoded(version: version)
      } else {
        state.keys[key, default: KeyEntry()].machine.rowUndecodable(version: version)
      }
    }
  }

  /// A checked update or an overwrite of this instance wrote `version` of `key`: it lands in this instance's
  /// memory as another instance's change would (at once, or once a running save or load of the key ends).
  func landOwnWrite(_ key: String, version: Int64, json: Data) async {
    state.withLock { $0.keys[key]?.machine.rowDecoded(version: version) }
    await hear(StoredChange(version: version, json: json), key: key, heardAt: recreationsFound())
  }

  /// Writes `json` over the row of `key` whatever it holds (the program said so), and lands it in memory.
  func overwrite(_ key: String, json: Data) async throws {
    let insertVersion = state.withLock { state -> Int64 in
      state.keys[key, default: KeyEntry()].machine.overwriteAllowed()
      return state.keys[key, default: KeyEntry()].machine.knownVersion + 1
    }
    writeStarted()
    defer { writeFinished() }
    let table = self.table
    let version = try await connection.withConnection { session in
      try await table.write(key, json: json, insertVersion: insertVersion, on: session)
    }
    guard let version else { throw SharedPostgresError.disconnected(reason: "the write returned no version") }
    ownWriteReturned(key, version: version, json: json)
    await landOwnWrite(key, version: version, json: json)
    for holder in holders(of: key) { holder.programWrote(json) }
  }

  /// Counts a write in flight: ``close(flushingWithin:)`` waits for it.
  func writeStarted() {
    state.withLock { $0.writesRunning += 1 }
  }

  /// Ends a write counted by ``writeStarted()``.
  func writeFinished() {
    let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
      state.writesRunning -= 1
      guard state.writesRunning == 0 else { return [] }
      defer { state.writesIdleWaiters = [] }
      return state.writesIdleWaiters
    }
    for waiter in waiters { waiter.resume() }
  }

  /// Waits until no write is in flight.
  private func writesIdle() async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let now = state.withLock { state -> Bool in
        if state.writesRunning == 0 { return true }
        state.writesIdleWaiters.append(continuation)
        return false
      }
      if now { continuation.resume() }
    }
  }
}
