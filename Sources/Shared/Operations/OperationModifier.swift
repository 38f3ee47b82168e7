/// Behaviour of your own wrapped around every attempt of an operation: logging, metrics, an artificial delay for
/// previews, refreshing an auth token and trying once more.
///
/// A modifier receives the attempt's context and `next`, the rest of the attempt (the modifiers after it, then the
/// operation). It may act before and after `next`, call it again, change what it returns, or not call it at all:
///
/// ```swift
/// struct LoggingModifier: OperationModifier {
///   func run<Success: Sendable>(
///     context: OperationContext<Success>,
///     next: (OperationContext<Success>) async throws -> Success
///   ) async throws -> Success {
///     print("attempt \(context.attempt) starts")
///     defer { print("attempt \(context.attempt) ends") }
///     return try await next(context)
///   }
/// }
///
/// $post.run(.modifier(LoggingModifier()).retry(.exponential(retries: 3))) { try await api.post(1) }
/// ```
///
/// Add modifiers with ``OperationOptions/modifier(_:)-swift.type.method`` (or ``OperationOptions/modifiers``); the
/// same options work for ``Shared/run(_:policy:optimistic:isolation:_:onAttempt:onSuccess:onError:onSettled:)-(_,_,_,_,()->Value.Success,_,_,_,_)``,
/// `perform`, `mutate` and query fetches (``QueryOptions/operation``).
///
/// ## Order
///
/// For each attempt, from the outside in:
/// 1. Retry wraps everything: each retry runs the whole chain below again, with the next attempt number.
/// 2. The timeout (``OperationOptions/timeout``) bounds each attempt, modifiers included: time a modifier spends
///    (a delay, a token refresh) counts against it.
/// 3. The modifiers, in the order they were added: the first added is the outermost, so it enters first and
///    leaves last.
/// 4. The operation.
///
/// The policy (``OperationPolicy``, such as ``OperationPolicy/dedupe``) decides whether a run starts at all, before
/// any of this. It is an argument of its own (`policy: .dedupe`) rather than a modifier because it coordinates the
/// runs on one shared value with each other, where a modifier sees one attempt of one run: a dedupe joiner shares
/// the run that started, options and all.
///
/// `next` is not escaping: a modifier runs the rest of the attempt within its own `run`, and cannot start it on
/// other tasks.
public protocol OperationModifier: Sendable {
  /// Runs one attempt through this modifier: call `next` to go on with the rest of the attempt.
  ///
  /// ```swift
  /// func run<Success: Sendable>(
  ///   context: OperationContext<Success>,
  ///   next: (OperationContext<Success>) async throws -> Success
  /// ) async throws -> Success {
  ///   try await context.clock.sleep(for: .seconds(1))  // a preview's artificial delay
  ///   return try await next(context)
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - context: The attempt's context: its number, the clock, the way to yield values.
  ///   - next: The rest of the attempt: the modifiers added after this one, then the operation.
  /// - Returns: The attempt's value.
  /// - Throws: The attempt's error, or one of the modifier's own.
  func run<Success: Sendable>(
    context: OperationContext<Success>,
    next: (OperationContext<Success>) async throws -> Success
  ) async throws -> Success
}
