/// When a queued mutation stops being retried and gives up: after a number of attempts, or at once on an error the
/// server will answer the same way every time (an HTTP 4xx, say).
///
/// ```swift
/// struct HTTPError: Error {
///   var status: Int
/// }
///
/// let policy = QueuedMutationRetryPolicy(maxAttempts: 5) { error in
///   guard let status = (error as? HTTPError)?.status else { return false }
///   return (400..<500).contains(status) && status != 408 && status != 429
/// }
/// ```
///
/// Give it to ``MutationQueue/register(_:invalidates:awaitsRefetches:retry:_:)`` for one mutation, or to the
/// queue (``MutationQueue/init(file:network:retryDelay:retry:clock:)``) for every mutation registered without one
/// of its own. By default (``forever``) an entry is retried until it succeeds or the program discards it.
///
/// An entry that gives up leaves the queue's run order: the entries behind it go on, its optimistic changes are
/// undone, and it shows in ``MutationQueueState/failed`` with its error (``QueuedMutation/lastError``), in this
/// run and after a restart, until the program retries it (``MutationQueue/retry(_:)``) or discards it
/// (``MutationQueue/discard(_:)``).
///
/// Attempts are counted across restarts: each is written to the queue's file before it starts. An entry never
/// starts more than `maxAttempts + 1` times, the extra one only for an attempt whose end was never heard (the
/// program was killed while it ran) or whose failure came while the device was offline (most likely the network's
/// doing, so it does not use up the last attempt).
public struct QueuedMutationRetryPolicy: Sendable {
  /// The most attempts an entry makes before it gives up, from 1; `nil` for no limit.
  public var maxAttempts: Int?
  /// Whether an error is permanent: the entry gives up at once, whatever attempts remain. Called with the error a
  /// run threw, outside the queue's locks.
  public var isPermanent: @Sendable (_ error: any Error) -> Bool

  /// A policy that gives up after `maxAttempts` attempts, or at once on an error `isPermanent` marks.
  ///
  /// ```swift
  /// let threeTries = QueuedMutationRetryPolicy(maxAttempts: 3)
  /// let refusedForGood = QueuedMutationRetryPolicy { error in (error as? HTTPError)?.status == 422 }
  /// ```
  ///
  /// - Parameters:
  ///   - maxAttempts: The most attempts, 1 or more; `nil` (the default) for no limit.
  ///   - isPermanent: Whether an error is one the server will answer the same way every time; no error is, by
  ///     default.
  public init(
    maxAttempts: Int? = nil,
    isPermanent: @escaping @Sendable (_ error: any Error) -> Bool = { _ in false }
  ) {
    precondition(maxAttempts.map { $0 >= 1 } ?? true, "An entry makes at least 1 attempt, not \(maxAttempts ?? 0)")
    self.maxAttempts = maxAttempts
    self.isPermanent = isPermanent
  }

  /// Retries until the entry succeeds or the program discards it: the queue's behaviour by default.
  ///
  /// ```swift
  /// let queue = MutationQueue(file: url, network: network, retry: .forever)
  /// ```
  public static var forever: QueuedMutationRetryPolicy { QueuedMutationRetryPolicy() }
}
