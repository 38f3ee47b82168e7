public import Foundation

/// What a queued mutation's function knows about the entry it runs: its stable identifier, to send as an
/// idempotency key, its key, and the attempt.
///
/// ```swift
/// func registerAddTodo(on queue: MutationQueue, api: TodoAPI) {
///   queue.register(.mutation("add-todo"), invalidates: [["todos"]]) { (title: String, context) in
///     try await api.addTodo(title, idempotencyKey: context.idempotencyKey)
///   }
/// }
/// ```
///
/// A queued mutation runs at least once: a program killed while it runs, after the server received it but before
/// the queue heard back, runs it again after the restart, with the same ``id``. A server that applies each
/// idempotency key once makes that exactly once.
public struct MutationQueueContext: Sendable, Hashable {
  /// The entry's identifier: made when the program queued the mutation, and the same in every attempt and after
  /// every restart.
  public let id: UUID
  /// The key the mutation was queued with (a registration may cover a prefix of it).
  public let key: QueryKey
  /// The attempt, from 1, counted across restarts (the queue's file keeps the count): a retry after a failure is
  /// attempt 2, and so is the run after a restart that interrupted the first. A retry of an entry that gave up
  /// (``MutationQueue/retry(_:)``) counts from 1 again.
  public let attempt: Int
  /// When the program queued the mutation.
  public let enqueuedAt: Date

  /// A context of your own, to call a registered mutation function directly (in a test, say).
  ///
  /// ```swift
  /// let context = MutationQueueContext(id: UUID(), key: ["add-todo"], attempt: 1, enqueuedAt: Date())
  /// ```
  ///
  /// - Parameters:
  ///   - id: The entry's identifier.
  ///   - key: The mutation's key.
  ///   - attempt: The attempt, from 1.
  ///   - enqueuedAt: When the mutation was queued.
  public init(id: UUID, key: QueryKey, attempt: Int, enqueuedAt: Date) {
    precondition(attempt >= 1, "An attempt is numbered from 1, not \(attempt)")
    self.id = id
    self.key = key
    self.attempt = attempt
    self.enqueuedAt = enqueuedAt
  }

  /// ``id`` as text, for an `Idempotency-Key` header or a column of the server's.
  public var idempotencyKey: String { id.uuidString }
}
