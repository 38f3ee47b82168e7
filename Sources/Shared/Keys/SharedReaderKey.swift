/// Names a shared value and says where it is read from: a key whose holders read the value but cannot write it.
///
/// Every holder of a key with the same ``id`` shares one value. A reader key backs that value with a store: it
/// loads the value when the first holder appears, and reports changes made outside the program. Hold it with
/// ``SharedReader``; a key that also saves changes is a ``SharedKey``, and only such a key gives a writable
/// ``Shared``.
///
/// A store on this machine answers at once: resume the continuation before `load` returns, and the first holder
/// starts from the stored value.
///
/// ```swift
/// struct EnvironmentKey: SharedReaderKey {
///   let name: String
///   var id: String { name }
///
///   func load(context: SharedKeyContext<String>, continuation: SharedLoadContinuation<String>) {
///     continuation.resume(returning: ProcessInfo.processInfo.environment[name])
///   }
/// }
///
/// func printHome() {
///   @SharedReader(EnvironmentKey(name: "HOME")) var home = "/"
///   print(home)
/// }
/// ```
///
/// A store on another machine answers later: resume the continuation from a task. Holders start from their default
/// meanwhile, with ``SharedReader/isLoading`` set, and see the value, or ``SharedReader/loadError``, when it
/// arrives.
///
/// ```swift
/// struct RemoteFlagsKey: SharedReaderKey {
///   let client: FlagsClient
///   var id: String { "flags" }
///
///   func load(context: SharedKeyContext<Flags>, continuation: SharedLoadContinuation<Flags>) {
///     Task {
///       do {
///         continuation.resume(returning: try await client.fetchFlags())
///       } catch {
///         continuation.resume(throwing: error)
///       }
///     }
///   }
///
///   func subscribe(context: SharedKeyContext<Flags>) -> SharedSubscription {
///     let task = Task {
///       for await flags in client.flagUpdates() { context.update(flags) }
///     }
///     return SharedSubscription { task.cancel() }
///   }
/// }
/// ```
///
/// > Important: ``load(context:continuation:)`` must resume its continuation exactly once. A second resume is
/// > ignored; a continuation dropped without being resumed ends the load with ``SharedLoadError/notResumed(key:)``.
///
/// The hooks are called outside every lock of the framework, so they may read the shared value through the
/// context.
public protocol SharedReaderKey<Value>: Sendable {
  /// The type of the shared value.
  associatedtype Value: Sendable
  /// The type of the key's identity.
  associatedtype ID: Hashable & Sendable

  /// The identity of the value: holders of keys with equal ids share one value.
  ///
  /// The id's `hash(into:)` and `==` run under the registry's lock: keep them plain (no shared values, no locks).
  /// The first holder's key decides how the value is stored: a later holder of an equal id shares that value.
  var id: ID { get }

  /// How long the value lives once its last holder is gone. The default is ``SharedKeyLifetime/whileHeld``.
  var lifetime: SharedKeyLifetime { get }

  /// Reads the stored value: when the first holder appears, and again on every ``SharedReader/load()``.
  ///
  /// Resume `continuation` with the stored value, with `nil` when the store holds nothing (holders keep the
  /// default of the holder that created the value), or with the error that kept the store from being read (holders
  /// keep their value, and the error is exposed as ``SharedReader/loadError``).
  ///
  /// Resuming before this method returns makes the load synchronous: the first holder starts from the stored value
  /// and never sees a loading phase. Resuming later (from a task) makes it asynchronous: holders start from the
  /// default with ``SharedReader/isLoading`` set, and see the value when it arrives. A change made in the program
  /// while a load runs wins over what the load finds.
  ///
  /// The default resumes with `nil` at once: nothing is stored.
  ///
  /// ```swift
  /// func load(context: SharedKeyContext<Config>, continuation: SharedLoadContinuation<Config>) {
  ///   Task {
  ///     do {
  ///       continuation.resume(returning: try await remote.config(named: name))
  ///     } catch {
  ///       continuation.resume(throwing: error)
  ///     }
  ///   }
  /// }
  /// ```
  ///
  /// > Important: Resume `continuation` exactly once.
  ///
  /// - Parameters:
  ///   - context: The context of the shared value.
  ///   - continuation: Takes the stored value, `nil`, or an error.
  func load(context: SharedKeyContext<Value>, continuation: SharedLoadContinuation<Value>)

  /// Starts watching the store for changes made outside the program.
  ///
  /// Call ``SharedKeyContext/update(_:)`` with each new value, one call after another in the order the store
  /// changed, and ``SharedKeyContext/resetToDefault()`` when the store no longer holds a value. The subscription is
  /// cancelled when the shared value is freed. The default watches nothing.
  ///
  /// ```swift
  /// func subscribe(context: SharedKeyContext<Config>) -> SharedSubscription {
  ///   let task = Task { for await config in remote.updates(named: name) { context.update(config) } }
  ///   return SharedSubscription { task.cancel() }
  /// }
  /// ```
  ///
  /// - Parameter context: The context to report changes to.
  /// - Returns: A subscription that stops watching when cancelled.
  func subscribe(context: SharedKeyContext<Value>) -> SharedSubscription
}

extension SharedReaderKey {
  /// Values live while they are held.
  public var lifetime: SharedKeyLifetime { .whileHeld }

  /// Nothing is stored: resumes with `nil` at once, so holders use the first holder's default.
  ///
  /// - Parameters:
  ///   - context: The context of the shared value.
  ///   - continuation: Resumed with `nil`.
  public func load(context: SharedKeyContext<Value>, continuation: SharedLoadContinuation<Value>) {
    continuation.resume(returning: nil)
  }

  /// Nothing outside the program changes the value.
  ///
  /// - Parameter context: The context of the shared value.
  /// - Returns: A subscription that does nothing.
  public func subscribe(context: SharedKeyContext<Value>) -> SharedSubscription { SharedSubscription {} }
}
