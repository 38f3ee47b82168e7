/// How often a failed operation is tried again, and how long to wait before each retry.
///
/// ```swift
/// $post.run(retry: .exponential(retries: 3, initial: .milliseconds(200), maxDelay: .seconds(5))) {
///   try await api.post(1)
/// }
/// ```
///
/// Cancellation is never retried, and neither is a `CancellationError` the operation throws: when the run was
/// cancelled it settles as cancelled; otherwise (the operation cancelled some inner work of its own) it is a failure
/// like any other, with `onError` and the error stored. Waits are measured on the clock passed to `run`, so tests use a
/// ``ManualClock`` and never sleep.
public struct RetryPolicy: Sendable {
  /// How many times a failed operation is tried again; the operation runs at most `retries + 1` times.
  public let retries: Int
  /// How long to wait before each retry.
  public let backoff: Backoff
  /// Which errors are worth retrying. The default retries every error; a `CancellationError` is never retried,
  /// whatever this says.
  public let shouldRetry: @Sendable (any Error) -> Bool

  /// A policy.
  ///
  /// - Parameters:
  ///   - retries: How many times to try again; at least 0.
  ///   - backoff: The wait before each retry.
  ///   - shouldRetry: Which errors to retry.
  public init(
    retries: Int,
    backoff: Backoff = .constant(.zero),
    shouldRetry: @escaping @Sendable (any Error) -> Bool = { _ in true }
  ) {
    precondition(retries >= 0, "RetryPolicy needs 0 or more retries, not \(retries)")
    self.retries = retries
    self.backoff = backoff
    self.shouldRetry = shouldRetry
  }

  /// Never retries.
  public static var none: RetryPolicy { RetryPolicy(retries: 0) }

  /// Retries `retries` times, waiting `delay` before each.
  ///
  /// - Parameters:
  ///   - retries: How many times to try again.
  ///   - delay: The wait before each retry.
  /// - Returns: The policy.
  public static func constant(retries: Int, delay: Duration) -> RetryPolicy {
    RetryPolicy(retries: retries, backoff: .constant(delay))
  }

  /// Retries `retries` times, doubling the wait from `initial` up to `maxDelay`, with up to `jitter` of each wait
  /// taken off at random.
  ///
  /// - Parameters:
  ///   - retries: How many times to try again.
  ///   - initial: The wait before the first retry.
  ///   - multiplier: How much longer each wait is than the one before.
  ///   - maxDelay: The longest wait.
  ///   - jitter: The largest fraction of a wait removed at random, from 0 (none) to 1.
  /// - Returns: The policy.
  public static func exponential(
    retries: Int,
    initial: Duration = .milliseconds(200),
    multiplier: Double = 2,
    maxDelay: Duration = .seconds(30),
    jitter: Double = 0
  ) -> RetryPolicy {
    RetryPolicy(
      retries: retries,
      backoff: .exponential(initial: initial, multiplier: multiplier, maxDelay: maxDelay, jitter: jitter))
  }

  /// The wait before retry number `retry` (from 1), given a random number in `0..<1` for the jitter.
  ///
  /// - Parameters:
  ///   - retry: Which retry, from 1.
  ///   - random: A number in `0..<1`.
  /// - Returns: The wait.
  public func delay(beforeRetry retry: Int, random: Double) -> Duration {
    backoff.delay(beforeRetry: retry, random: random)
  }
}

/// The wait before a retry.
public enum Backoff: Sendable, Equatable {
  /// The same wait before every retry.
  case constant(Duration)
  /// A wait that starts at `initial` and grows by `multiplier` per retry up to `maxDelay`; up to `jitter` (a
  /// fraction from 0 to 1) of each wait is removed at random, so many clients do not retry in step.
  case exponential(initial: Duration, multiplier: Double, maxDelay: Duration, jitter: Double)

  /// The wait before retry number `retry` (from 1), given a random number in `0..<1` for the jitter.
  ///
  /// - Parameters:
  ///   - retry: Which retry, from 1.
  ///   - random: A number in `0..<1`.
  /// - Returns: The wait.
  public func delay(beforeRetry retry: Int, random: Double) -> Duration {
    switch self {
    case .constant(let delay):
      return delay
    case .exponential(let initial, let multiplier, let maxDelay, let jitter):
      let growth = pow(multiplier, Double(max(0, retry - 1)))
      let full = min(initial * growth, maxDelay)
      let removed = min(max(jitter, 0), 1) * min(max(random, 0), 1)
      return full * (1 - removed)
    }
  }
}

/// `base` raised to `exponent`, without Foundation.
private func pow(_ base: Double, _ exponent: Double) -> Double {
  var result = 1.0
  var remaining = Int(exponent)
  while remaining > 0 {
    result *= base
    remaining -= 1
    if result > 1e12 { break }
  }
  return result
}
