import Foundation

/// The persisted cache of one ``QueryStore``: the entries (each persisted query's value as JSON), the queries
/// changed since the last write, and the writes, throttled by a ``QueryCacheWriterMachine``.
///
/// The entries are what a write stores and what a query starts from when the store makes it: a restored value waits
/// here, as JSON, until its query is first used (only the query knows the value's type), and stays after it is
/// used, so that a query collected and made again later starts from it too. A change to a persisted query only
/// notes its key; the write that follows reads and encodes the value of each noted query, so that many changes to
/// one query encode it once. A write appends the entries that changed since the last one, when the persister
/// appends, and writes every entry as it is when the appended changes outweigh the cache (see ``QueryCacheFormat``
/// and ``QueryCacheLog``).
///
/// Every decision is made under the engine's lock and acted on after it: encoding and decoding values, the filter's
/// predicate, the persister and the problem callback all run outside every lock. The engine exists, without
/// writing, once the store hydrates a cache; ``startPersisting(_:)`` makes it write.
final class QueryCacheEngine: Sendable {
  private typealias Writer = QueryCacheWriterMachine<UnsafeContinuation<Void, any Error>>

  let store: WeakQueryStore
  private let state = Lock(State())
  /// Decodes restored values as their queries are first used; thread-safe, shared to spare its making per value.
  let decoder = JSONDecoder()

  private struct State {
    var entries: [QueryKey: QueryCacheEntry] = [:]
    /// The serial of the newest entry.
    var serial: UInt64 = 0
    /// Set while the store persists.
    var persisting: Persisting?
    /// Whether persisting was asked for: it starts once the stored cache is restored.
    var isStarted = false
  }

  /// The writes of a store that persists.
  private struct Persisting {
    var options: QueryCachePersistence
    var writer = Writer()
    /// The queries whose values changed since the write under way (or the last one) read them.
    var changed: Set<QueryKey> = []
    /// The keys whose entries changed otherwise (put in, dropped, removed, invalidated) since the write under way
    /// (or the last one) took them: the next appended frame records them.
    var dirty: Set<QueryKey> = []
    /// What the stored bytes are: whether the next write appends.
    var log = QueryCacheLog()
    /// The write reading values now, if one does.
    var inFlight: InFlight?
    /// What the write storing its bytes now (after its reads) stores, if one does: the flush at exit, which may
    /// skip that write, covers it.
    var storing: Storing?
    /// The timer running, by its machine identifier.
    var timer: (id: UInt64, task: Task<Void, Never>)?
    var flushes: UInt64 = 0
    /// Flushes that asked for an identifier and have not reached the machine yet.
    var unregisteredFlushes: Set<UInt64> = []
    /// Flushes cancelled before they reached the machine.
    var cancelledFlushes: Set<UInt64> = []
    /// The number of the newest write started (the flush at exit writes with the next): the file store skips a
    /// write older than one it holds.
    var writeSequence: UInt64 = 0
  }

  /// What a write stores once it has read its values.
  private enum Storing {
    /// A frame recording these keys.
    case frame(Set<QueryKey>)
    /// The whole cache, or its removal.
    case whole
  }

  /// A write that reads the values of `keys` outside the lock: what happens to those keys meanwhile, so that a
  /// value read before a removal never comes back.
  private struct InFlight {
    var keys: Set<QueryKey>
    /// The keys whose entries the write records without reading a value.
    var dirty: Set<QueryKey> = []
    var removed: Set<QueryKey> = []
    var invalidated: Set<QueryKey> = []
    /// The keys whose queries were collected meanwhile, their values put in as entries (see ``collected(_:)``): a
    /// value the write read before is older, and the next write records the entry.
    var collected: Set<QueryKey> = []
  }

  init(store: QueryStore) {
    self.store = WeakQueryStore(store: store)
  }

  // MARK: Entries

  /// The entry of `key`, if there is one younger than the ``QueryCachePersistence/maxAge``; an expired one is
  /// dropped.
  func entry(for key: QueryKey) -> QueryCacheEntry? {
    let now = Date()
    return state.withLockReleasingAfter { state -> (result: QueryCacheEntry?, released: QueryCacheEntry?) in
      guard let entry = state.entries[key] else { return (nil, nil) }
      if let maxAge = state.persisting?.options.maxAge, entry.isExpired(maxAge: maxAge, now: now) {
        return (nil, state.entries.removeValue(forKey: key))
      }
      return (entry, nil)
    }
  }

  /// The value of the entry of `key`, as ``entry(for:)`` finds it: the entry itself is not copied out, so a read
  /// of every restored value once retains and releases only the value's bytes.
  func storedValue(for key: QueryKey) -> Data? {
    let now = Date()
    return state.withLockReleasingAfter { state -> (result: Data?, released: QueryCacheEntry?) in
      guard let index = state.entries.index(forKey: key) else { return (nil, nil) }
      if let maxAge = state.persisting?.options.maxAge, state.entries.values[index].isExpired(maxAge: maxAge, now: now)
      {
        return (nil, state.entries.remove(at: index).value)
      }
      return (state.entries.values[index].value, nil)
    }
  }

  /// The entries under `prefix`.
  func entries(under prefix: QueryKey) -> [QueryCacheEntry] {
    state.withLock { state in state.entries.values.filter { $0.key.hasPrefix(prefix) } }
  }

  /// Drops `entry` (if it is still the one of its key) for `problem`, which is reported.
  func drop(_ entry: QueryCacheEntry, because problem: QueryCacheProblem) {
    let (action, onProblem) = state.withLockReleasingAfter {
      state -> (
        result: (Writer.ChangeAction, (@Sendable (QueryCacheProblem) -> Void)?), released: QueryCacheEntry?
      ) in
      let onProblem = state.persisting?.options.onProblem
      guard state.entries[entry.key]?.serial == entry.serial else { return ((.none, onProblem), nil) }
      let dropped = state.entries.removeValue(forKey: entry.key)
      state.persisting?.dirty.insert(entry.key)
      return ((state.persisting?.writer.changed() ?? .none, onProblem), dropped)
    }
    act(action)
    onProblem?(problem)
  }

  /// Puts `entries` in, each unless an entry of its key is as recent; returns how many were put in.
  func insert(_ entries: [QueryCacheEntry]) -> Int {
    guard !entries.isEmpty else { return 0 }
    let (inserted, action) = state.withLockReleasingAfter { state in
      var inserted = 0
      var replaced: [QueryCacheEntry] = []
      state.entries.reserveCapacity(state.entries.count + entries.count)
      for var entry in entries {
        let key = entry.key
        // One lookup for a key not held yet (every key of a restore at launch): the slot found is filled in place.
        let index = state.entries.index(forKey: key)
        if let index, state.entries.values[index].updatedAt >= entry.updatedAt { continue }
        state.serial += 1
        entry.serial = state.serial
        if let index {
          replaced.append(state.entries.values[index])
          state.entries.values[index] = consume entry
        } else {
          state.entries[key] = consume entry
        }
        state.persisting?.dirty.insert(key)
        inserted += 1
      }
      let action = inserted > 0 ? state.persisting?.writer.changed() ?? .none : Writer.ChangeAction.none
      return (result: (inserted, action), released: replaced)
    }
    act(action)
    return inserted
  }

  // MARK: Events

  /// The value of the query named `key` changed: a write will read it, if the store persists it.
  func valueChanged(_ key: QueryKey) {
    guard let filter = state.withLock({ $0.persisting?.options.filter }), filter.accepts(key) else { return }
    let action = state.withLock { state -> Writer.ChangeAction in
      guard state.persisting != nil else { return .none }
      state.persisting?.changed.insert(key)
      return state.persisting?.writer.changed() ?? .none
    }
    act(action)
  }

  /// The queries `filter` reaches were removed from the store, or reset: their entries go.
  func removed(_ filter: QueryFilter) {
    let keys = keys(reachedBy: filter)
    guard !keys.isEmpty else { return }
    let action = state.withLockReleasingAfter { state in
      var released: [QueryCacheEntry] = []
      var releasedKeys: [QueryKey] = []  // A key's parts are the app's values: released after the lock.
      var changed = false
      for key in keys {
        if let entry = state.entries.removeValue(forKey: key) {
          released.append(entry)
          state.persisting?.dirty.insert(key)
          changed = true
        }
        if let noted = state.persisting?.changed.remove(key) {
          releasedKeys.append(noted)
          changed = true
        }
        if state.persisting?.inFlight?.keys.contains(key) == true {
          state.persisting?.inFlight?.removed.insert(key)
          changed = true
        }
      }
      let action = changed ? state.persisting?.writer.changed() ?? .none : Writer.ChangeAction.none
      return (result: action, released: (released, releasedKeys))
    }
    act(action)
  }

  /// The queries `filter` reaches were invalidated: their entries say so, and a restore refetches them.
  func invalidated(_ filter: QueryFilter) {
    let keys = keys(reachedBy: filter)
    guard !keys.isEmpty else { return }
    let action = state.withLock { state in
      var changed = false
      for key in keys {
        if state.entries[key]?.isInvalidated == false {
          state.entries[key]?.isInvalidated = true
          state.persisting?.dirty.insert(key)
          changed = true
        }
        if state.persisting?.inFlight?.keys.contains(key) == true {
          state.persisting?.inFlight?.invalidated.insert(key)
          changed = true
        }
      }
      return changed ? state.persisting?.writer.changed() ?? .none : .none
    }
    act(action)
  }

  /// The keys among `keys` whose queries changed values that no write has stored yet (noted, or being read): a
  /// query collected now hands its value over (see ``collected(_:)``).
  func waitingKeys(among keys: [QueryKey]) -> Set<QueryKey> {
    state.withLock { state in
      guard let persisting = state.persisting, !persisting.changed.isEmpty || persisting.inFlight != nil else {
        return []
      }
      return Set(
        keys.filter { key in
          persisting.changed.contains(key)
            || (persisting.inFlight?.keys.contains(key) == true && persisting.inFlight?.removed.contains(key) != true)
        })
    }
  }

  /// The queries of `accesses` were collected with changed values that no write has stored: their values are read
  /// now (after every lock) and put in as their entries, which the next write records, since no write can read
  /// them from the store any more.
  func collected(_ accesses: [QueryKey: QueryCacheAccess]) {
    guard !accesses.isEmpty else { return }
    let (reads, problems) = read(accesses)
    let now = Date()
    let (action, onProblem) = state.withLockReleasingAfter {
      state -> (
        result: (Writer.ChangeAction, (@Sendable (QueryCacheProblem) -> Void)?), released: [QueryCacheEntry]
      ) in
      let onProblem = state.persisting?.options.onProblem
      var released: [QueryCacheEntry] = []
      var isChanged = false
      for (key, read, keyBytes) in reads {
        // Removed since it was found waiting: nothing of it is stored.
        let isInFlight =
          state.persisting?.inFlight?.keys.contains(key) == true
          && state.persisting?.inFlight?.removed.contains(key) != true
        guard state.persisting?.changed.contains(key) == true || isInFlight else { continue }
        switch read {
        case .value(let data, let updatedAt, let fallback):
          guard let keyBytes else { continue }
          state.serial += 1
          var entry = QueryCacheEntry(
            key: key, keyBytes: keyBytes, value: data, updatedAt: updatedAt, fallback: fallback,
            replacing: state.entries[key], now: now)
          entry.serial = state.serial
          if let previous = state.entries.updateValue(entry, forKey: key) { released.append(previous) }
        case .noValue:
          if let previous = state.entries.removeValue(forKey: key) { released.append(previous) }
        case .failed:
          continue
        }
        if isInFlight { state.persisting?.inFlight?.collected.insert(key) }
        state.persisting?.dirty.insert(key)
        isChanged = true
      }
      let action = isChanged ? state.persisting?.writer.changed() ?? .none : Writer.ChangeAction.none
      return ((action, onProblem), released)
    }
    act(action)
    for problem in problems { onProblem?(problem) }
  }

  /// The keys of the entries and of the noted or read queries that `filter` reaches; its predicate runs here, after
  /// the lock.
  private func keys(reachedBy filter: QueryFilter) -> [QueryKey] {
    let candidates = state.withLock { state -> [QueryKey] in
      // An exact key's predicate is asked too, after the lock.
      if filter.isExact {
        let key = filter.key
        let isKnown =
          state.entries[key] != nil || state.persisting?.changed.contains(key) == true
          || state.persisting?.inFlight?.keys.contains(key) == true
        return isKnown ? [key] : []
      }
      var keys = Set(state.entries.keys.filter { $0.hasPrefix(filter.key) })
      if let persisting = state.persisting {
        keys.formUnion(persisting.changed.filter { $0.hasPrefix(filter.key) })
        keys.formUnion(persisting.inFlight?.keys.filter { $0.hasPrefix(filter.key) } ?? [])
      }
      return Array(keys)
    }
    guard let predicate = filter.predicate else { return candidates }
    return candidates.filter(predicate)
  }

  // MARK: Persisting

  /// The version of the cache the store persists, if it does.
  var version: String? { state.withLock { $0.persisting?.options.version } }

  /// Reports `problem` to the persisted cache's callback, if the store persists; call outside every lock.
  func report(_ problem: QueryCacheProblem) {
    state.withLock { $0.persisting?.options.onProblem }?(problem)
  }

  /// Restores the cache `options` keeps, then writes the persisted queries' changes from now on.
  func startPersisting(_ options: QueryCachePersistence) async -> QueryCacheRestore {
    let isFirst = state.withLock { state in
      defer { state.isStarted = true }
      return !state.isStarted
    }
    precondition(isFirst, "A query store persists its cache once: persistCache(_:) was called before")
    if let file = options.persister as? FileQueryCachePersister {
      do {
        try file.claim()
      } catch {
        // In use elsewhere: the store neither restores nor writes the file, and may ask again later.
        state.withLock { $0.isStarted = false }
        options.onProblem?(error)
        return QueryCacheRestore(restored: 0, problem: error)
      }
    }
    var restore = QueryCacheRestore(restored: 0)
    var dropsStoredCache = false
    var log = QueryCacheLog()
    do {
      if let data = try await options.persister.load() {
        var contents = try QueryCacheFormat.decode(data)
        if contents.version != options.version {
          throw QueryCacheProblem.versionMismatch(stored: contents.version, expected: options.version)
        }
        if let cut = contents.cut {
          restore.problem = .cutShort(droppedBytes: cut.droppedBytes, reason: cut.reason)
        }
        let oldest = Date().addingTimeInterval(-options.maxAge.timeInterval)
        // Filtered in place: the entries are moved, not copied, and most often none is removed.
        var chosen = contents.entries
        contents.entries = []
        var expired = 0
        var excluded = 0
        chosen.removeAll { entry in
          if entry.isObtained(before: oldest) {
            expired += 1
            return true
          }
          if options.filter.accepts(entry.key) { return false }
          excluded += 1
          return true
        }
        restore.expired = expired
        restore.excluded = excluded
        let (restored, problems) = store.store?.hydrate(chosen, engine: self) ?? (0, [])
        restore.restored = restored
        for problem in problems { options.onProblem?(problem) }
        dropsStoredCache = restore.expired > 0 || restore.excluded > 0 || contents.cut != nil
        if contents.isAppendable, !dropsStoredCache, options.persister.appendsChanges {
          log = QueryCacheLog(restoredBytes: data.count, wholeBytes: contents.liveBytes)
        }
      }
    } catch let problem as QueryCacheProblem {
      restore.problem = problem
      dropsStoredCache = true
    } catch {
      restore.problem = .unreadable(reason: String(describing: error))
    }
    // The queries the store already has (made before the restore, or during it) are persisted too.
    let present = store.store?.recordKeys(under: options.filter.key) ?? []
    let chosen = options.filter.predicate.map { present.filter($0) } ?? present
    let action = state.withLock { state in
      state.persisting = Persisting(options: options, changed: Set(chosen), log: log)
      return dropsStoredCache || !chosen.isEmpty ? state.persisting?.writer.changed() ?? .none : .none
    }
    act(action)
    // What waits for the throttle is written by the registry's flush and at a normal exit (QueryCacheEngine+Exit).
    store.store?.registry?.flushParticipants.join(self)
    if let problem = restore.problem { options.onProblem?(problem) }
    return restore
  }

  /// What the flush at exit writes: the keys changed since the last write ended (those of a write under way too),
  /// the keys whose entries changed otherwise (to record as they are), the entries as they are, whether the stored
  /// log takes an appended frame, and the number of the exit's write; `nil` when the store does not persist or
  /// nothing waits. A removal, a dropped entry or an invalidation waits too, with no key to read: the writer has a
  /// change no successful write covered.
  func pendingAtExit() -> PendingAtExit? {
    state.withLock { state in
      guard let persisting = state.persisting else { return nil }
      let keys = persisting.changed.union(persisting.inFlight?.keys ?? [])
      guard !keys.isEmpty || persisting.writer.hasUnwrittenChanges else { return nil }
      state.persisting?.writeSequence += 1
      // A write storing its bytes now may be skipped after the exit's, or may fail part way (a full disk) and leave
      // torn bytes the exit's frame would land behind: the exit then writes the whole cache, which replaces the file
      // whatever that write leaves. Its frame's keys are recorded again all the same.
      var dirty = persisting.dirty.union(persisting.inFlight?.dirty ?? [])
      var appends = persisting.log.isAppendable && persisting.options.persister.appendsChanges
      switch persisting.storing {
      case .frame(let recorded):
        dirty.formUnion(recorded)
        appends = false
      case .whole: appends = false
      case nil: break
      }
      return PendingAtExit(
        keys: keys, dirty: dirty, entries: state.entries, appends: appends, options: persisting.options,
        sequence: persisting.writeSequence + 1)
    }
  }

  /// What waits to be written as the process exits: see ``pendingAtExit()``.
  struct PendingAtExit {
    var keys: Set<QueryKey>
    var dirty: Set<QueryKey>
    var entries: [QueryKey: QueryCacheEntry]
    /// Whether the stored bytes take an appended frame: a write under way that is skipped after the exit's (an
    /// older one) leaves them as they were before it.
    var appends: Bool
    var options: QueryCachePersistence
    var sequence: UInt64
  }

  /// Writes every change made so far, and returns once it is written; at once when nothing waits to be written.
  func flush() async throws {
    let id = state.withLock { state -> UInt64? in
      guard state.persisting != nil else { return nil }
      state.persisting?.flushes += 1
      let id = state.persisting?.flushes ?? 0
      state.persisting?.unregisteredFlushes.insert(id)
      return id
    }
    guard let id else { return }
    try await withTaskCancellationHandler {
      try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<Void, any Error>) in
        let action = state.withLock { state -> FlushStep in
          state.persisting?.unregisteredFlushes.remove(id)
          if state.persisting?.cancelledFlushes.remove(id) != nil { return .cancelled }
          guard let action = state.persisting?.writer.flushRequested(id, waiter: continuation) else { return .done }
          switch action {
          case .resume: return .done
          case .wait: return .wait
          case .write(let timer): return .write(cancelling: cancelTimer(timer, in: &state))
          }
        }
        switch action {
        case .cancelled: continuation.resume(throwing: CancellationError())
        case .done: continuation.resume()
        case .wait: break
        case .write(let timer):
          timer?.cancel()
          startWrite()
        }
      }
    } onCancel: {
      let waiter = state.withLock { state -> UnsafeContinuation<Void, any Error>? in
        if state.persisting?.unregisteredFlushes.remove(id) != nil {
          state.persisting?.cancelledFlushes.insert(id)
          return nil
        }
        guard case .resumeCancelled(let waiter) = state.persisting?.writer.flushCancelled(id) else { return nil }
        return waiter
      }
      waiter?.resume(throwing: CancellationError())
    }
  }

  /// What a flush does after the lock.
  private enum FlushStep {
    case cancelled
    case done
    case wait
    /// Write now, after cancelling this timer.
    case write(cancelling: Task<Void, Never>?)
  }

  /// Takes the task of the timer `id` out of `state`, to be cancelled after the lock.
  private func cancelTimer(_ id: UInt64?, in state: inout State) -> Task<Void, Never>? {
    guard let id, let timer = state.persisting?.timer, timer.id == id else { return nil }
    state.persisting?.timer = nil
    return timer.task
  }

  /// Acts on a change's decision: starts the throttle's timer.
  private func act(_ action: Writer.ChangeAction) {
    guard case .startTimer(let id) = action else { return }
    startTimer(id)
  }

  private func startTimer(_ id: UInt64) {
    guard let options = state.withLock({ $0.persisting?.options }) else { return }
    let (clock, throttle) = (options.clock, options.throttle)
    // Weak: a store freed with a write waiting lets its engine go (see ``QueryStore/flushPersistedCache()``).
    let task = Task.detached { [weak self] in
      do { try await clock.sleep(for: throttle, waitingFor: .cacheThrottle) } catch { return }
      self?.timerEnded(id)
    }
    let isKept = state.withLock { state -> Bool in
      // The timer may have ended, or been overtaken by a flush, already: then it is not kept.
      guard state.persisting?.writer.phase == .waiting(timer: id) else { return false }
      state.persisting?.timer = (id, task)
      return true
    }
    if !isKept { task.cancel() }
  }

  private func timerEnded(_ id: UInt64) {
    let writes = state.withLock { state -> Bool in
      if state.persisting?.timer?.id == id { state.persisting?.timer = nil }
      return state.persisting?.writer.timerEnded(id) == .write
    }
    if writes { startWrite() }
  }

  private func startWrite() {
    Task.detached { await self.write() }
  }

  /// What a write read of one query: its value (or why there is none), and its key's bytes for a value.
  private typealias Read = (key: QueryKey, read: QueryCacheRead, keyBytes: Data?)

  /// Reads and encodes the values of the queries named `keys`, after every lock, with the problems met.
  ///
  /// The values are let go as it returns, before the write goes on: a value the writer still kept would count as
  /// held, and its query would wait for a collection, until the write ended (after its flushes were answered).
  private func read(_ keys: Set<QueryKey>) -> (reads: [Read], problems: [QueryCacheProblem]) {
    // Each access keeps its value only until the reads end.
    read(keys.isEmpty ? [:] : store.store?.cacheAccesses(for: keys) ?? [:])
  }

  /// Reads and encodes the values of `accesses`, after every lock, with the problems met.
  private func read(_ accesses: [QueryKey: QueryCacheAccess]) -> (reads: [Read], problems: [QueryCacheProblem]) {
    let encoder = JSONEncoder()
    var reads: [Read] = []
    var problems: [QueryCacheProblem] = []
    for (key, access) in accesses {
      let read = access.read(encoder)
      if case .failed(let problem) = read { problems.append(problem) }
      guard case .value = read else {
        reads.append((key, read, nil))
        continue
      }
      guard let keyBytes = QueryKeyCoding.bytes(of: key) else {
        problems.append(.unsupportedKey(key))
        continue
      }
      reads.append((key, read, Data(keyBytes)))
    }
    return (reads, problems)
  }

  /// What one write stores: the changed entries appended, every entry, or nothing (the cache became empty).
  private enum Stored {
    case frame(puts: [QueryCacheEntry], removals: [QueryKey])
    case whole([QueryKey: QueryCacheEntry])
    case removal
  }

  /// One write: reads and encodes the values of the changed queries, updates their entries, and stores the entries
  /// that changed (appended) or every entry (a whole write), as ``QueryCacheLog`` decides.
  private func write() async {
    let taken = state.withLock { state -> (keys: Set<QueryKey>, options: QueryCachePersistence, sequence: UInt64)? in
      guard let persisting = state.persisting else { return nil }
      let keys = persisting.changed
      state.persisting?.changed = []
      state.persisting?.dirty = []
      state.persisting?.inFlight = InFlight(keys: keys, dirty: persisting.dirty)
      state.persisting?.writeSequence += 1
      return (keys, persisting.options, persisting.writeSequence + 1)
    }
    guard let (keys, options, sequence) = taken else { return }
    let (reads, problems) = read(keys)
    let now = Date()
    let appends = options.persister.appendsChanges
    let stored = state.withLockReleasingAfter { state -> (result: Stored, released: [QueryCacheEntry]) in
      var released: [QueryCacheEntry] = []
      let inFlight = state.persisting?.inFlight
      state.persisting?.inFlight = nil
      var recorded = inFlight?.dirty ?? []
      for (key, read, keyBytes) in reads
      where inFlight?.removed.contains(key) != true && inFlight?.collected.contains(key) != true {
        recorded.insert(key)
        switch read {
        case .value(let data, let updatedAt, let fallback):
          guard let keyBytes else { continue }
          state.serial += 1
          var entry = QueryCacheEntry(
            key: key, keyBytes: keyBytes, value: data, updatedAt: updatedAt, fallback: fallback,
            replacing: state.entries[key], now: now, invalidated: inFlight?.invalidated.contains(key) == true)
          entry.serial = state.serial
          if let previous = state.entries.updateValue(entry, forKey: key) { released.append(previous) }
        case .noValue:
          if let previous = state.entries.removeValue(forKey: key) { released.append(previous) }
        case .failed:
          break
        }
      }
      guard !state.entries.isEmpty else {
        state.persisting?.storing = .whole
        return (.removal, released)
      }
      if appends, let log = state.persisting?.log {
        var puts: [QueryCacheEntry] = []
        var removals: [QueryKey] = []
        var frameBytes = QueryCacheFormat.frameOverhead + 4
        for key in recorded {
          if let entry = state.entries[key] {
            puts.append(entry)
            frameBytes += QueryCacheFormat.putSize(entry)
          } else {
            removals.append(key)
            frameBytes += 5 + 32  // The key's bytes are made after the lock: a removal is small, whatever its key.
          }
        }
        if log.appends(frameBytes: frameBytes) {
          state.persisting?.storing = .frame(recorded)
          return (.frame(puts: puts, removals: removals), released)
        }
      }
      state.persisting?.storing = .whole
      // A whole write leaves out the entries that grew too old; an appended frame leaves them to the restore.
      let oldest = now.addingTimeInterval(-options.maxAge.timeInterval)
      let expired = state.entries.values.filter { $0.isObtained(before: oldest) }
      for entry in expired { state.entries[entry.key] = nil }
      released += expired
      return state.entries.isEmpty ? (.removal, released) : (.whole(state.entries), released)
    }
    for problem in problems { options.onProblem?(problem) }
    var failure: QueryCacheProblem?
    var written: (bytes: Int, isWhole: Bool)?
    do {
      written = try await persist(stored, options: options, savedAt: now, sequence: sequence)
    } catch {
      failure = .unwritable(reason: String(describing: error))
    }
    let ended = state.withLock { state in
      state.persisting?.storing = nil
      switch written {
      case .some((let bytes, isWhole: true)): state.persisting?.log.wroteWhole(bytes)
      case .some((let bytes, isWhole: false)): state.persisting?.log.appended(bytes)
      case nil: state.persisting?.log.needsWholeWrite()  // Removed, or failed: part of a frame may be there.
      }
      return state.persisting?.writer.writeEnded(succeeded: failure == nil)
    }
    for waiter in ended?.resumed ?? [] {
      if let failure { waiter.resume(throwing: failure) } else { waiter.resume() }
    }
    if let failure { options.onProblem?(failure) }
    guard let ended else { return }
    switch ended.next {
    case .startTimer(let id): startTimer(id)
    case .write: startWrite()
    case .none: break
    }
  }

  /// Stores what a write decided, after every lock: the size written and whether it was the whole cache; `nil` for
  /// a removal.
  private func persist(
    _ stored: Stored,
    options: QueryCachePersistence,
    savedAt: Date,
    sequence: UInt64
  ) async throws -> (bytes: Int, isWhole: Bool)? {
    let file = options.persister as? FileQueryCachePersister
    switch stored {
    case .removal:
      if let file { try await file.remove(sequence: sequence) } else { try await options.persister.remove() }
      return nil
    case .whole(let entries):
      let data = QueryCacheFormat.encode(version: options.version, savedAt: savedAt, entries: entries.values)
      if let file { try await file.save(data, sequence: sequence) } else { try await options.persister.save(data) }
      return (data.count, true)
    case .frame(let puts, let removals):
      guard !puts.isEmpty || !removals.isEmpty else { return (0, false) }
      let data = QueryCacheFormat.frame(putting: puts, removing: removals.compactMap(Self.keyBytes))
      if let file {
        try await file.append(data, sequence: sequence)
      } else {
        try await options.persister.append(data)
      }
      return (data.count, false)
    }
  }

  /// The bytes of `key` as a cache stores them; `nil` for a key a cache cannot hold (never stored, so never removed).
  static func keyBytes(_ key: QueryKey) -> Data? {
    QueryKeyCoding.bytes(of: key).map { Data($0) }
  }
}
