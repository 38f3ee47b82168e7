public import Foundation

/// One mutation in a ``MutationQueue``, as the queue's ``MutationQueue/state`` shows it: what it is, and whether it
/// waits, runs, waits to retry or gave up.
///
/// ```swift
/// func pendingList(_ queue: MutationQueue) -> [String] {
///   queue.state.wrappedValue.entries.map { entry in
///     let title = (try? entry.arguments(as: String.self)) ?? "?"
///     switch entry.status {
///     case .waiting: return "\(title): waiting"
///     case .running: return "\(title): sending"
///     case .waitingToRetry: return "\(title): failed (\(entry.lastError?.description ?? "")), will retry"
///     case .blocked(let reason): return "\(title): \(reason)"
///     case .failed: return "\(title): failed for good (\(entry.lastError?.description ?? ""))"
///     }
///   }
/// }
/// ```
public struct QueuedMutation: Sendable, Hashable, Identifiable {
  /// The entry's identifier, the same after every restart: what its mutation function gets as
  /// ``MutationQueueContext/id``.
  public let id: UUID
  /// The key the mutation was queued with.
  public let key: QueryKey
  /// When the program queued it.
  public let enqueuedAt: Date
  /// Whether it waits, runs, waits to retry, or cannot run.
  public let status: Status
  /// How many runs started, across restarts (a run a kill interrupted counts). A retry of an entry that gave up
  /// (``MutationQueue/retry(_:)``) counts from 0 again.
  public let attempts: Int
  /// How many of those runs failed (a run a kill interrupted does not count).
  public let failureCount: Int
  /// The error of the latest failed run, or `nil`; for an entry that gave up, why. After a restart it is the
  /// error's description (an error whose `description` is the one the earlier run wrote), and for an entry that
  /// gave up because a kill interrupted its last attempt, ``MutationQueueError/attemptsInterrupted(key:attempts:)``.
  public let lastError: HashableError?
  /// Whether the queue's file holds it: once saved, it survives the program being killed.
  public let isSaved: Bool
  /// The arguments, as written to the file.
  let encodedArguments: Data

  /// What a queued mutation is doing.
  public enum Status: Sendable, Hashable {
    /// It waits: for the network, for the queue to be restored, for its file write, or for the entries before it.
    case waiting
    /// It runs now.
    case running
    /// Its latest run failed; it runs again after a backoff (or as soon as the network comes back), before any
    /// entry behind it.
    case waitingToRetry
    /// It cannot run, and the entries behind it wait, until the reason is fixed or the program discards it
    /// (``MutationQueue/discard(_:)``).
    case blocked(MutationQueueError)
    /// It gave up, as its ``QueuedMutationRetryPolicy`` says: it is in ``MutationQueueState/failed``, out of the run
    /// order, with its error in ``QueuedMutation/lastError``, until the program retries it
    /// (``MutationQueue/retry(_:)``) or discards it.
    case failed
  }

  /// The arguments the mutation was queued with, decoded as `type`: to show what a pending change is.
  ///
  /// ```swift
  /// let title = try entry.arguments(as: String.self)
  /// ```
  ///
  /// - Parameter type: The mutation's argument type.
  /// - Returns: The arguments.
  /// - Throws: A `DecodingError` if they are not of that type.
  public func arguments<Arguments: Decodable>(as type: Arguments.Type) throws -> Arguments {
    try MutationQueueFile.decodeArguments(type, from: encodedArguments)
  }
}
