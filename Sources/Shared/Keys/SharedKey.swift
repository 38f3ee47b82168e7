/// Names a shared value and says where it lives.
///
/// Every holder of a key with the same ``id`` shares one value. A key can also back that value with a store: it
/// loads the value when the first holder appears, saves it after changes, and reports changes made outside the
/// program. ``InMemoryKey`` and ``FileStorageKey`` are keys like any other; write your own for any store.
///
/// ```swift
/// struct UserDefaultsKey: SharedKey {
///   typealias Value = String
///   let name: String
///   var id: String { name }
///
///   func load(context: SharedKeyContext<String>) throws -> String? {
///     defaults.string(forKey: name)
///   }
///
///   func save(_ value: String, context: SharedKeyContext<String>) async throws {
///     defaults.set(value, forKey: name)
///   }
/// }
/// ```
///
/// > Important: The hooks are called outside every lock of the framework, so they may read or write the shared
/// > value through the context. ``save(_:context:)`` calls for one value never overlap and arrive in order.
public protocol SharedKey<Value>: Sendable {
  /// The type of the shared value.
  associatedtype Value: Sendable
  /// The type of the key's identity.
  associatedtype ID: Hashable & Sendable

  /// The identity of the value: holders of keys with equal ids share one value.
  ///
  /// The id's `hash(into:)` and `==` run under the registry's lock: keep them plain (no shared values, no locks).
  var id: ID { get }

  /// How long the value lives once its last holder is gone. The default is ``SharedKeyLifetime/whileHeld``.
  var lifetime: SharedKeyLifetime { get }

  /// Which of the store hooks the framework calls. The default is ``SharedKeyPersistence/readWrite``.
  var persistence: SharedKeyPersistence { get }

  /// When saves happen after a change. The default is ``SharedSaveSchedule/immediate``.
  var saveSchedule: SharedSaveSchedule { get }

  /// Reads the stored value when the first holder of the key appears.
  ///
  /// - Parameter context: Lets the key report errors and, later, changes from outside.
  /// - Returns: The stored value, or `nil` to use the first holder's default.
  /// - Throws: When the store holds something unreadable. The holder's default is used and the error is exposed
  ///   as ``Shared/loadError``.
  func load(context: SharedKeyContext<Value>) throws -> Value?

  /// Stores a value after it changed.
  ///
  /// Calls never overlap; each one gets the newest value at the time it starts, so a quick series of changes may
  /// be saved once. A change is never saved after a newer one, whatever order the changes' save requests arrive in.
  ///
  /// - Parameters:
  ///   - value: The value to store.
  ///   - context: The context of the shared value.
  /// - Throws: When the value could not be stored; the error is exposed as ``Shared/saveError``.
  func save(_ value: Value, context: SharedKeyContext<Value>) async throws

  /// Starts watching the store for changes made outside the program.
  ///
  /// Call ``SharedKeyContext/update(_:)`` with each new value, one call after another in the order the store
  /// changed, and ``SharedKeyContext/resetToDefault()`` when the store no longer holds a value. The subscription is
  /// cancelled when the shared value is freed.
  ///
  /// - Parameter context: The context to report changes to.
  /// - Returns: A subscription that stops watching when cancelled.
  func subscribe(context: SharedKeyContext<Value>) -> SharedSubscription

  /// Called for every new holder of the key's value, once the value exists. The default does nothing; queries use
  /// it to fetch when a holder appears and the value is missing or stale.
  ///
  /// - Parameters:
  ///   - shared: The new holder.
  ///   - registry: The registry it belongs to.
  func holderDidAppear(_ shared: Shared<Value>, in registry: SharedRegistry)
}

extension SharedKey {
  /// Values live while they are held.
  public var lifetime: SharedKeyLifetime { .whileHeld }

  /// The value is loaded, saved and watched.
  public var persistence: SharedKeyPersistence { .readWrite }

  /// Saves start right after a change.
  public var saveSchedule: SharedSaveSchedule { .immediate }

  /// Nothing is stored: the first holder's default is used.
  public func load(context: SharedKeyContext<Value>) throws -> Value? { nil }

  /// Nothing outside the program changes the value.
  public func subscribe(context: SharedKeyContext<Value>) -> SharedSubscription { SharedSubscription {} }

  /// Does nothing.
  @inlinable
  public func holderDidAppear(_ shared: Shared<Value>, in registry: SharedRegistry) {}
}

/// Which store hooks of a ``SharedKey`` the framework calls.
public enum SharedKeyPersistence: Sendable, Hashable {
  /// The value lives in memory only: ``SharedKey/load(context:)``, ``SharedKey/save(_:context:)`` and
  /// ``SharedKey/subscribe(context:)`` are never called.
  case memoryOnly
  /// The value is loaded and watched, but never saved.
  case readOnly
  /// The value is loaded, watched, and saved after changes.
  case readWrite
}

/// How long a keyed value lives after its last holder is gone.
public enum SharedKeyLifetime: Sendable, Hashable {
  /// The value is freed when its last holder, iteration and running operation are gone; the next holder starts
  /// again from the store or its default.
  case whileHeld
  /// The value lives as long as its ``SharedRegistry``, like a global: for the default registry, the life of the
  /// process.
  case permanent
}

/// When a key's ``SharedKey/save(_:context:)`` runs after a change.
public struct SharedSaveSchedule: Sendable {
  /// How long to wait after a change before saving; more changes in that time are saved together.
  public let delay: Duration
  /// The clock that measures ``delay``.
  public let clock: any Clock<Duration>

  /// Saves right after each change (changes made while a save runs are saved together afterwards).
  public static var immediate: SharedSaveSchedule {
    SharedSaveSchedule(delay: .zero, clock: ContinuousClock())
  }

  /// Saves at most once per `delay`: a change is saved no later than `delay` after it was made.
  ///
  /// - Parameters:
  ///   - delay: The quiet time between a change and its save.
  ///   - clock: The clock that measures it; pass a ``ManualClock`` in tests.
  /// - Returns: The schedule.
  public static func debounced(
    _ delay: Duration,
    clock: any Clock<Duration> = ContinuousClock()
  ) -> SharedSaveSchedule {
    precondition(delay >= .zero, "A save delay cannot be negative: \(delay)")
    return SharedSaveSchedule(delay: delay, clock: clock)
  }
}

/// Stops a key's watch of its store when cancelled or freed.
public final class SharedSubscription: Sendable {
  private let onCancel: @Sendable () -> Void
  private let cancelled = Flag()

  /// Creates a subscription that calls `onCancel` once, when cancelled or freed.
  ///
  /// - Parameter onCancel: Stops the watch.
  public init(_ onCancel: @escaping @Sendable () -> Void) {
    self.onCancel = onCancel
  }

  deinit {
    cancel()
  }

  /// Stops the watch. Calling it again does nothing.
  public func cancel() {
    if cancelled.set() { onCancel() }
  }
}
