public import Reactive

// One write, from `withLock` to the listeners and the store:
//
// 1. `$x.withLock { $0 += 1 }` finds the value's box: directly for a value with no store (`directBox`), through the
//    root for a stored value (`SharedRoot.withLockSaving`), through the parent for a derived one (`$x.member`).
// 2. `ReactiveBox.withLock` (Reactive) runs the body under the box's lock, bumps the version, and decides under the
//    lock who must hear: subscribers of `values`, observers, Observation's registrar. It unlocks, then resumes the
//    waiting iterations, calls the observers and tells Observation; no listener runs under the lock.
// 3. For a stored value, the root hands the new value and its sequence number to `Persistence`, whose
//    `PersistenceStateMachine` decides when to save; the key's `save` runs on a task of its own, never under a lock,
//    and never stores a change after a newer one.
// 4. Operations (`run`) and queries write the same way, through `withLock`, so every holder sees them alike.

/// A value that every holder of one key shares: read it directly, change it with ``withLock(_:)``.
///
/// ```swift
/// func count() async {
///   @Shared(.inMemory("counter")) var counter = 0   // the default is used only if nobody holds the key yet
///
///   $counter.withLock { $0 += 1 }                   // the only way to write
///   print(counter)                                  // a synchronous read
///
///   for await value in $counter.values {            // the current value, then changes
///     print(value)
///   }
/// }
/// ```
///
/// Any number of holders, anywhere in a program, that use keys with the same ``SharedReaderKey/id`` see one value. The
/// projected value (`$counter`) is itself a `Shared`: `Sendable`, cheap to copy, and pointing at the same value, so
/// it can be handed to other types and tasks. A `Shared` made with ``init(value:)`` has no key and is shared by
/// whoever gets a copy.
///
/// Reading the value inside `withObservationTracking`, `Observations` or a SwiftUI view tracks it: a change made
/// through any holder is reported.
///
/// ### Writing
///
/// A holder cannot be assigned to: `counter = 1` fails with "cannot assign to property: 'counter' is a get-only
/// property". Every write goes through the value's lock, so write `$counter.withLock { $0 = 1 }`; to point a
/// property at another holder's value, initialize it with that holder's projected value:
/// `_counter = Shared(projectedValue: other)`.
///
/// ### In an `@Observable` class
///
/// Mark the property `@ObservationIgnored`: both macros would otherwise declare the same backing property
/// (`invalid redeclaration of synthesized property '_counter'`). Observation still sees every change, through the
/// shared value itself:
///
/// ```swift
/// @Observable
/// final class CounterModel {
///   @ObservationIgnored @Shared(.inMemory("counter")) var counter = 0
///
///   func increment() {
///     $counter.withLock { $0 += 1 }
///   }
/// }
/// ```
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
    case .root(let root): directBox = root.savesChanges || root.isQueryValue ? nil : root.box
    case .derived: directBox = nil
    }
  }

  /// Holds the shared value of `key`, creating it from the key's store or `wrappedValue` if nobody holds it yet.
  ///
  /// ```swift
  /// func applyTheme(settingsURL: URL) {
  ///   @Shared(.fileStorage(settingsURL)) var settings = Settings()
  ///   apply(settings.theme)
  /// }
  /// ```
  ///
  /// If the key already has a value, `wrappedValue` is not even evaluated. If the key already holds a value of
  /// another type, the holder gets a value of its own and a ``SharedDiagnostic`` is recorded and printed.
  ///
  /// The key must save changes (a ``SharedKey``): a key that only reads its store (a ``SharedReaderKey``) gives a
  /// ``SharedReader`` instead, and does not compile here. When the key loads asynchronously, the value starts from
  /// `wrappedValue` with ``isLoading`` set until the stored value arrives.
  ///
  /// - Parameters:
  ///   - wrappedValue: The value to start from when the key has no value yet.
  ///   - key: The key that names the value.
  @inlinable
  public init(wrappedValue: @autoclosure () -> Value, _ key: some SharedKey<Value>) {
    self.init(reference: SharedRegistry.current.reference(for: key, defaultValue: wrappedValue))
  }

  /// Holds the in-memory value named by `key`, creating it from `wrappedValue` if nobody holds it yet.
  ///
  /// ```swift
  /// struct FilterModel {
  ///   @Shared(.inMemory("filter")) var filter = Filter.all
  /// }
  /// ```
  ///
  /// An in-memory value has no store, and is writable by every holder. If the key already has a value,
  /// `wrappedValue` is not even evaluated; if it holds a value of another type, the holder gets a value of its own
  /// and a ``SharedDiagnostic`` is recorded and printed.
  ///
  /// - Parameters:
  ///   - wrappedValue: The value to start from when the key has no value yet.
  ///   - key: The key that names the value.
  @inlinable
  public init(wrappedValue: @autoclosure () -> Value, _ key: InMemoryKey<Value>) {
    self.init(reference: SharedRegistry.current.reference(for: key, defaultValue: wrappedValue))
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
  /// A query's value is written the way the store writes it: while mutations' optimistic changes are pending on it,
  /// the body gets (and changes) the query's confirmed value, without those changes, and the value shown is
  /// recomputed with them (see ``OptimisticCache``); the persisted cache writes the change as it writes the store's.
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
      if root.isQueryValue { return try root.withLockConfirming(announcing: true, body) }
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
  /// the change (under contention, possibly on another); see `ReactiveBox.observe(_:)`. They never hop to an actor:
  /// not to the main actor, nor to the caller's. A query's value changes where its fetch ends, on a thread of the
  /// cooperative pool, so `MainActor.assumeIsolated` in an observer of a query stops the program; iterate ``values``
  /// from a `@MainActor` task to get each value on the main actor. The token keeps the shared value alive.
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

  /// The error of the last load of the key's store, or `nil` once a load succeeds.
  ///
  /// When a store holds something unreadable, or a load fails, holders keep their value (the default, for a first
  /// load), this property says what is wrong, and the store is left untouched until the value is changed.
  ///
  /// ```swift
  /// if let error = $settings.loadError { print("settings unreadable:", error) }
  /// ```
  ///
  /// Reading it inside `withObservationTracking` or a SwiftUI view tracks the value, so the view is told when a
  /// load ends.
  public var loadError: (any Error)? {
    let root = self.root
    root.trackValue()
    return root.loadError
  }

  /// Whether the key's store is being read: from the first holder until an asynchronous load resumes, and during
  /// each ``load()`` that does not end at once.
  ///
  /// ```swift
  /// func render(_ profile: Shared<Profile>) {
  ///   if profile.isLoading { showSpinner() } else { show(profile.wrappedValue) }
  /// }
  /// ```
  ///
  /// A key that resumes its load before returning never shows a loading phase. Values with no store are never
  /// loading. Every holder is told when a load begins and ends (the value is written, with the loaded value or the
  /// same one), so `values`, `observe` and Observation see the change; reading this property inside
  /// `withObservationTracking` or a SwiftUI view tracks it.
  public var isLoading: Bool {
    let root = self.root
    root.trackValue()
    return root.isLoading
  }

  /// Loads the value from the key's store again, and waits until it is in memory.
  ///
  /// ```swift
  /// try await $profile.load()   // the store's value now, unless the program changed it meanwhile
  /// ```
  ///
  /// The loaded value replaces memory like a change from the store: every holder sees it, and it is not saved
  /// back. A change made in the program since the load began, or one still waiting to be saved, wins over it. A
  /// store that holds nothing brings the value back to the default of the holder that created it.
  ///
  /// Calls wait for a load that began after they were called: during a load, further calls share the one that
  /// follows it. Values with no store return at once.
  ///
  /// A caller that is cancelled stops waiting at once and throws `CancellationError`; the load goes on for
  /// everyone else, so a store that never answers cannot hold a cancelled caller.
  ///
  /// - Throws: The error the key's load ended with (also kept in ``loadError``; a successful load clears it), or
  ///   `CancellationError`.
  public func load() async throws {
    try await root.load()
  }

  /// The error of the last attempt to save the value, or `nil` once a save succeeds.
  ///
  /// A failed save keeps the value in memory; the next change, or ``save()``, tries again. The error stays until a
  /// save succeeds or the program clears it (``clearSaveError()``), even when the store then reports a value of its
  /// own that replaces the change that failed: the program's change did not reach the store, and it learns so.
  /// ``loadError``, by contrast, clears as soon as the store delivers a good value.
  public var saveError: (any Error)? {
    root.saveError
  }

  /// Forgets the error of the last failed save, once the program has dealt with it (told the user, say); the next
  /// failed save sets ``saveError`` again.
  ///
  /// ```swift
  /// func dismissSaveFailure(_ settings: Shared<Settings>) {
  ///   if settings.saveError != nil { settings.clearSaveError() }
  /// }
  /// ```
  public func clearSaveError() {
    root.clearSaveError()
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
  /// A caller that is cancelled stops waiting at once and throws `CancellationError`; the saves go on.
  ///
  /// - Throws: The error of the save that stored this call's changes (a later save's error is not this call's);
  ///   the last error is also kept in ``saveError``. `CancellationError` when the caller is cancelled.
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
