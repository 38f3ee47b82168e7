/// What an operation knows about the attempt it runs in: the attempt number, the clock, and a way to show a value
/// before its final one.
///
/// Operations, query fetchers and modifiers (``OperationModifier``) receive one:
///
/// ```swift
/// $feed.run { context in
///   if let cached = cache.feed { context.yield(cached) }  // shown now; the run stays pending
///   if context.attempt > 1 { log("retrying, attempt \(context.attempt)") }
///   return try await api.feed()
/// }
/// ```
///
/// Each attempt gets its own context; a retry's context has the next attempt number.
public struct OperationContext<Success: Sendable>: Sendable {
  /// The attempt this context belongs to, from 1; a retry is attempt 2, and so on.
  public let attempt: Int
  /// The clock of the run's options: wait on it (`try await context.clock.sleep(for:)`) so that tests with a
  /// ``ManualClock`` control the wait.
  public let clock: any Clock<Duration>
  /// What the app attached to the work (``OperationOptions/meta``, a query's ``QueryOptions/meta``); empty when it
  /// attached nothing.
  ///
  /// ```swift
  /// let query: Query<OperationState<[Post]>> = .query(["feed"], options: QueryOptions(meta: ["page size": 20])) {
  ///   context in try await api.feed(limit: context.meta["page size", as: Int.self] ?? 50)
  /// }
  /// ```
  public let meta: OperationMeta
  /// Where a yielded value goes; `nil` drops it.
  let sink: (@Sendable (Success) -> Void)?

  /// A context of your own, for calling an operation or a modifier directly (in a test of a modifier, say).
  ///
  /// ```swift
  /// let shown = Mutex<[Int]>([])
  /// let context = OperationContext<Int>(attempt: 2, clock: ManualClock()) { value in
  ///   shown.withLock { $0.append(value) }
  /// }
  /// let value = try await LoggingModifier().run(context: context) { _ in 42 }
  /// ```
  ///
  /// - Parameters:
  ///   - attempt: The attempt number, from 1.
  ///   - clock: The clock to hand the operation.
  ///   - meta: What the app attached to the work; none by default.
  ///   - onYield: Receives the values the operation yields; they are dropped if `nil`.
  public init(
    attempt: Int = 1,
    clock: any Clock<Duration> = ContinuousClock(),
    meta: OperationMeta = [:],
    onYield: (@Sendable (Success) -> Void)? = nil
  ) {
    precondition(attempt >= 1, "An attempt is numbered from 1, not \(attempt)")
    self.attempt = attempt
    self.clock = clock
    self.meta = meta
    self.sink = onYield
  }

  /// Shows `value` now, as an intermediate result, while the operation goes on.
  ///
  /// ```swift
  /// func loadFeed(api: API, cache: FeedCache) {
  ///   @Shared(.inMemory("feed")) var feed = OperationState<[Item]>()
  ///   $feed.run { context in
  ///     if let cached = cache.feed { context.yield(cached) }
  ///     return try await api.feed()
  ///   }
  /// }
  /// ```
  ///
  /// The value goes into the shared state through ``OperationTrackable/applySuccess(_:)`` and the status stays
  /// ``OperationStatus/pending``; the operation's return value is the final one. A value is shown only while the
  /// state follows this run: never once a newer run is pending or was shown, never after this run ended, never
  /// after this context's attempt ended (a failed or timed-out attempt's context, kept by a task it left behind,
  /// shows nothing while a retry runs), and never from a cancelled task.
  ///
  /// - Parameter value: An intermediate value.
  public func yield(_ value: Success) {
    guard let sink, !Task.isCancelled else { return }
    sink(value)
  }
}
