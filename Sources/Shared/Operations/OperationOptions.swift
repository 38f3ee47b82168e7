/// How an operation runs: its retries, the time each attempt may take, the clock it waits on, and the modifiers
/// wrapped around each attempt.
///
/// One value for ``Shared/run(_:policy:optimistic:isolation:_:onAttempt:onSuccess:onError:onSettled:)-(_,_,_,_,()->Value.Success,_,_,_,_)``,
/// ``Shared/perform(_:policy:optimistic:isolation:_:)-(_,_,_,_,()->Value.Success)``, ``Shared/mutate(_:_:policy:scope:invalidates:awaitsRefetches:isolation:_:onAttempt:onSuccess:onError:onSettled:)-(_,_,_,_,_,_,_,(Arguments)->Result,_,_,_,_)``
/// and a query's fetches (``QueryOptions/operation``). Build it with the initializer, or with builders that chain
/// from a leading dot:
///
/// ```swift
/// $post.run(.retry(.exponential(retries: 3)).timeout(.seconds(10))) {
///   try await api.post(1)
/// }
///
/// let options = OperationOptions(retry: .constant(retries: 2, delay: .seconds(1)), clock: clock)
/// ```
///
/// Retry wraps every attempt; the timeout bounds each attempt on its own, modifiers included; the modifiers wrap the
/// operation in the order they were added (see ``OperationModifier`` for the whole order).
public struct OperationOptions: Sendable {
  /// How often a failed attempt is tried again, and how long to wait first. None by default.
  public var retry: RetryPolicy
  /// How long each attempt may take before it fails with ``OperationTimeoutError``; no limit by default. Positive.
  public var timeout: Duration? {
    didSet { Self.checkTimeout(timeout) }
  }
  /// The clock the retry waits and timeouts are measured on, handed to the operation and its modifiers in their
  /// ``OperationContext``: a ``ManualClock`` in tests.
  public var clock: any Clock<Duration>
  /// Behaviour wrapped around every attempt, in order: the first is the outermost. None by default.
  public var modifiers: [any OperationModifier]
  /// Whether the work waits for the network while the device is offline; `nil` (the default) for its kind's
  /// default.
  ///
  /// ```swift
  /// $rename.mutate("New title", .networkMode(.offlineFirst)) { title in try await api.rename(42, to: title) }
  /// ```
  ///
  /// A query's fetches and a mutation's runs with no mode of their own take their store's
  /// ``QueryStore/networkMode`` (``NetworkMode/online`` unless the app changes it); a plain run with none ignores the
  /// network. A run that names a mode follows the ``QueryStore/onlineStatus`` of the current registry's store. See
  /// ``NetworkMode``.
  public var networkMode: NetworkMode?
  /// What the app attaches to the work for its own use (see ``OperationMeta``); empty by default. The operation
  /// reads it in its ``OperationContext/meta``, and the store's hooks in ``QueryHookSubject/meta``.
  ///
  /// ```swift
  /// $rename.mutate("New title", .meta(["screen": "post"])) { title in try await api.rename(42, to: title) }
  /// ```
  public var meta: OperationMeta

  /// Options; every argument has a default, so pass only what differs.
  ///
  /// ```swift
  /// let options = OperationOptions(retry: .exponential(retries: 3), timeout: .seconds(10))
  /// ```
  ///
  /// - Parameters:
  ///   - retry: How often to try again after a failure; never by default.
  ///   - timeout: How long each attempt may take; positive, or `nil` for no limit.
  ///   - clock: The clock for retry waits and timeouts.
  ///   - modifiers: Behaviour wrapped around every attempt; the first is the outermost.
  ///   - networkMode: Whether the work waits for the network; `nil` for its kind's default (see ``networkMode``).
  ///   - meta: What the app attaches to the work for its own use; empty by default.
  @inlinable
  public init(
    retry: RetryPolicy = .none,
    timeout: Duration? = nil,
    clock: any Clock<Duration> = ContinuousClock(),
    modifiers: [any OperationModifier] = [],
    networkMode: NetworkMode? = nil,
    meta: OperationMeta = [:]
  ) {
    Self.checkTimeout(timeout)
    self.retry = retry
    self.timeout = timeout
    self.clock = clock
    self.modifiers = modifiers
    self.networkMode = networkMode
    self.meta = meta
  }

  @usableFromInline
  static func checkTimeout(_ timeout: Duration?) {
    precondition(timeout.map { $0 > .zero } ?? true, "An operation timeout must be positive, not \(timeout!)")
  }

  // MARK: Builders

  /// Options that retry failed attempts as `policy` says.
  ///
  /// ```swift
  /// $post.run(.retry(.constant(retries: 2, delay: .seconds(1)))) { try await api.post(1) }
  /// ```
  ///
  /// - Parameter policy: How often to try again, and how long to wait first.
  /// - Returns: Default options with that retry policy.
  public static func retry(_ policy: RetryPolicy) -> OperationOptions {
    OperationOptions(retry: policy)
  }

  /// These options, retrying failed attempts as `policy` says.
  ///
  /// ```swift
  /// $post.run(.timeout(.seconds(5)).retry(.exponential(retries: 3))) { try await api.post(1) }
  /// ```
  ///
  /// - Parameter policy: How often to try again, and how long to wait first.
  /// - Returns: A copy with that retry policy.
  public func retry(_ policy: RetryPolicy) -> OperationOptions {
    var options = self
    options.retry = policy
    return options
  }

  /// Options whose attempts each fail with ``OperationTimeoutError`` after `timeout`.
  ///
  /// ```swift
  /// $post.run(.timeout(.seconds(10))) { try await api.post(1) }
  /// ```
  ///
  /// - Parameter timeout: How long each attempt may take; positive.
  /// - Returns: Default options with that timeout.
  public static func timeout(_ timeout: Duration) -> OperationOptions {
    OperationOptions(timeout: timeout)
  }

  /// These options, with each attempt failing with ``OperationTimeoutError`` after `timeout`.
  ///
  /// ```swift
  /// $post.run(.retry(.exponential(retries: 3)).timeout(.seconds(10))) { try await api.post(1) }
  /// ```
  ///
  /// - Parameter timeout: How long each attempt may take; positive.
  /// - Returns: A copy with that timeout.
  public func timeout(_ timeout: Duration) -> OperationOptions {
    var options = self
    options.timeout = timeout
    return options
  }

  /// Options that wait on `clock`.
  ///
  /// ```swift
  /// let clock = ManualClock()
  /// $post.run(.clock(clock).timeout(.seconds(1))) { try await api.post(1) }
  /// ```
  ///
  /// - Parameter clock: The clock for retry waits and timeouts.
  /// - Returns: Default options with that clock.
  public static func clock(_ clock: any Clock<Duration>) -> OperationOptions {
    OperationOptions(clock: clock)
  }

  /// These options, waiting on `clock`.
  ///
  /// ```swift
  /// $post.run(.retry(.constant(retries: 1, delay: .seconds(1))).clock(clock)) { try await api.post(1) }
  /// ```
  ///
  /// - Parameter clock: The clock for retry waits and timeouts.
  /// - Returns: A copy with that clock.
  public func clock(_ clock: any Clock<Duration>) -> OperationOptions {
    var options = self
    options.clock = clock
    return options
  }

  /// Options that wrap every attempt in `modifier`.
  ///
  /// ```swift
  /// $post.run(.modifier(LoggingModifier())) { try await api.post(1) }
  /// ```
  ///
  /// - Parameter modifier: Behaviour of your own; see ``OperationModifier``.
  /// - Returns: Default options with that one modifier.
  public static func modifier(_ modifier: some OperationModifier) -> OperationOptions {
    OperationOptions(modifiers: [modifier])
  }

  /// These options, with `modifier` wrapped around every attempt inside the modifiers already added (the first added
  /// stays the outermost).
  ///
  /// ```swift
  /// $post.run(.modifier(LoggingModifier()).modifier(RefreshingAuth(session: session))) { try await api.post(1) }
  /// ```
  ///
  /// - Parameter modifier: Behaviour of your own; see ``OperationModifier``.
  /// - Returns: A copy with `modifier` added last.
  public func modifier(_ modifier: some OperationModifier) -> OperationOptions {
    var options = self
    options.modifiers.append(modifier)
    return options
  }

  /// Options whose work waits for the network as `mode` says.
  ///
  /// ```swift
  /// $rename.mutate("New title", .networkMode(.always)) { title in try await api.rename(42, to: title) }
  /// ```
  ///
  /// - Parameter mode: Whether the work waits for the network while the device is offline.
  /// - Returns: Default options with that network mode.
  public static func networkMode(_ mode: NetworkMode) -> OperationOptions {
    OperationOptions(networkMode: mode)
  }

  /// These options, with the work waiting for the network as `mode` says.
  ///
  /// ```swift
  /// $rename.mutate("New title", .retry(.exponential(retries: 3)).networkMode(.offlineFirst)) { title in
  ///   try await api.rename(42, to: title)
  /// }
  /// ```
  ///
  /// - Parameter mode: Whether the work waits for the network while the device is offline.
  /// - Returns: A copy with that network mode.
  public func networkMode(_ mode: NetworkMode) -> OperationOptions {
    var options = self
    options.networkMode = mode
    return options
  }

  /// Default options carrying `meta`.
  ///
  /// ```swift
  /// $rename.mutate("New title", .meta(["screen": "post"])) { title in try await api.rename(42, to: title) }
  /// ```
  ///
  /// - Parameter meta: What the app attaches to the work for its own use.
  /// - Returns: Default options with that meta.
  public static func meta(_ meta: OperationMeta) -> OperationOptions {
    OperationOptions(meta: meta)
  }

  /// These options, carrying `meta`.
  ///
  /// ```swift
  /// $rename.mutate("New title", .retry(.exponential(retries: 3)).meta(["screen": "post"])) { title in
  ///   try await api.rename(42, to: title)
  /// }
  /// ```
  ///
  /// - Parameter meta: What the app attaches to the work for its own use.
  /// - Returns: A copy with that meta.
  public func meta(_ meta: OperationMeta) -> OperationOptions {
    var options = self
    options.meta = meta
    return options
  }
}
