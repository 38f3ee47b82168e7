import Foundation

@testable import SharedState

/// The mutation queue of a simulated program, and what the app learned about its entries: which are queued, which
/// the queue says are written, which left (discarded or after a success) and whether that was written.
///
/// Each launch of the app has its own queue, online status, backoff clock and file (holding the bytes the previous
/// launch left), so that nothing of a killed launch reaches the next one but those bytes.
final class SimulationQueueHarness {
  typealias Edit = SimulatedQueueServer.Edit

  /// The wait before a failed entry's retry: two ticks.
  static let retryDelay = SimulationSetup.tick * 2
  /// The most attempts of an entry of `key`, after which its registration gives up: none for q0 (it never gives
  /// up), 1 for q1, 2 for q2.
  static func maxAttempts(key: Int) -> Int? { key % 3 == 0 ? nil : key % 3 }

  let server: SimulatedQueueServer
  let folder: URL
  /// The app's launch, from 1.
  var launch = 0
  /// The queue of the launch under way, or `nil` once it was killed.
  var queue: MutationQueue?
  var network = ManualOnlineStatus()
  var clock = ManualClock()
  var url: URL?
  /// The bytes the next launch restores its queue from.
  var bytes: Data?
  /// Whether the launch under way was killed (so that the relaunch neither flushes nor reads its file again).
  var isKilled = false
  var entryCount = 0
  var edits: [Int: Edit] = [:]
  var entries: [UUID: Int] = [:]
  /// The entries the app has queued, oldest first, as far as it knows.
  var live: [Int] = []
  /// The entries the queue's own API said were written (`isSaved`, or a flush that ended after they were queued).
  var acknowledged: Set<Int> = []
  /// The entries discarded, with the launch and step.
  var discarded: [Int: (launch: Int, step: Int)] = [:]
  /// The step of the flush that wrote each discard.
  var discardWritten: [Int: Int] = [:]
  /// The entries that gave up (seen in the queue's `failed`, and not discarded since), with the launch and step at
  /// which the app saw it: none may run after.
  var gaveUp: [Int: (launch: Int, step: Int)] = [:]
  /// The entries that left the queue after a success, and those whose leaving a flush wrote.
  var succeeded: Set<Int> = []
  var successWritten: Set<Int> = []
  /// The step at which the server last applied each entry's call.
  var answeredAt: [Int: Int] = [:]
  /// Whether each entry's optimistic change found a value to change (what `OptimisticCache.update` returned), the
  /// last time it was made (at its enqueue, or at a restore).
  let reached = Reached()
  /// A broken promise seen at a restore.
  var violation: String?

  init(server: SimulatedServer) {
    self.server = SimulatedQueueServer(server: server)
    folder = FileManager.default.temporaryDirectory.appendingPathComponent("simulation-queue-\(UUID().uuidString)")
  }

  /// The queues of killed launches: their writes under way still land in their files.
  var retired: [MutationQueue] = []

  /// Waits for the writes of every launch's queue, then removes their files.
  func removeFiles() async {
    for queue in retired { try? await queue.flush() }
    retired = []
    try? FileManager.default.removeItem(at: folder)
  }

  func id(of entry: Int) -> UUID? {
    entries.first { $0.value == entry }?.key
  }
}

/// Whether each queued entry's optimistic change found a value to change, as its optimistic code reports it.
final class Reached: Sendable {
  private let found = Lock<[Int: Bool]>([:])

  func set(_ entry: Int, _ value: Bool) { found.withLock { $0[entry] = value } }
  subscript(entry: Int) -> Bool? { found.withLock { $0[entry] } }
}
