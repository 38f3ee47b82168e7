import Foundation

/// One queued mutation, as the queue keeps it.
struct MutationQueueEntry: Sendable, Equatable {
  /// Stable across restarts: the mutation's idempotency key.
  let id: UUID
  /// The mutation's key, which finds its registration.
  let key: QueryKey
  /// The arguments, encoded.
  let arguments: Data
  /// When the program queued it.
  let enqueuedAt: Date
  /// The revision of the queue's contents that first held it; a write of it or a later one holds the entry. An
  /// entry read back from the file has revision 0.
  var revision: UInt64 = 0
  /// How many runs started in this process.
  var attempts = 0
  /// How many of those runs failed.
  var failures = 0
  /// The error of the latest failed run.
  var lastError: HashableError?
  /// Why it cannot run yet (no registration, arguments that no longer decode), or `nil`.
  var blocker: MutationQueueError?

  init(id: UUID, key: QueryKey, arguments: Data, enqueuedAt: Date, blocker: MutationQueueError? = nil) {
    self.id = id
    self.key = key
    self.arguments = arguments
    self.enqueuedAt = enqueuedAt
    self.blocker = blocker
  }
}
