/// Runs the attempts of one operation run or query fetch: retries with their waits, each attempt within its
/// timeout, the modifiers around the work, and a context for each attempt.
///
/// From the outside in: retry wraps the attempts; each attempt races its timeout (when there is one) on the options'
/// clock; inside it the modifiers run in the order they were added (the first is the outermost); the work runs last.
/// A `CancellationError` is never retried: it is cancellation when the task is cancelled, and otherwise a failure
/// like any other error.
///
/// It holds no state and coordinates nothing: the caller decides what a retry and a yielded value show (a run writes
/// them only while the state follows it; a query only while its fetch runs). Work that follows the network asks its
/// ``NetworkRun`` before the first attempt and at each retry, and waits there while the device is offline: an
/// attempt that fails offline waits for the network in place of its backoff, and a backoff that ends offline waits
/// too, so no attempt is used up while the device is offline.
enum AttemptLoop {
  /// Runs `body` until it succeeds, fails in a way the retry policy does not retry, runs out of retries, or is
  /// cancelled.
  ///
  /// - Parameters:
  ///   - body: The work.
  ///   - options: The retry policy, the timeout of each attempt, the clock for both, and the modifiers.
  ///   - network: The network the work follows, if any: asked before the first attempt and before each retry.
  ///   - yield: Where the contexts send yielded values, with their attempt's gate (closed once the attempt ended:
  ///     check it under the value's lock); `nil` when neither the work nor a modifier can yield.
  ///   - onFailure: Called when an attempt failed and a retry is due, before its wait, with the error and how many
  ///     attempts failed so far (1 for the first).
  ///   - mayRetry: Asked before each retry's wait and again after it: `false` ends the attempts as cancelled (a
  ///     query nobody needs any more stops retrying).
  ///   - onRetry: Called before each retry with its attempt number (2 for the first retry).
  /// - Returns: The value, the error that ended the attempts, or cancellation.
  static func run<Success: Sendable>(
    _ body: OperationBody<Success>,
    options: OperationOptions,
    network: NetworkRun? = nil,
    yield: (@Sendable (Success, YieldGate) -> Void)?,
    onFailure: (_ error: any Error, _ failureCount: Int) -> Void = { _, _ in },
    mayRetry: () -> Bool = { true },
    onRetry: (Int) -> Void
  ) async -> RunOutcome<Success> {
    let retry = options.retry
    var number = 1
    if let network, await !network.waitToStart() { return .cancelled }
    while true {
      if Task.isCancelled { return .cancelled }
      do {
        // A value yielded once its attempt ended (from a task the attempt left behind, or after its timeout) is
        // dropped: the caller checks the attempt's gate under the value's lock.
        var onYield: (@Sendable (Success) -> Void)?
        let gate = yield == nil ? nil : YieldGate()
        defer { gate?.close() }
        if let yield, let gate { onYield = { value in yield(value, gate) } }
        let context = OperationContext(attempt: number, clock: options.clock, meta: options.meta, onYield: onYield)
        let value = try await attempt(body, in: context, options: options)
        // An attempt that finished although its task was cancelled counts as cancelled.
        return Task.isCancelled ? .cancelled : .success(value)
      } catch {
        if Task.isCancelled { return .cancelled }
        guard number <= retry.retries, !(error is CancellationError), retry.shouldRetry(error, number) else {
          return .failure(error)
        }
        onFailure(error, number)
        guard mayRetry() else { return .cancelled }
        if let network, network.attemptFailed() {
          // Offline: the retry waits for the network in place of its backoff.
          guard await network.waitForNetwork(), mayRetry() else { return .cancelled }
        } else {
          let delay = retry.backoff(number)
          if delay > .zero {
            do { try await options.clock.sleep(for: delay, waitingFor: .retryBackoff) } catch { return .cancelled }
            guard mayRetry() else { return .cancelled }
          }
          if let network, network.backoffEnded() {
            guard await network.waitForNetwork(), mayRetry() else { return .cancelled }
          }
        }
        if Task.isCancelled { return .cancelled }
        number += 1
        onRetry(number)
      }
    }
  }

  /// One attempt: the modifiers around the work, racing the timeout if there is one (and failing with
  /// ``OperationTimeoutError`` if it loses).
  private static func attempt<Success: Sendable>(
    _ body: OperationBody<Success>,
    in context: OperationContext<Success>,
    options: OperationOptions
  ) async throws -> Success {
    let modifiers = options.modifiers
    guard let timeout = options.timeout else {
      return try await modified(body, by: modifiers, from: 0, in: context)
    }
    let race = TimeoutRace<Success>()
    return try await withTaskCancellationHandler {
      try await withUnsafeThrowingContinuation { continuation in
        race.start(continuation, timeout: timeout, on: options.clock) {
          try await modified(body, by: modifiers, from: 0, in: context)
        }
      }
    } onCancel: {
      race.finish(.failure(CancellationError()))
    }
  }

  /// The work wrapped in `modifiers[index...]`: the modifier at `index` outermost.
  private static func modified<Success: Sendable>(
    _ body: OperationBody<Success>,
    by modifiers: [any OperationModifier],
    from index: Int,
    in context: OperationContext<Success>
  ) async throws -> Success {
    guard index < modifiers.endIndex else { return try await body(context) }
    return try await modifiers[index].run(context: context) { context in
      try await modified(body, by: modifiers, from: index + 1, in: context)
    }
  }
}
