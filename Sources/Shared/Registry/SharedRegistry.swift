import Foundation
import Synchronization

/// Hands every holder of one key the same shared value.
///
/// Holders find their registry through ``current``, a task-local value: the whole program uses one registry
/// unless a task says otherwise. Tests give each test a fresh registry with a test-scoping trait (see the article
/// "Testing code that uses Shared"), so no state leaks between them:
///
/// ```swift
/// let isolated = SharedRegistry.$current.withValue(SharedRegistry()) {
///   Shared(wrappedValue: 0, .inMemory("count"))
/// }
/// ```
///
/// The registry refers weakly to values of ``SharedKeyLifetime/whileHeld`` keys, so they are freed after their last
/// holder, and strongly to ``SharedKeyLifetime/permanent`` ones (such as ``InMemoryKey``), which live as long as the
/// registry. Finding the value of an existing key costs one hash lookup, however many keys there are.
public final class SharedRegistry: Sendable {
  /// The registry holders use: the program's, unless a task set another with `$current.withValue(_:operation:)`.
  @TaskLocal public static var current = SharedRegistry()

  @usableFromInline
  let state = Lock(RegistryState())
  private let queryStore = Lock<QueryStore?>(nil)

  /// Creates an empty registry.
  public init() {}

  /// The number of keys whose values are alive.
  public var count: Int {
    // The strong references are released after the lock: the last one may free a value, which then leaves the
    // registry.
    state.withLock { $0.liveObjects() }.count
  }

  /// The distinct problems noticed so far, oldest first (each is recorded once).
  public var diagnostics: [SharedDiagnostic] {
    state.withLock { $0.diagnostics }
  }

  // MARK: Finding roots

  /// The shared value of `key`, which saves changes, created from the key's store or `defaultValue` if nobody holds
  /// it yet.
  @inlinable
  func reference<Key: SharedKey>(for key: Key, defaultValue: () -> Key.Value) -> Shared<Key.Value>.Reference {
    reference(for: key, defaultValue: defaultValue) { value, registration in
      .root(SharedRoot(writer: key, defaultValue: value, registration: registration))
    }
  }

  /// The shared value of an in-memory key: a bare box, nothing to load, save, watch or unregister.
  @inlinable
  func reference<Value>(for key: InMemoryKey<Value>, defaultValue: () -> Value) -> Shared<Value>.Reference {
    reference(for: key, defaultValue: defaultValue) { value, _ in .box(ReactiveBox(value)) }
  }

  /// The shared value of a key with no store (a query's): a root that leaves the registry after its last holder,
  /// or a bare box for a permanent key.
  func reference<Key: MemoryOnlyKey>(memoryOnly key: Key, defaultValue: () -> Key.Value)
    -> Shared<Key.Value>.Reference
  {
    reference(for: key, defaultValue: defaultValue) { value, registration in
      guard let registration else { return .box(ReactiveBox(value)) }
      return .root(SharedRoot(memoryOnly: value, registration: registration))
    }
  }

  /// The shared value of any key, as a reader holds it: a key that saves, or one with no store, makes its value
  /// the way a writable holder would, so the value is the same whichever holder comes first.
  func reference<Key: SharedReaderKey>(reader key: Key, defaultValue: () -> Key.Value) -> Shared<Key.Value>.Reference {
    if let memoryOnly = key as? any MemoryOnlyKey<Key.Value> {
      return reference(memoryOnly: memoryOnly, defaultValue: defaultValue)
    }
    return reference(for: key, defaultValue: defaultValue) { value, registration in
      // Asked only when the value is made.
      if let writer = key as? any SharedKey<Key.Value> {
        return .root(SharedRoot(writer: writer, defaultValue: value, registration: registration))
      }
      return .root(SharedRoot(reader: key, defaultValue: value, registration: registration))
    }
  }

  /// The shared value of `key`, made by `create` (from the default, and the registration of a value that leaves
  /// the registry after its last holder) if nobody holds it yet.
  @inlinable
  func reference<Key: SharedReaderKey>(
    for key: Key,
    defaultValue: () -> Key.Value,
    create: (Key.Value, Registration?) -> Shared<Key.Value>.Reference
  ) -> Shared<Key.Value>.Reference {
    let id = key.id
    let first = state.withLock { state -> RegistryState.Lookup<Key.Value> in
      let found = state.lookup(id, as: Key.Value.self)
      guard case .missing = found else { return found }
      return .missing(generation: state.takeGeneration())
    }
    let generation: UInt64
    switch first {
    case .found(let root):
      return root
    case .mismatch(let existing, _):
      return unshared(key: key, existing: existing, defaultValue: defaultValue())
    case .missing(let reserved):
      generation = reserved
    }
    // Create outside the lock: loading runs the key's code. Another holder may win the race; then its value is
    // used and this one is dropped, after the lock is released, before it ever watched the store.
    let isPermanent = key.lifetime == .permanent
    let registration = isPermanent ? nil : Registration(registry: self, id: id, generation: generation)
    let created = create(defaultValue(), registration)
    let outcome = state.withLock { state -> RegistryState.Lookup<Key.Value> in
      let existing = state.lookup(id, as: Key.Value.self)
      guard case .missing = existing else { return existing }
      state.insert(
        RegistryEntry(reference: created, isPermanent: isPermanent, generation: generation), for: id)
      return .found(created)
    }
    switch outcome {
    case .found(let reference):
      if case .root(let root) = reference, case .root(let createdRoot) = created, root === createdRoot {
        root.persistence?.subscribe()
      }
      return reference
    case .mismatch(let existing, _):
      return unshared(key: key, existing: existing, defaultValue: defaultValue())
    case .missing:
      preconditionFailure("a registry lookup cannot miss after inserting")
    }
  }

  /// Records and prints a type mismatch, and returns a value of the holder's own.
  @inlinable
  func unshared<Key: SharedReaderKey>(
    key: Key,
    existing: Any.Type,
    defaultValue: Key.Value
  ) -> Shared<Key.Value>.Reference {
    reportMismatch(key: String(describing: key), existing: existing, requested: Key.Value.self)
    return .box(ReactiveBox(defaultValue))
  }

  @usableFromInline
  func reportMismatch(key: String, existing: Any.Type, requested: Any.Type) {
    let diagnostic = SharedDiagnostic(
      kind: .typeMismatch(existing: String(reflecting: existing), requested: String(reflecting: requested)),
      key: key)
    report(diagnostic)
  }

  /// Records and prints `diagnostic`, once per distinct problem, however often the same holder is made.
  func report(_ diagnostic: SharedDiagnostic) {
    let isNew = state.withLock { state in
      guard !state.diagnostics.contains(diagnostic) else { return false }
      state.diagnostics.append(diagnostic)
      return true
    }
    if isNew { FileHandle.standardError.write(Data("warning: \(diagnostic)\n".utf8)) }
  }

  /// The queries of this registry.
  public var queries: QueryStore {
    queryStore.withLock { store in
      if let store { return store }
      let made = QueryStore()
      store = made
      return made
    }
  }

  /// Removes the entry of a root that went away, unless a newer root took its place.
  func remove(_ id: some Hashable & Sendable, generation: UInt64) {
    let removed = state.withLock { $0.remove(id, generation: generation) }
    // Released here, outside the lock.
    withExtendedLifetime(removed) {}
  }
}

/// What a registry keeps under its lock: one table per key identity type, so lookups hash and compare the
/// concrete identity, with no existential in the way.
@usableFromInline
struct RegistryState: ~Copyable {
  @usableFromInline var tables: [ObjectIdentifier: AnyObject] = [:]
  @usableFromInline var diagnostics: [SharedDiagnostic] = []
  @usableFromInline var nextGeneration: UInt64 = 0

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
    guard let table = tables[ObjectIdentifier(ID.self)] else { return nil }
    return unsafeDowncast(table, to: RegistryTable<ID>.self)
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

  @inlinable
  mutating func insert<ID: Hashable>(_ entry: RegistryEntry, for id: ID) {
    if let table = table(for: ID.self) {
      table.entries[id] = entry
    } else {
      let table = RegistryTable<ID>()
      table.entries[id] = entry
      tables[ObjectIdentifier(ID.self)] = table
    }
  }

  @inlinable
  mutating func takeGeneration() -> UInt64 {
    nextGeneration += 1
    return nextGeneration
  }

  mutating func remove<ID: Hashable>(_ id: ID, generation: UInt64) -> RegistryEntry? {
    guard let table = table(for: ID.self), table.entries[id]?.generation == generation else { return nil }
    return table.entries.removeValue(forKey: id)
  }

  func liveObjects() -> [AnyObject] {
    tables.values.flatMap { ($0 as! any RegistryTableProtocol).liveObjects }
  }
}

/// The entries of one key identity type. Only touched under the registry's lock.
@usableFromInline
final class RegistryTable<ID: Hashable>: RegistryTableProtocol {
  @usableFromInline var entries: [ID: RegistryEntry] = [:]

  @usableFromInline
  init() {}

  var liveObjects: [AnyObject] { entries.values.compactMap(\.object) }
}

/// What a registry needs of a table without knowing its identity type.
protocol RegistryTableProtocol: AnyObject {
  var liveObjects: [AnyObject] { get }
}

/// One key's value in a registry: weakly held unless its key is permanent.
@usableFromInline
struct RegistryEntry {
  @usableFromInline weak var weakObject: AnyObject?
  @usableFromInline var strongObject: AnyObject?
  @usableFromInline let valueType: Any.Type
  @usableFromInline let generation: UInt64
  /// Whether the object is a bare `ReactiveBox` rather than a `SharedRoot`.
  @usableFromInline let isBox: Bool

  @inlinable
  init<Value: Sendable>(reference: Shared<Value>.Reference, isPermanent: Bool, generation: UInt64) {
    let object: AnyObject
    switch reference {
    case .box(let box):
      object = box
      isBox = true
    case .root(let root):
      object = root
      isBox = false
    case .derived:
      preconditionFailure("a registry holds roots, not derived values")
    }
    if isPermanent { strongObject = object } else { weakObject = object }
    self.valueType = Value.self
    self.generation = generation
  }

  @inlinable
  var object: AnyObject? { strongObject ?? weakObject }
}
