import Foundation
import Synchronization

/// Hands every holder of one key the same shared value.
///
/// Holders find their registry through ``current``, a task-local value: the whole program uses one registry
/// unless a task says otherwise. Tests run their code against a fresh registry, so no state leaks between them:
///
/// ```swift
/// @Test func countsFromZero() async {
///   await SharedRegistry.$current.withValue(SharedRegistry()) {
///     @Shared(.inMemory("count")) var count = 0
///     $count.withLock { $0 += 1 }
///     #expect(count == 1)
///   }
/// }
/// ```
///
/// The registry refers weakly to values of ``SharedKeyLifetime/whileHeld`` keys, so they are freed after their last
/// holder, and strongly to ``SharedKeyLifetime/permanent`` ones (such as ``InMemoryKey``), which live as long as the
/// registry. Finding the value of an existing key costs one hash lookup, however many keys there are.
public final class SharedRegistry: Sendable {
  /// The registry holders use: the program's, unless a task set another with `$current.withValue(_:operation:)`.
  @TaskLocal public static var current = SharedRegistry()

  private let state = Mutex(State())

  private struct State: ~Copyable {
    var entries: [RegistryKey: Entry] = [:]
    var diagnostics: [SharedDiagnostic] = []
    var nextGeneration: UInt64 = 0
  }

  private struct Entry {
    weak var weakRoot: AnyObject?
    var strongRoot: AnyObject?
    let valueType: Any.Type
    let generation: UInt64

    var root: AnyObject? { strongRoot ?? weakRoot }
  }

  /// Creates an empty registry.
  public init() {}

  /// The number of keys whose values are alive.
  public var count: Int {
    state.withLock { state in state.entries.values.count { $0.root != nil } }
  }

  /// The problems noticed so far, oldest first.
  public var diagnostics: [SharedDiagnostic] {
    state.withLock { $0.diagnostics }
  }

  // MARK: Finding roots

  private enum Lookup<Value: Sendable> {
    case found(SharedRoot<Value>)
    case missing
    case mismatch(SharedDiagnostic)
  }

  /// The shared value of `key`, created from the key's store or `defaultValue` if nobody holds it yet.
  func root<Key: SharedKey>(for key: Key, defaultValue: () -> Key.Value) -> SharedRoot<Key.Value> {
    let registryKey = RegistryKey(key.id)
    switch state.withLock({ state in Self.lookup(registryKey, key: key, in: &state) }) {
    case .found(let root):
      return root
    case .mismatch(let diagnostic):
      return unshared(diagnostic, defaultValue: defaultValue())
    case .missing:
      break
    }
    // Create outside the lock: loading runs the key's code. Another holder may win the race; then its root is used
    // and this one is dropped, after the lock is released, before it ever watched the store.
    let generation = state.withLock { state in
      state.nextGeneration += 1
      return state.nextGeneration
    }
    let registration = Registration(registry: self, key: registryKey, generation: generation)
    let created = SharedRoot(key: key, defaultValue: defaultValue(), registration: registration)
    let isPermanent = key.lifetime == .permanent
    let outcome = state.withLock { state -> Lookup<Key.Value> in
      let existing = Self.lookup(registryKey, key: key, in: &state)
      guard case .missing = existing else { return existing }
      state.entries[registryKey] = Entry(
        weakRoot: isPermanent ? nil : created,
        strongRoot: isPermanent ? created : nil,
        valueType: Key.Value.self,
        generation: generation)
      return .found(created)
    }
    switch outcome {
    case .found(let root):
      if root === created { created.persistence?.subscribe() }
      return root
    case .mismatch(let diagnostic):
      return unshared(diagnostic, defaultValue: defaultValue())
    case .missing:
      preconditionFailure("a registry lookup cannot miss after inserting")
    }
  }

  private static func lookup<Key: SharedKey>(
    _ registryKey: RegistryKey,
    key: Key,
    in state: inout State
  ) -> Lookup<Key.Value> {
    guard let entry = state.entries[registryKey], let root = entry.root else { return .missing }
    guard entry.valueType == Key.Value.self else {
      let diagnostic = SharedDiagnostic(
        kind: .typeMismatch(
          existing: String(reflecting: entry.valueType), requested: String(reflecting: Key.Value.self)),
        key: String(describing: key))
      state.diagnostics.append(diagnostic)
      return .mismatch(diagnostic)
    }
    return .found(unsafeDowncast(root, to: SharedRoot<Key.Value>.self))
  }

  private func unshared<Value: Sendable>(_ diagnostic: SharedDiagnostic, defaultValue: Value) -> SharedRoot<Value> {
    report(diagnostic)
    return SharedRoot(value: defaultValue)
  }

  /// Removes the entry of a root that went away, unless a newer root took its place.
  func remove(_ key: RegistryKey, generation: UInt64) {
    let removed = state.withLock { state -> Entry? in
      guard state.entries[key]?.generation == generation else { return nil }
      return state.entries.removeValue(forKey: key)
    }
    // Released here, outside the lock.
    withExtendedLifetime(removed) {}
  }
}

/// Prints a diagnostic to standard error.
func report(_ diagnostic: SharedDiagnostic) {
  FileHandle.standardError.write(Data("warning: \(diagnostic)\n".utf8))
}
