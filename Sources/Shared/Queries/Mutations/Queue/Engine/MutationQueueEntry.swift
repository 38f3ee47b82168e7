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
  /// How many runs were claimed: each is counted, and the count written to the file, before the run starts, so the
  /// file never counts fewer runs than started (a claim a kill caught before its run started counts too). Read
  /// back from the file after a restart.
  var attempts = 0
  /// How many runs failed, read back from the file after a restart; fewer than ``attempts`` when the latest claimed
  /// run has not ended (or a kill ended it).
  var failures = 0
  /// The error of the latest failed run (after a restart, one that gives its description).
  var lastError: HashableError?
  /// Why it cannot run yet (no registration, arguments that no longer decode), or `nil`.
  var blocker: MutationQueueError?
  /// The most runs its registration allows (``QueuedMutationRetryPolicy/maxAttempts``), or `nil` for no limit.
  var maxAttempts: Int?
  /// Whether ``attempts`` counts a run claimed, and written, that has not started: the queue went offline while the
  /// claim was written. The run starts without a claim of its own when the queue goes on.
  var isClaimed = false

  init(id: UUID, key: QueryKey, arguments: Data, enqueuedAt: Date, blocker: MutationQueueError? = nil) {
    self.id = id
    self.key = key
    self.arguments = arguments
    self.enqueuedAt = enqueuedAt
    self.blocker = blocker
  }
}
