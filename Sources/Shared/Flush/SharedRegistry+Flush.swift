extension SharedRegistry {
  /// Writes every change of this registry's values that waits for its save delay, now, and returns once each is
  /// in its store.
  ///
  /// Call it where the program ends, or before a moment that must not lose a change (a suspend, a restart):
  ///
  /// ```swift
  /// func endOfProgram() async {
  ///   do {
  ///     try await SharedRegistry.current.flush()
  ///   } catch {
  ///     print("not everything was saved: \(error)")
  ///   }
  /// }
  /// ```
  ///
  /// Every value whose key saves is flushed as ``Shared/save()`` flushes one: a change waiting for its delay is
  /// saved at once, a save already under way is waited for, and a change whose last save failed is saved again.
  /// A value with nothing waiting costs nothing, and a registry with nothing waiting returns at once. Values are
  /// flushed concurrently, including values whose holders are gone but whose save still waits. Changes made while
  /// the flush runs do not keep it waiting.
  ///
  /// A normal exit (returning from the top-level code, or `exit`) writes what waits in files without this call;
  /// see <doc:StoringValues#Nothing-lost-at-exit>. This call is what a program awaits for a key whose save can only
  /// be made asynchronously (a store of its own), and to learn whether every save succeeded.
  ///
  /// - Throws: ``SharedFlushError``, naming each value whose save failed (the others are saved), or
  ///   `CancellationError` when the calling task is cancelled (the saves go on).
  public func flush() async throws {
    let participants = flushParticipants.current
    guard !participants.isEmpty else { return }
    let failures = await withTaskGroup(of: (Int, (any Error)?).self) { group in
      for (index, participant) in participants.enumerated() {
        group.addTask {
          do {
            try await participant.flush()
            return (index, nil)
          } catch {
            return (index, error)
          }
        }
      }
      var failures: [(index: Int, error: any Error)] = []
      for await (index, error) in group {
        if let error { failures.append((index, error)) }
      }
      return failures.sorted { $0.index < $1.index }
    }
    guard !failures.isEmpty else { return }
    if Task.isCancelled && failures.contains(where: { $0.error is CancellationError }) { throw CancellationError() }
    throw SharedFlushError(
      failures: failures.map { .init(key: participants[$0.index].flushDescription, error: $0.error) })
  }

  /// Lets the library handle SIGTERM and SIGINT: at either, every value's waiting change is written, then the
  /// process exits with status 128 + the signal's number (143 for SIGTERM, 130 for SIGINT), as the signal would
  /// have ended it.
  ///
  /// Call it once, early, in a program that does not handle these signals itself (a command-line tool, a server
  /// whose supervisor stops it with SIGTERM):
  ///
  /// ```swift
  /// func startServer() {
  ///   SharedRegistry.flushOnTermination()
  ///   // ...
  /// }
  /// ```
  ///
  /// Without it, the signals keep their usual effect (the process ends at once, and changes still waiting for their
  /// save delay are lost); a program that handles the signals itself calls ``flush()`` from its handler instead.
  /// The handler is in place when the call returns: a signal that arrives right after it is handled. The handler
  /// runs on a dispatch queue of its own, so it works while the main thread and the cooperative pool are busy.
  /// It writes every registry's values whose store can be written synchronously (files); SIGKILL cannot
  /// be handled, and loses at most one save delay of changes. Calling it again does nothing.
  public static func flushOnTermination() {
    ExitFlush.handleTerminationSignals()
  }
}
