import Foundation

extension SharedInspector {
  /// Every key of the registry now: its live values, every query and mutation of its store, and its mutation queues,
  /// sorted by ``InspectedKey/id``.
  ///
  /// ```swift
  /// let snapshot = SharedRegistry.current.inspector.snapshot()
  /// for key in snapshot.keys where key.kind == .query {
  ///   print(key.name, key.operation?.status.rawValue ?? "-")
  /// }
  /// ```
  ///
  /// Works whether an inspector is attached or not. The registry's and the store's locks are held only to list the
  /// values; each value is then read under its own lock for a moment, and summarized (encoded or described) after
  /// every lock. A query that sleeps (nobody used it at the last garbage check) shows its kept value.
  ///
  /// - Returns: The snapshot.
  public func snapshot() -> SharedSnapshot {
    let takenAt = Date()
    guard let registry else { return SharedSnapshot(takenAt: takenAt, keys: []) }
    // First what needs the values' objects, none of it the program's code: the references are counted and each value
    // read under its own lock. The objects are let go before anything is summarized, so that a summary that takes
    // long keeps no value from looking held (to the store's garbage checks, say).
    // Queries are listed by their store (which keeps those nobody holds), not by the registry.
    var entries = registry.state.withLock { $0.liveEntries(excluding: QueryKey.self) }
    var queries = registry.existingQueries?.inspectionParts() ?? []
    // Each object is counted while the arrays above and the one given to `counts` hold it (the store's record or the
    // registry also holds some): what is left are the program's references.
    let queryCounts = ReferenceCount.counts(of: queries.compactMap(\.root))
    let entryCounts = ReferenceCount.counts(of: entries.map(\.object))
    var countIndex = 0
    let readQueries = queries.map { found -> ReadQuery in
      var parts = found
      parts.root = nil  // Kept by `found` until the arrays are emptied below.
      guard let root = found.root else {
        let value = parts.sleepingValue ?? (nil as Int?) as Any
        return ReadQuery(parts: parts, value: InspectedValueParts(value: value, valueType: type(of: value)))
      }
      defer { countIndex += 1 }
      return ReadQuery(
        parts: parts, value: (root as? any InspectableObject)?.inspectedParts(), root: ObjectIdentifier(root),
        holders: max(queryCounts[countIndex] - ReferenceCount.inspectionsOwn - 2, 0))
    }
    let readEntries = entries.enumerated().map { index, entry in
      let references = entryCounts[index] - ReferenceCount.inspectionsOwn - 1 - (entry.isPermanent ? 1 : 0)
      return ReadEntry(
        id: entry.id, value: (entry.object as? any InspectableObject)?.inspectedParts(),
        holders: max(entry.isBox ? references / 2 : references, 0))
    }
    entries.removeAll()
    queries.removeAll()
    // Then the summaries, the program's code, with no lock held and no value's object.
    let forced = forcedStates
    var stale: [QueryKey] = []
    var keys: [InspectedKey] = []
    keys.reserveCapacity(readQueries.count + readEntries.count)
    for read in readQueries {
      guard let value = read.value else { continue }
      var isForced = false
      if let state = forced[read.parts.key] {
        isForced = state.isShown(root: read.root, version: value.version)
        if !isForced { stale.append(read.parts.key) }
      }
      keys.append(
        Self.inspect(read.parts, value: value, holders: read.holders, isForced: isForced, takenAt: takenAt))
    }
    for read in readEntries {
      if let key = Self.inspect(read, takenAt: takenAt) { keys.append(key) }
    }
    for queue in trackedQueues { keys.append(Self.inspect(queue)) }
    // A forced state that no value shows any more (a fetch ended it, the query went) is not kept for a restore.
    if !forced.isEmpty {
      let listed = Set(readQueries.map(\.parts.key))
      forget(stale + forced.keys.filter { !listed.contains($0) })
    }
    keys.sort { $0.id < $1.id }
    return SharedSnapshot(takenAt: takenAt, keys: keys)
  }

  /// A mutation queue: its entries and whether it runs them, summarized as JSON; its file's save error.
  private static func inspect(_ queue: MutationQueue) -> InspectedKey {
    let parts = (queue.shown.root as? any InspectableObject)?.inspectedParts()
    let state = parts?.value as? MutationQueueState ?? queue.state.wrappedValue
    var key = InspectedKey(
      name: queue.url.path, kind: .mutationQueue, valueType: String(reflecting: MutationQueueState.self),
      value: ValueSummary(of: QueueSummary(state)), version: parts?.version ?? 0,
      iterations: parts?.iterations ?? 0, observers: parts?.observers ?? 0)
    key.store = InspectedStore(
      isLoading: !state.isRestored, loadError: nil, saveError: state.saveError.map { String(describing: $0.error) })
    return key
  }

  /// What a snapshot shows of a mutation queue's state.
  private struct QueueSummary: Encodable {
    struct Entry: Encodable {
      let key: String
      let status: String
      let attempts: Int
      let failureCount: Int
      let lastError: String?
      let enqueuedAt: Date
      let isSaved: Bool
    }

    let isOnline: Bool
    let isPaused: Bool
    let isRestored: Bool
    let entries: [Entry]

    init(_ state: MutationQueueState) {
      isOnline = state.isOnline
      isPaused = state.isPaused
      isRestored = state.isRestored
      // The entries that gave up after the queued ones, with the status "failed".
      entries = (state.entries + state.failed).map { entry in
        let status: String
        switch entry.status {
        case .waiting: status = "waiting"
        case .running: status = "running"
        case .waitingToRetry: status = "waitingToRetry"
        case .blocked(let error): status = "blocked: \(error)"
        case .failed: status = "failed"
        }
        return Entry(
          key: entry.key.description, status: status, attempts: entry.attempts, failureCount: entry.failureCount,
          lastError: entry.lastError.map { String(describing: $0.error) }, enqueuedAt: entry.enqueuedAt,
          isSaved: entry.isSaved)
      }
    }
  }

  /// A query as the snapshot read it, before it is summarized.
  private struct ReadQuery {
    let parts: QueryRecordParts
    let value: InspectedValueParts?
    var root: ObjectIdentifier?
    var holders = 0
  }

  /// A registry's value as the snapshot read it, before it is summarized.
  private struct ReadEntry {
    let id: Any
    let value: InspectedValueParts?
    let holders: Int
  }

  private static func inspect(_ entry: ReadEntry, takenAt: Date) -> InspectedKey? {
    guard let parts = entry.value else { return nil }
    let kind: InspectedKey.Kind
    let description: String
    switch entry.id {
    case let id as InMemoryKeyID:
      (kind, description) = (.inMemory, id.name)
    case let id as MutationKeyID:
      (kind, description) = (.mutation, id.name)
    case let id as FileStorageKeyID:
      (kind, description) = (.file, id.path)
    default:
      kind = .custom
      description = parts.store.map { String(describing: $0.key) } ?? String(describing: entry.id)
    }
    return inspectedKey(parts, description: description, kind: kind, holders: entry.holders)
  }

  private static func inspect(
    _ parts: QueryRecordParts,
    value valueParts: InspectedValueParts,
    holders: Int,
    isForced: Bool,
    takenAt: Date
  ) -> InspectedKey {
    var key = inspectedKey(valueParts, description: parts.key.description, kind: .query, holders: holders)
    key.queryKey = parts.key
    // The query's clock is the program's: read here, after every lock.
    let now = parts.stopwatch.elapsed()
    let freshFor = parts.fetchedAt.map { $0 + parts.staleTime - now }
    let isStale = freshFor.map { $0 <= .zero } ?? true
    var collectedIn: Duration?
    if !parts.isHeld {
      collectedIn = parts.unusedSince.map { $0 + parts.gcTime - now } ?? parts.gcTime
    }
    key.query = InspectedQuery(
      isStale: isStale, staleAt: isStale ? nil : freshFor.map { Self.date(takenAt, plus: $0) },
      isHeld: parts.isHeld, isEnabled: parts.isEnabled, collectedAt: collectedIn.map { Self.date(takenAt, plus: $0) },
      isForced: isForced, meta: parts.meta.summary)
    return key
  }

  private static func inspectedKey(
    _ parts: InspectedValueParts,
    description: String,
    kind: InspectedKey.Kind,
    holders: Int
  ) -> InspectedKey {
    var key = InspectedKey(
      name: description, kind: kind, valueType: String(reflecting: parts.valueType),
      value: ValueSummary(of: parts.value), version: parts.version, holders: holders, iterations: parts.iterations,
      observers: parts.observers)
    if let trackable = parts.value as? any OperationTrackable {
      key.operation = InspectedOperation(trackable.operation)
    }
    if let mutation = parts.value as? any InspectedMutationHistory {
      key.mutationRuns = mutation.inspectedRuns
    }
    if let store = parts.store {
      key.store = InspectedStore(
        isLoading: store.isLoading, loadError: store.loadError.map { String(describing: $0) },
        saveError: store.saveError.map { String(describing: $0) })
    }
    return key
  }

  /// The date `interval` after `date` (`date` itself for an interval that has passed).
  private static func date(_ date: Date, plus interval: Duration) -> Date {
    let seconds = Double(interval.components.seconds) + Double(interval.components.attoseconds) / 1e18
    return date.addingTimeInterval(max(seconds, 0))
  }
}
