import Synchronization

/// How often a failed attempt is tried again, how long to wait before each retry, and which failures are worth it.
///
/// ```swift
/// $post.run(.retry(.exponential(retries: 3, initial: .milliseconds(200), maxDelay: .seconds(5)))) {
///   try await api.post(1)
/// }
/// ```
///
/// Three ready-made policies cover most needs (``none``, ``constant(retries:delay:)``,
/// ``exponential(retries:initial:multiplier:maxDelay:jitter:)``); ``init(retries:backoff:shouldRetry:)`` takes any
/// wait and any decision:
///
/// ```swift
/// let policy = RetryPolicy(
///   retries: 5,
///   backoff: { retry in .seconds(retry * retry) },                        // 1 s, 4 s, 9 s, ...
///   shouldRetry: { error, failureCount in error is URLError && failureCount < 3 })
/// ```
///
/// Queries take the same policy (``QueryOptions/operation``), with one rule of their own: a query's fetch retries
/// only while the query is held or a caller awaits it; otherwise it ends as cancelled instead of retrying. The
/// failures show in the state as they happen (``OperationTracking/failureCount``,
/// ``OperationTracking/failureReason``), for runs and fetches alike.
///
/// Cancellation is never retried, and neither is a `CancellationError` the operation throws: when the run was
/// cancelled it settles as cancelled; otherwise (the operation cancelled some inner work of its own) it is a failure
/// like any other, with `onError` and the error stored. Waits are measured on the options' clock
/// (``OperationOptions/clock``), so tests use a ``ManualClock`` and never sleep.
public struct RetryPolicy: Sendable {
  /// How many times a failed attempt is tried again at most; the operation runs at most `retries + 1` times.
  public let retries: Int
  /// The wait before retry number `retry` (1 for the first retry).
  public let backoff: @Sendable (_ retry: Int) -> Duration
  /// Whether to retry after `error`, the `failureCount`-th failure of the run (1 for the first). Asked only while
  /// retries remain; a `CancellationError` is never retried, whatever this says.
  public let shouldRetry: @Sendable (_ error: any Error, _ failureCount: Int) -> Bool
  /// Made with the policy and shared by its copies, which alone are known to share its closures (closures cannot be
  /// compared): it lets the records of queries made with one policy share their options. A number, not an object:
  /// copying a policy (every query and fetch copies its options) then counts no references shared across threads.
  @usableFromInline let identity: UInt64

  /// A policy with a wait and a decision of your own.
  ///
  /// ```swift
  /// let policy = RetryPolicy(
  ///   retries: 2,
  ///   backoff: { retry in .milliseconds(100 * retry) },
  ///   shouldRetry: { error, _ in (error as? APIError)?.isTransient ?? false })
  /// ```
  ///
  /// - Parameters:
  ///   - retries: How many times to try again at most; 0 or more.
  ///   - backoff: The wait before retry number `retry` (from 1); no wait by default.
  ///   - shouldRetry: Whether an error, the run's `failureCount`-th failure, is worth retrying; every error by
  ///     default.
  @inlinable
  public init(
    retries: Int,
    backoff: @escaping @Sendable (_ retry: Int) -> Duration = { _ in .zero },
    shouldRetry: @escaping @Sendable (_ error: any Error, _ failureCount: Int) -> Bool = { _, _ in true }
  ) {
    precondition(retries >= 0, "RetryPolicy needs 0 or more retries, not \(retries)")
    self.retries = retries
    self.backoff = backoff
    self.shouldRetry = shouldRetry
    self.identity = Self.nextIdentity()
  }

  /// Whether both are copies of one policy.
  func isIdentical(to other: RetryPolicy) -> Bool {
    identity == other.identity
  }

  /// The identities given so far.
  private static let identities = Atomic<UInt64>(0)

  /// An identity no other policy has.
  @usableFromInline
  static func nextIdentity() -> UInt64 {
    identities.add(1, ordering: .relaxed).newValue
  }

  /// Never retries: one attempt.
  ///
  /// ```swift
  /// $post.run(.retry(.none)) { try await api.post(1) }
  /// ```
  @inlinable
  public static var none: RetryPolicy { noRetries }

  /// The one policy ``none`` returns: every run and query with default options shares it, and so its identity.
  @usableFromInline static let noRetries = RetryPolicy(retries: 0)

  /// Retries `retries` times, waiting `delay` before each.
  ///
  /// ```swift
  /// $post.run(.retry(.constant(retries: 2, delay: .seconds(1)))) { try await api.post(1) }
  /// ```
  ///
  /// - Parameters:
  ///   - retries: How many times to try again.
  ///   - delay: The wait before each retry.
  /// - Returns: The policy.
  public static func constant(retries: Int, delay: Duration) -> RetryPolicy {
    RetryPolicy(retries: retries, backoff: { _ in delay })
  }

  /// Retries `retries` times, the wait growing from `initial` by `multiplier` per retry up to `maxDelay`, with up to
  /// `jitter` of each wait taken off at random so that many clients do not retry in step.
  ///
  /// ```swift
  /// $post.run(.retry(.exponential(retries: 3))) { try await api.post(1) }  // waits 200 ms, 400 ms, 800 ms
  /// ```
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
    exponential(
      retries: retries, initial: initial, multiplier: multiplier, maxDelay: maxDelay, jitter: jitter,
      random: { Double.random(in: 0..<1) })
  }

  /// ``exponential(retries:initial:multiplier:maxDelay:jitter:)`` with the jitter's random numbers (in `0..<1`)
  /// from `random`, so tests can pin them.
  static func exponential(
    retries: Int,
    initial: Duration,
    multiplier: Double,
    maxDelay: Duration,
    jitter: Double,
    random: @escaping @Sendable () -> Double
  ) -> RetryPolicy {
    RetryPolicy(
      retries: retries,
      backoff: { retry in
        exponentialDelay(
          beforeRetry: retry, initial: initial, multiplier: multiplier, maxDelay: maxDelay, jitter: jitter,
          random: jitter > 0 ? random() : 0)
      })
  }

  /// The exponential wait before retry number `retry` (from 1), given a random number in `0..<1` for the jitter.
  static func exponentialDelay(
    beforeRetry retry: Int,
    initial: Duration,
    multiplier: Double,
    maxDelay: Duration,
    jitter: Double,
    random: Double
  ) -> Duration {
    let growth = power(multiplier, max(0, retry - 1))
    let full = min(initial * growth, maxDelay)
    let removed = min(max(jitter, 0), 1) * min(max(random, 0), 1)
    return full * (1 - removed)
  }
}

/// `base` raised to `exponent`, without Foundation; stops growing past 1e12 (every wait is capped far below).
private func power(_ base: Double, _ exponent: Int) -> Double {
  var result = 1.0
  var remaining = exponent
  while remaining > 0 {
    result *= base
    remaining -= 1
    if result > 1e12 { break }
  }
  return result
}
