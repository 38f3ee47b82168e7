/// What a ``MutationQueue`` holds and whether it runs: for a screen that shows pending changes, or "waiting for the
/// network".
///
/// ```swift
/// func banner(_ state: MutationQueueState) -> String? {
///   guard !state.entries.isEmpty else { return nil }
///   if state.isPaused { return "\(state.entries.count) changes wait for the network" }
///   return "Sending \(state.entries.count) changes…"
/// }
/// ```
///
/// Read it through ``MutationQueue/state``, which every change of the queue updates (observe it, iterate its
/// values, or let SwiftUI track it).
public struct MutationQueueState: Sendable, Equatable {
  /// The queued mutations, oldest first: the first is the one that runs next (or runs now).
  public internal(set) var entries: [QueuedMutation] = []
  /// The mutations that gave up (their ``QueuedMutationRetryPolicy`` said so), in the order they did: out of the
  /// run order, their optimistic changes undone, each with its error (``QueuedMutation/lastError``) and status
  /// ``QueuedMutation/Status/failed``. Each stays, after a restart too, until the program retries it
  /// (``MutationQueue/retry(_:)``) or discards it (``MutationQueue/discard(_:)``).
  ///
  /// ```swift
  /// func failedList(_ state: MutationQueueState) -> [String] {
  ///   state.failed.map { "\($0.key): \($0.lastError?.description ?? "")" }
  /// }
  /// ```
  public internal(set) var failed: [QueuedMutation] = []
  /// Whether the queue's online-status source says the device is online.
  public internal(set) var isOnline: Bool
  /// Whether ``MutationQueue/restore()`` read back the entries of earlier runs; nothing runs before it did.
  public internal(set) var isRestored = false
  /// The error of the latest write of the queue's file, until a write succeeds. Entries still run meanwhile; the
  /// ones queued since the last successful write would be lost if the program were killed.
  public internal(set) var saveError: HashableError?
  /// Orders the published states: a state is shown only if it is newer than the one shown.
  var publication: UInt64 = 0

  init(isOnline: Bool) {
    self.isOnline = isOnline
  }

  /// Whether the queue holds its entries back now: it is offline, or not restored yet. Running entries finish;
  /// nothing new starts until the queue resumes.
  public var isPaused: Bool { !isOnline || !isRestored }

  /// Whether both show the same queue (their publication order aside).
  ///
  /// - Parameters:
  ///   - lhs: A state.
  ///   - rhs: Another state.
  /// - Returns: `true` when the entries, the failed entries, the online status, the restore and the save error are
  ///   the same.
  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.entries == rhs.entries && lhs.failed == rhs.failed && lhs.isOnline == rhs.isOnline
      && lhs.isRestored == rhs.isRestored
      && lhs.saveError == rhs.saveError
  }
}
