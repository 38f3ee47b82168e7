/// Runs the attempts of one operation run or query fetch: retries with their waits, and each attempt within its
/// timeout.
///
/// Retry wraps the attempts; each attempt races its timeout (when there is one) on the options' clock. A
/// `CancellationError` is never retried: it is cancellation when the task is cancelled, and otherwise a failure like
/// any other error.
///
/// It holds no state and coordinates nothing: the caller decides what a retry shows (a run writes the attempt number
/// only while the state follows it; a query always does).
enum AttemptLoop {
  /// Runs `attempt` until it succeeds, fails in a way the retry policy does not retry, runs out of retries, or is
  /// cancelled.
  ///
  /// - Parameters:
  ///   - options: The retry policy, the timeout of each attempt, and the clock for both.
  ///   - onRetry: Called before each retry with its attempt number (2 for the first retry).
  ///   - attempt: One attempt.
  /// - Returns: The value, the error that ended the attempts, or cancellation.
  static func run<Success: Sendable>(
    options: OperationOptions,
    onRetry: (Int) -> Void,
    _ attempt: @escaping @Sendable () async throws -> Success
  ) async -> RunOutcome<Success> {
    let retry = options.retry
    var number = 1
    while true {
      if Task.isCancelled { return .cancelled }
      do {
        let value = try await run(attempt, within: options.timeout, on: options.clock)
        // An attempt that finished although its task was cancelled counts as cancelled.
        return Task.isCancelled ? .cancelled : .success(value)
      } catch {
        if Task.isCancelled { return .cancelled }
        guard number <= retry.retries, !(error is CancellationError), retry.shouldRetry(error, number) else {
          return .failure(error)
        }
        let delay = retry.backoff(number)
        if delay > .zero {
          do { try await options.clock.sleep(for: delay) } catch { return .cancelled }
        }
        if Task.isCancelled { return .cancelled }
        number += 1
        onRetry(number)
      }
    }
  }

  /// Runs one attempt; with a timeout, the attempt races it and fails with ``OperationTimeoutError`` if it loses.
  private static func run<Success: Sendable>(
    _ attempt: @escaping @Sendable () async throws -> Success,
    within timeout: Duration?,
    on clock: any Clock<Duration>
  ) async throws -> Success {
    guard let timeout else { return try await attempt() }
    let race = AttemptRace<Success>()
    return try await withTaskCancellationHandler {
      try await withUnsafeThrowingContinuation { continuation in
        race.start(
          continuation,
          operation: Task {
            do { race.finish(.success(try await attempt())) } catch { race.finish(.failure(error)) }
          },
          timer: Task {
            do {
              try await clock.sleep(for: timeout)
              race.finish(.failure(OperationTimeoutError(timeout: timeout)))
            } catch {}
          })
      }
    } onCancel: {
      race.finish(.failure(CancellationError()))
    }
  }
}
