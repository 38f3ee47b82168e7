/// What a registry keeps under its lock: one table per key identity type, so lookups hash and compare the
/// concrete identity, with no existential in the way.
@usableFromInline
struct RegistryState: ~Copyable {
  /// The tables by their identity type, in the order they were made. A program has a handful of key identity types,
  /// so a scan comparing type identities finds a table in a few instructions, where a dictionary would hash the
  /// identity first (about 150 instructions, a tenth of finding an existing key).
  @usableFromInline var tables: [(type: ObjectIdentifier, table: AnyObject)] = []
  @usableFromInline var diagnostics: [SharedDiagnostic] = []
  @usableFromInline var nextGeneration: UInt64 = 0
  /// What ``nextGeneration`` was at the last insertion: a value made under a later generation knows that nothing
  /// was inserted since its key was found missing.
  @usableFromInline var lastInsertion: UInt64 = 0

  @usableFromInline
  init() {}

  @usableFromInline
  enum Lookup<Value: Sendable> {
    case found(Shared<Value>.Reference)
    case missing(generation: UInt64)
    /// The key holds a value of another type; `object` is that value, to be released after the lock.
    case mismatch(existing: Any.Type, object: AnyObject)
  }

  @inlinable
  func table<ID: Hashable>(for _: ID.Type) -> RegistryTable<ID>? {
    guard let table = table(of: ObjectIdentifier(ID.self)) else { return nil }
    return unsafeDowncast(table, to: RegistryTable<ID>.self)
  }

  /// The table of the identity type `type`, if there is one.
  @inlinable
  func table(of type: ObjectIdentifier) -> AnyObject? {
    for entry in tables where entry.type == type { return entry.table }
    return nil
  }

  @inlinable
  func lookup<ID: Hashable, Value: Sendable>(_ id: ID, as type: Value.Type) -> Lookup<Value> {
    guard let entry = table(for: ID.self)?.entries[id], let object = entry.object else {
      return .missing(generation: 0)
    }
    guard ObjectIdentifier(entry.valueType) == ObjectIdentifier(Value.self) else {
      return .mismatch(existing: entry.valueType, object: object)
    }
    if entry.isBox { return .found(.box(unsafeDowncast(object, to: ReactiveBox<Value>.self))) }
    return .found(.root(unsafeDowncast(object, to: SharedRoot<Value>.self)))
  }

  /// The value of `id`, or, when it is missing, the generation reserved for the value a holder is about to make
  /// (kept by ``insertIfMissing(_:isPermanent:for:generation:)``).
  @inlinable
  mutating func reserve<ID: Hashable, Value: Sendable>(_ id: ID, as type: Value.Type) -> Lookup<Value> {
    let found = lookup(id, as: type)
    guard case .missing = found else { return found }
    return .missing(generation: takeGeneration())
  }

  /// Keeps `reference`, made for `id` after a lookup found it missing and reserved `generation`, unless another
  /// value was inserted for `id` since: then that one (or the mismatch it is) is the answer.
  @inlinable
  mutating func insertIfMissing<ID: Hashable, Value: Sendable>(
    _ reference: Shared<Value>.Reference,
    isPermanent: Bool,
    for id: ID,
    generation: UInt64
  ) -> Lookup<Value> {
    // Generations only grow, so an insertion since the reservation recorded at least `generation`: then another
    // value may have come for `id`, and it is looked up again. Otherwise nothing at all was inserted since `id` was
    // found missing (removals add nothing), and the lookup is skipped.
    if lastInsertion >= generation {
      let existing = lookup(id, as: Value.self)
      guard case .missing = existing else { return existing }
    }
    insert(RegistryEntry(reference: reference, isPermanent: isPermanent, generation: generation), for: id)
    return .found(reference)
  }

  @inlinable
  mutating func insert<ID: Hashable>(_ entry: RegistryEntry, for id: ID) {
    lastInsertion = nextGeneration
    if let table = table(for: ID.self) {
      table.entries[id] = entry
    } else {
      let table = RegistryTable<ID>()
      table.entries[id] = entry
      tables.append((ObjectIdentifier(ID.self), table))
    }
  }

  @inlinable
  mutating func takeGeneration() -> UInt64 {
    nextGeneration += 1
    return nextGeneration
  }

  mutating func remove<ID: Hashable>(_ id: ID, generation: UInt64) -> RegistryEntry? {
    guard let table = table(for: ID.self), table.entries[id]?.generation == generation else { return nil }
    let removed = table.entries.removeValue(forKey: id)
    table.shrinkIfSparse()
    return removed
  }

  /// The live values with their keys' identities, but for the keys of type `excluded` (queries, which their store
  /// lists).
  func liveEntries(excluding excluded: Any.Type) -> [RegistryInspection] {
    let skipped = ObjectIdentifier(excluded)
    return tables.flatMap { entry in
      entry.type == skipped ? [] : (entry.table as! any RegistryTableProtocol).liveEntries
    }
  }

  /// The live values of the keys whose identity is of type `type`.
  func liveEntries(of type: Any.Type) -> [RegistryInspection] {
    guard let table = table(of: ObjectIdentifier(type)) else { return [] }
    return (table as! any RegistryTableProtocol).liveEntries
  }

  func liveObjects() -> [AnyObject] {
    tables.flatMap { ($0.table as! any RegistryTableProtocol).liveObjects }
  }
}
