import Reactive

/// The shared value behind every holder of one key (or of one keyless ``Shared``): its box, and the connection to
/// the key's store.
///
/// Holders, iterations, observer tokens and running operations keep a root alive; the registry only refers to it
/// weakly (unless the key is ``SharedKeyLifetime/permanent``). When the root goes, it leaves the registry and
/// stops watching the store.
@usableFromInline
final class SharedRoot<Value: Sendable>: Sendable {
  @usableFromInline let box: ReactiveBox<Value>
  /// Whether writes must be handed to ``persistence`` to be saved.
  @usableFromInline let savesChanges: Bool
  /// Whether the value is a query's: every write goes to its confirmed value while optimistic changes are pending
  /// (see `OptimisticLayer`), and a holder's write is announced to its store.
  @usableFromInline let isQueryValue: Bool
  /// The connection to the key's store; `nil` for keyless and memory-only values.
  @usableFromInline let persistence: Persistence<Value>?
  @usableFromInline let registration: Registration?

  /// A root for `key`, which saves changes, loaded from its store, starting from `defaultValue` when the store has
  /// nothing (or while it loads).
  @usableFromInline
  init(
    writer key: any SharedKey<Value>,
    defaultValue: Value,
    registration: Registration?,
    inspector: SharedInspector? = nil
  ) {
    let box = ReactiveBox(defaultValue)
    let persistence = Persistence(
      writer: key, box: box, defaultValue: defaultValue, inspector: inspector)
    self.box = box
    self.registration = registration
    self.persistence = persistence
    self.savesChanges = true
    self.isQueryValue = false
    persistence.loadInitially()
  }

  /// A root for `key`, which only reads its store, loaded from it, starting from `defaultValue` when the store has
  /// nothing (or while it loads).
  @usableFromInline
  init(
    reader key: any SharedReaderKey<Value>,
    defaultValue: Value,
    registration: Registration?,
    inspector: SharedInspector? = nil
  ) {
    let box = ReactiveBox(defaultValue)
    let persistence = Persistence(
      reader: key, box: box, defaultValue: defaultValue, inspector: inspector)
    self.box = box
    self.registration = registration
    self.persistence = persistence
    self.savesChanges = false
    self.isQueryValue = false
    persistence.loadInitially()
  }

  /// A root for a value with no store (a query's, if `isQueryValue`), which leaves its registry when its last holder
  /// goes.
  @inlinable
  init(memoryOnly defaultValue: Value, registration: Registration?, isQueryValue: Bool = false) {
    self.box = ReactiveBox(defaultValue)
    self.registration = registration
    self.persistence = nil
    self.savesChanges = false
    self.isQueryValue = isQueryValue
  }

  deinit {
    registration?.unregister()
    persistence?.stop()
  }

  /// `withLock` for a value whose changes are saved: hands the result of each change to the persistence.
  @usableFromInline
  func withLockSaving<Result, Failure: Error>(
    _ body: (inout Value) throws(Failure) -> Result
  ) throws(Failure) -> Result {
    guard let persistence else { return try box.withLock(body) }
    var change: (value: Value, sequence: UInt64)?
    let outcome = box.withLock { value -> Swift.Result<Result, Failure> in
      defer { change = (value, persistence.nextSequence()) }
      do throws(Failure) {
        return .success(try body(&value))
      } catch {
        return .failure(error)
      }
    }
    if let change { persistence.changed(change.value, sequence: change.sequence, owner: self) }
    return try outcome.get()
  }
}

extension SharedRoot {
  /// `withLock` for a query's value: while optimistic changes are pending, `body` writes the confirmed value and the
  /// value shown is recomputed (see `OptimisticLayer`). A holder's write (`announcing`) is then told to the query's
  /// store, as the store's own writes are.
  @inlinable
  func withLockConfirming<Result, Failure: Error>(
    announcing: Bool,
    _ body: (inout Value) throws(Failure) -> Result
  ) throws(Failure) -> Result {
    defer { if announcing { box.withAttachment(QueryLink.self) { $0 }?.announceWrite() } }
    return try box.withLockThrowing(attached: AttachedLayer<Value>.self) { value, attached throws(Failure) in
      guard let attached else { return try body(&value) }
      return try attached.layer.write(body, to: &value)
    }
  }
}

extension SharedRoot: SharedRootProtocol {
  @usableFromInline var loadError: (any Error)? { persistence?.loadError }
  @usableFromInline var saveError: (any Error)? { persistence?.saveError }
  @usableFromInline func clearSaveError() { persistence?.clearSaveError() }
  @usableFromInline var isLoading: Bool { persistence?.isLoading ?? false }

  @usableFromInline func save() async throws {
    try await persistence?.flush()
  }

  @usableFromInline func load() async throws {
    try await persistence?.reload()
  }

  @usableFromInline func trackValue() {
    _ = box.value
  }

  @usableFromInline func attachment<T: AnyObject & Sendable>(_ type: T.Type, make: () -> T) -> T {
    box.attachment(type, make: make)
  }
}
