import Foundation

extension MutationQueue {
  /// Reads back the entries earlier runs of the program left in the queue's file: each finds its mutation function
  /// by key, shows its optimistic changes again, and runs, before the entries queued since, once the device is
  /// online.
  ///
  /// ```swift
  /// func launch(queue: MutationQueue, api: TodoAPI) {
  ///   queue.register(.mutation("add-todo"), invalidates: [["todos"]]) { (title: String, context) in
  ///     try await api.addTodo(title, idempotencyKey: context.idempotencyKey)
  ///   }
  ///   do {
  ///     let restored = try queue.restore()
  ///     print(restored.count, "changes from the last run")
  ///   } catch {
  ///     print(error)  // the file was unreadable: moved aside, and the queue started empty
  ///   }
  /// }
  /// ```
  ///
  /// Entries that had given up (``MutationQueueState/failed``) come back given up, with their errors' descriptions,
  /// for the program to retry or discard; every entry keeps the count of its attempts.
  ///
  /// Call it once at launch, after registering every mutation
  /// (``register(_:invalidates:awaitsRefetches:retry:_:)``), before or after ``QueryStore/persistCache(_:)`` and the
  /// holders: an entry's optimistic change to a query the store keeps nothing of yet waits for it, and shows once a
  /// holder makes it or the persisted cache restores it.
  /// Until then nothing runs and nothing is written; entries queued meanwhile run after the restored ones. An entry
  /// whose mutation is not registered, or whose arguments no longer decode, waits with the ones behind it (its
  /// status says why) until it is registered or discarded. Later calls read nothing and return the entries.
  ///
  ///
  /// - Returns: The queue's entries, oldest first.
  /// One process at a time uses a queue's file: ``restore()`` claims it, and the queue holds it while it exists (or
  /// until the process ends, however it ends). A queue of another process on the same file is refused: its
  /// ``restore()`` throws ``MutationQueueError/fileInUse(url:reason:)``, and it neither reads nor writes the file
  /// (entries queued in it wait in memory, unsaved) until a later ``restore()`` finds the file free. The claim is an
  /// exclusive lock on a file beside it, `.NAME.lock`, which stays. Within one process the claim is shared: make one
  /// queue per file. Once the process claims the file, the temporary files a killed write of it left
  /// (`.NAME.UUID.tmp`) are removed.
  ///
  /// - Throws: ``MutationQueueError/unreadableFile(url:movedTo:reason:)`` when the file could not be read or holds
  ///   no queue this version reads: it was moved aside (so nothing is lost, and it is not read again), and the
  ///   queue works, started empty. ``MutationQueueError/fileInUse(url:reason:)`` when a queue of another process
  ///   uses the file: nothing was read, and the queue stays paused until a later call succeeds.
  @discardableResult
  public func restore() throws(MutationQueueError) -> [QueuedMutation] {
    let isFirst = locked.withLock { state -> Bool in
      defer { state.restoreCalled = true }
      return !state.restoreCalled
    }
    guard isFirst else { return entries }
    do {
      let claim = try FileClaim.take(url)
      locked.withLock { $0.claim = claim }
    } catch {
      // In use elsewhere: nothing is read or written, and a later call may try again.
      locked.withLock { $0.restoreCalled = false }
      throw .fileInUse(url: url, reason: error.description)
    }
    var problem: MutationQueueError?
    var stored: (entries: [MutationQueueEntry], failed: [MutationQueueEntry]) = ([], [])
    do {
      if let data = try readFile() { stored = try MutationQueueFile.decode(data) }
    } catch {
      problem = .unreadableFile(url: url, movedTo: moveAside(), reason: "\(error)")
    }
    let registrations = locked.withLock { $0.registrations }
    var restored: [MutationQueueEntry] = []
    var changes: [UUID: OptimisticChangeSet] = [:]
    for var entry in stored.entries {
      if let registration = Self.registration(for: entry.key, in: registrations) {
        // The program's code: outside the lock.
        let (made, blocker) = prepare(entry.arguments, key: entry.key, with: registration)
        entry.blocker = blocker
        entry.maxAttempts = policy(of: registration).maxAttempts
        changes[entry.id] = made
      } else {
        entry.blocker = .notRegistered(key: entry.key)
      }
      restored.append(entry)
    }
    // The entries that gave up had their optimistic changes undone: they are not made again until a retry.
    handle { [restored, changes, failed = stored.failed] state in
      state.changes.merge(changes) { _, restored in restored }
      return state.machine.restored(restored, failed: failed)
    }
    // A mutation registered while the file was read.
    unblockRegistered()
    if let problem { throw problem }
    return entries
  }

  /// The file's contents, or `nil` when there is no file.
  private func readFile() throws -> Data? {
    guard FileManager.default.fileExists(atPath: url.path) else { return nil }
    return try Data(contentsOf: url)
  }

  /// Moves the unreadable file aside, beside it; returns where, or `nil` if it could not be moved.
  private func moveAside() -> URL? {
    let stamp = Int(Date().timeIntervalSince1970)
    let aside = url.deletingLastPathComponent()
      .appendingPathComponent(".\(url.lastPathComponent).unreadable-\(stamp)-\(UUID().uuidString.prefix(8))")
    do {
      try FileManager.default.moveItem(at: url, to: aside)
      return aside
    } catch {
      return nil
    }
  }
}
