public import Reactive

/// A value that every holder of one key shares: read it directly, change it with ``withLock(_:)``.
///
/// ```swift
/// @Shared(.inMemory("counter")) var counter = 0   // the default is used only if nobody holds the key yet
///
/// $counter.withLock { $0 += 1 }                   // the only way to write
/// let now: Int = counter                          // a synchronous read
///
/// for await value in $counter.values {            // the current value, then changes
///   print(value)
/// }
/// ```
///
/// Any number of holders, anywhere in a program, that use keys with the same ``SharedKey/id`` see one value. The
/// projected value (`$counter`) is itself a `Shared`: `Sendable`, cheap to copy, and pointing at the same value, so
/// it can be handed to other types and tasks. A `Shared` made with ``init(value:)`` has no key and is shared by
/// whoever gets a copy.
///
/// Reading the value inside `withObservationTracking`, `Observations` or a SwiftUI view tracks it: a change made
/// through any holder is reported.
@propertyWrapper
@dynamicMemberLookup
public struct Shared<Value: Sendable>: Sendable {
  @usableFromInline
  let reference: Reference
  /// The box to read and write directly when nothing else must happen on a write (not derived, no saving):
  /// one load on the hot path instead of following the reference.
  @usableFromInline
  let directBox: ReactiveBox<Value>?

  @usableFromInline
  enum Reference: Sendable {
    /// A value with no store: keyless, or of a memory-only key that lives as long as its registry.
    case box(ReactiveBox<Value>)
    /// A keyed value with a store, or one that leaves its registry when its last holder goes.
    case root(SharedRoot<Value>)
    /// A value derived from another shared value: one of its members, or its unwrapped optional.
    case derived(DerivedBox<Value>)
  }

  @usableFromInline
  init(reference: Reference) {
    self.reference = reference
    switch reference {
    case .box(let box): directBox = box
    case .root(let root): directBox = root.savesChanges ? nil : root.box
    case .derived: directBox = nil
    }
  }

  /// Holds the shared value of `key`, creating it from the key's store or `wrappedValue` if nobody holds it yet.
  ///
  /// ```swift
  /// @Shared(.inMemory("filter")) var filter = Filter.all
  /// ```
  ///
  /// If the key already has a value, `wrappedValue` is not even evaluated. If the key already holds a value of
  /// another type, the holder gets a value of its own and a ``SharedDiagnostic`` is recorded and printed.
  ///
  /// - Parameters:
  ///   - wrappedValue: The value to start from when the key has no value yet.
  ///   - key: The key that names the value.
  @inlinable
  public init(wrappedValue: @autoclosure () -> Value, _ key: some SharedKey<Value>) {
    let registry = SharedRegistry.current
    self.init(reference: registry.reference(for: key, defaultValue: wrappedValue))
    key.holderDidAppear(self, in: registry)
  }

  /// A shared value with no key, shared by every copy of this `Shared`.
  ///
  /// ```swift
  /// let progress = Shared(value: 0.0)
  /// Task { [progress] in progress.withLock { $0 = 0.5 } }
  /// ```
  ///
  /// - Parameter value: The initial value.
  @inlinable
  public init(value: Value) {
    self.init(reference: .box(ReactiveBox(value)))
  }

  /// Wraps an existing `Shared`, so a property declared `@Shared var x: Int` can be set from another holder's
  /// `$x`.
  ///
  /// - Parameter projectedValue: The shared value to hold.
  public init(projectedValue: Shared<Value>) {
    self = projectedValue
  }

  /// The current value.
  @inlinable
  public var wrappedValue: Value {
    // Optional chaining reads through the stored reference without retaining it. In this generic context the
    // result is `Value?` even when `Value` is itself optional, so a `nil` value still binds.
    if let value = directBox?.value { return value }
    switch reference {
    case .box(let box): return box.value
    case .root(let root): return root.box.value
    case .derived(let derived): return derived.value
    }
  }

  /// This shared value, for passing it on, changing it and listening to it.
  @inlinable
  public var projectedValue: Shared<Value> {
    self
  }

  /// Changes the value in place under its lock, then tells every holder's listeners once.
  ///
  /// ```swift
  /// $todos.withLock { todos in
  ///   todos.append(Todo(title: "Water the plants"))
  /// }
  /// ```
  ///
  /// The body runs exactly once, under the lock; do not call `withLock` of the same value inside it. If the body
  /// throws, whatever it wrote before throwing is kept, listeners are told, and the error is rethrown. Changes to a
  /// value whose key stores it are saved afterwards (see ``SharedKey/saveSchedule``).
  ///
  /// - Parameter body: Reads and changes the value.
  /// - Returns: What `body` returns.
  /// - Throws: What `body` throws.
  @inlinable
  public func withLock<Result, Failure: Error>(
    _ body: (inout Value) throws(Failure) -> Result
  ) throws(Failure) -> Result {
    // As in `wrappedValue`: no retain, and a body that returns `nil` still binds, so it never runs twice.
    if let result = try directBox?.withLock(body) { return result }
    switch reference {
    case .box(let box):
      return try box.withLock(body)
    case .root(let root):
      if root.savesChanges { return try root.withLockSaving(body) }
      return try root.box.withLock(body)
    case .derived(let derived):
      return try derived.withLock(body)
    }
  }

  /// Calls `observer` with the new value after every change, until the returned token is cancelled or freed.
  ///
  /// ```swift
  /// let token = $settings.observe { settings in apply(settings) }
  /// ```
  ///
  /// Observers run after the lock is released, one change at a time and in order, usually on the thread that made
  /// the change (under contention, possibly on another); see `ReactiveBox.observe(_:)`. The token keeps the shared
  /// value alive.
  ///
  /// - Parameter observer: Called with each new value.
  /// - Returns: A token that keeps the observer registered.
  public func observe(_ observer: @escaping @Sendable (Value) -> Void) -> ObserverToken {
    switch reference {
    case .box(let box):
      return box.observe(observer)
    case .root(let root):
      return root.box.observe(retaining: root, observer)
    case .derived(let derived):
      return derived.observe(observer)
    }
  }

  /// The error of the last attempt to read the key's store, or `nil`.
  ///
  /// When a store holds something unreadable, holders start from the default, this property says what is wrong,
  /// and the store is left untouched until the value is changed.
  public var loadError: (any Error)? {
    root.loadError
  }

  /// The error of the last attempt to save the value, or `nil` once a save succeeds.
  ///
  /// A failed save keeps the value in memory; the next change, or ``save()``, tries again.
  public var saveError: (any Error)? {
    root.saveError
  }

  /// Saves now any change that is not saved yet, and waits until every change made before this call is in the
  /// store, or was replaced by a value the store itself reported.
  ///
  /// ```swift
  /// $settings.withLock { $0.theme = .dark }
  /// try await $settings.save()   // written, not just scheduled
  /// ```
  ///
  /// A change of another program can replace a change of this program that is not saved yet: a check of a file
  /// that began after the change, or a store's ``SharedKeyContext/update(_:)``, that finds an outside value brings
  /// it into memory in place of the change, and `save()` then returns without saving the replaced change (memory
  /// and store agree on the outside value). A check that began before the change never replaces it.
  ///
  /// If the last save failed and nothing changed since, the current value is saved again. Values whose key stores
  /// nothing return at once. Changes made while it waits do not keep it waiting.
  ///
  /// - Throws: The error of the save that stored this call's changes (a later save's error is not this call's);
  ///   the last error is also kept in ``saveError``.
  public func save() async throws {
    try await root.save()
  }

  /// The key paths from the root to this value: empty for a root.
  @usableFromInline
  var coordinationPath: [any AnyKeyPath & Sendable] {
    if case .derived(let derived) = reference { return derived.path }
    return []
  }

  /// The root this value reads and writes, directly or through the values it is derived from.
  @usableFromInline
  var root: any SharedRootProtocol {
    switch reference {
    case .box(let box): return box
    case .root(let root): return root
    case .derived(let derived): return derived.root
    }
  }
}

extension Shared: CustomStringConvertible {
  /// The current value, described.
  public var description: String {
    "Shared(\(wrappedValue))"
  }
}
