import Foundation

extension MutationQueue: FlushParticipant {
  var flushDescription: String { "the mutation queue at \(url.path)" }

  /// Writes the queue's contents, if a change to them is not yet written, on the exiting thread.
  ///
  /// It takes the contents and their revision under the queue's lock (no user code runs under it), releases it,
  /// and writes with blocking system calls through the file store's ordered write: a write of an older revision
  /// still under way on the pool lands before it or is skipped after it, so the file ends holding the newest
  /// contents. Nothing is written before ``restore()``: the file's entries are never overwritten unread.
  func flushBeforeExit() throws {
    let pending = locked.withLock {
      state -> (revision: UInt64, entries: [MutationQueueEntry], failed: [MutationQueueEntry])? in
      let machine = state.machine
      guard machine.phase == .ready, machine.revision > machine.durableRevision else { return nil }
      return (machine.revision, machine.entries, machine.failed)
    }
    guard let pending else { return }
    let data: Data
    do {
      data = try MutationQueueFile.encode(pending.entries, failed: pending.failed)
    } catch {
      throw FileStorageError.unencodable(url: url, reason: "\(error)")
    }
    try file.writeNow(data, for: self, sequence: pending.revision)
  }
}
