/// Runs one operation or fetch with its retries: waits between attempts on a clock, reports each retry, and never
/// retries a `CancellationError`: it is cancellation when the task is cancelled, and otherwise a failure like any
/// other error.
///
/// It holds no state and coordinates nothing: the caller decides what a retry shows (an operation run or a query
/// writes the attempt number into its value).
enum RetryLoop {
  /// Runs `attempt` until it succeeds, fails in a way `retry` does not retry, runs out of retries, or is cancelled.
  ///
  /// - Parameters:
  ///   - retry: How many retries, after which errors, with which waits.
  ///   - clock: The clock the waits are measured on.
  ///   - onRetry: Called before each retry with its attempt number (2 for the first retry).
  ///   - attempt: One attempt.
  /// - Returns: The value, the error that ended the attempts, or cancellation.
  static func run<Success: Sendable>(
    retry: RetryPolicy,
    clock: any Clock<Duration>,
    onRetry: (Int) -> Void,
    _ attempt: () async throws -> Success
  ) async -> RunOutcome<Success> {
    var number = 1
    while true {
      if Task.isCancelled { return .cancelled }
      do {
        let value = try await attempt()
        // An attempt that finished although its task was cancelled counts as cancelled.
        return Task.isCancelled ? .cancelled : .success(value)
      } catch {
        if Task.isCancelled { return .cancelled }
        guard number <= retry.retries, !(error is CancellationError), retry.shouldRetry(error) else {
          return .failure(error)
        }
        let delay = retry.delay(beforeRetry: number, random: Double.random(in: 0..<1))
        if delay > .zero {
          do { try await clock.sleep(for: delay) } catch { return .cancelled }
        }
        if Task.isCancelled { return .cancelled }
        number += 1
        onRetry(number)
      }
    }
  }
}
