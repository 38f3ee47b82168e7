import Foundation
import Synchronization

/// Hands every holder of one key the same shared value.
///
/// Holders find their registry through ``current``, a task-local value: the whole program uses one registry
/// unless a task says otherwise. Tests give each test a fresh registry with a test-scoping trait (see the article
/// "Testing code that uses Shared"), so no state leaks between them:
///
/// ```swift
/// let registry = SharedRegistry()
/// let isolated = SharedRegistry.$current.withValue(registry) {
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
  /// What ``flush()`` and the flush at exit write: this registry's values whose keys save, and whatever else joined.
  let flushParticipants = FlushParticipants()

  /// Looks inside the registry while the program runs: snapshots of its keys, a stream of events, actions on
  /// queries (see ``SharedInspector``).
  ///
  /// ```swift
  /// let keys = SharedRegistry.current.inspector.snapshot().keys.map(\.id)
  /// ```
  public let inspector: SharedInspector

  /// What measures and traces this registry's work: its query store's fetches, their attempts and mutation runs,
  /// the saves of its keys, and the store's cache hits, misses and collections (see ``SharedInstrument``); `nil`,
  /// the default, for nothing.
  ///
  /// ```swift
  /// SharedRegistry.current.instrument = CountingInstrument()
  /// ```
  ///
  /// An instrument set while work runs measures the work that starts from then on. While none is set, the engines
  /// check one flag and do nothing more.
  public var instrument: (any SharedInstrument)? {
    get { inspector.instruments.current }
    set {
      let previous = inspector.instruments.replace(with: newValue)
      withExtendedLifetime(previous) {}  // The app's instrument is released after the lock.
    }
  }

  /// Creates an empty registry.
  public init() {
    inspector = SharedInspector()
    inspector.inspect(self)
  }

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
  ///
  /// A value that a read-only key made first (for `@SharedReader`) cannot save: the writer gets a value of its own
  /// and a ``SharedDiagnostic/Kind/readOnlyValue(reader:)`` is recorded, so no change is silently left unsaved.
  @inlinable
  func reference<Key: SharedKey>(for key: Key, defaultValue: () -> Key.Value) -> Shared<Key.Value>.Reference {
    let found = reference(for: key, defaultValue: defaultValue) { value, registration in
      .root(SharedRoot(writer: key, defaultValue: value, registration: registration, inspector: inspector))
    }
    if case .root(let root) = found, !root.savesChanges, root.persistence != nil {
      return unsaved(key: key, madeBy: root, defaultValue: defaultValue())
    }
    return found
  }

  /// Records and prints that a writer found a value only a reader key can load, and returns a value of its own.
  @usableFromInline
  func unsaved<Key: SharedKey>(
    key: Key,
    madeBy root: SharedRoot<Key.Value>,
    defaultValue: Key.Value
  ) -> Shared<Key.Value>.Reference {
    // The caller checked that the root has a store: the reader key that made it.
    let reader = root.persistence.map { String(describing: type(of: $0.key)) } ?? ""
    report(SharedDiagnostic(kind: .readOnlyValue(reader: reader), key: String(describing: key)))
    return .box(ReactiveBox(defaultValue))
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
      return .root(SharedRoot(memoryOnly: value, registration: registration, isQueryValue: Key.namesQueryValue))
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
        return .root(
          SharedRoot(writer: writer, defaultValue: value, registration: registration, inspector: self.inspector))
      }
      return .root(
        SharedRoot(reader: key, defaultValue: value, registration: registration, inspector: self.inspector))
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
    let first = state.withLock { $0.reserve(id, as: Key.Value.self) }
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
    let outcome = state.withLock { state in
      state.insertIfMissing(created, isPermanent: isPermanent, for: id, generation: generation)
    }
    switch outcome {
    case .found(let reference):
      if case .root(let root) = reference, case .root(let createdRoot) = created, root === createdRoot {
        root.persistence?.start(in: self)
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
      let made = QueryStore(registry: self)
      store = made
      return made
    }
  }

  /// The query store, if something made it: an inspection does not make one.
  var existingQueries: QueryStore? {
    queryStore.withLock { $0 }
  }

  /// Removes the entry of a root that went away, unless a newer root took its place.
  func remove(_ id: some Hashable & Sendable, generation: UInt64) {
    state.withLockReleasingAfter { state in (result: (), released: state.remove(id, generation: generation)) }
    // A freed mutation state's runs leave the readers of mutation states (one type comparison for other keys).
    if type(of: id) == MutationKeyID.self, let id = id as? MutationKeyID {
      existingQueries?.services.mutationStates.changed(id.key)
    }
  }
}
