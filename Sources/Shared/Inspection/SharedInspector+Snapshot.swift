import Foundation

extension SharedInspector {
  /// Every key of the registry now: its live values, and every query and mutation of its store, sorted by
  /// ``InspectedKey/id``.
  ///
  /// ```swift
  /// let snapshot = SharedRegistry.current.inspector.snapshot()
  /// for key in snapshot.keys where key.kind == .query {
  ///   print(key.description, key.operation?.status.rawValue ?? "-")
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
    // Queries are listed by their store (which keeps those nobody holds), not by the registry.
    let entries = registry.state.withLock { $0.liveEntries(excluding: QueryKey.self) }
    let queries = registry.existingQueries?.inspectionParts() ?? []
    let forced = forcedKeys
    var keys: [InspectedKey] = []
    keys.reserveCapacity(entries.count + queries.count)
    // Each object is counted while the arrays above and the one below hold it (the store's record or the registry
    // also holds some): what is left are the program's references.
    let queryCounts = ReferenceCount.counts(of: queries.compactMap(\.root))
    var countIndex = 0
    for parts in queries {
      var holders = 0
      if parts.root != nil {
        holders = queryCounts[countIndex] - ReferenceCount.inspectionsOwn - 2
        countIndex += 1
      }
      keys.append(Self.inspect(parts, holders: max(holders, 0), isForced: forced.contains(parts.key)))
    }
    let entryCounts = ReferenceCount.counts(of: entries.map(\.object))
    for (index, entry) in entries.enumerated() {
      let holders = entryCounts[index] - ReferenceCount.inspectionsOwn - 1 - (entry.isPermanent ? 1 : 0)
      if let key = Self.inspect(entry, holders: max(holders, 0)) { keys.append(key) }
    }
    keys.sort { $0.id < $1.id }
    return SharedSnapshot(takenAt: takenAt, keys: keys)
  }

  private static func inspect(_ entry: RegistryInspection, holders: Int) -> InspectedKey? {
    guard let object = entry.object as? any InspectableObject else { return nil }
    let parts = object.inspectedParts()
    let kind: InspectedKey.Kind
    let description: String
    switch entry.id {
    case let id as InMemoryKeyID:
      (kind, description) = (.inMemory, id.name)
    case let id as MutationKeyID:
      (kind, description) = (.mutation, id.key.description)
    case let id as FileStorageKeyID:
      (kind, description) = (.file, id.path)
    default:
      kind = .custom
      description = parts.store.map { String(describing: $0.key) } ?? String(describing: entry.id)
    }
    return inspectedKey(parts, description: description, kind: kind, holders: holders)
  }

  private static func inspect(_ parts: QueryRecordParts, holders: Int, isForced: Bool) -> InspectedKey {
    let valueParts: InspectedValueParts
    if let root = parts.root as? any InspectableObject {
      valueParts = root.inspectedParts()
    } else {
      let value = parts.sleepingValue ?? (nil as Int?) as Any
      valueParts = InspectedValueParts(value: value, valueType: type(of: value))
    }
    var key = inspectedKey(valueParts, description: parts.key.description, kind: .query, holders: holders)
    key.queryKey = parts.key
    // The query's clock is the program's: read here, after the store's lock.
    let now = parts.epoch.elapsed()
    let freshFor = parts.fetchedAt.map { $0 + parts.staleTime - now }
    let isStale = freshFor.map { $0 <= .zero } ?? true
    var collectedIn: Duration?
    if !parts.isHeld {
      collectedIn = parts.unusedSince.map { $0 + parts.gcTime - now } ?? parts.gcTime
    }
    key.query = InspectedQuery(
      isStale: isStale, staleAt: isStale ? nil : freshFor.map(Self.date(in:)), isHeld: parts.isHeld,
      isEnabled: parts.isEnabled, collectedAt: collectedIn.map(Self.date(in:)), isForced: isForced)
    return key
  }

  private static func inspectedKey(
    _ parts: InspectedValueParts,
    description: String,
    kind: InspectedKey.Kind,
    holders: Int
  ) -> InspectedKey {
    var key = InspectedKey(
      description: description, kind: kind, valueType: String(reflecting: parts.valueType),
      value: ValueSummary(of: parts.value), version: parts.version, holders: holders, iterations: parts.iterations,
      observers: parts.observers)
    if let trackable = parts.value as? any OperationTrackable {
      key.operation = InspectedOperation(trackable.operation)
    }
    if let store = parts.store {
      key.store = InspectedStore(
        isLoading: store.isLoading, loadError: store.loadError.map { String(describing: $0) },
        saveError: store.saveError.map { String(describing: $0) })
    }
    return key
  }

  /// The date `interval` from now (at least now).
  private static func date(in interval: Duration) -> Date {
    let seconds = Double(interval.components.seconds) + Double(interval.components.attoseconds) / 1e18
    return Date(timeIntervalSinceNow: max(seconds, 0))
  }
}
