import Foundation

extension MutationQueue {
  /// What the queue does after an event, with what the machine's effects need from the queue's state, taken under
  /// the lock.
  enum Act {
    case write(revision: UInt64, entries: [MutationQueueEntry], failed: [MutationQueueEntry])
    case start(MutationQueueEntry, QueuedMutationRegistration?, OptimisticChangeSet?)
    case backoff(id: UUID, failures: Int)
    case stopBackoff(Task<Void, Never>?)
    case resumeFlushes([CheckedContinuation<Void, any Error>], error: HashableError?)
    case undo(OptimisticChangeSet?)
  }

  /// Runs `event` under the lock (the machine decides), then publishes the new state and acts on the effects after
  /// it; returns what `event` returns beside its effects.
  @discardableResult
  func handle<Extra>(_ event: @Sendable (inout State) -> ([Machine.Effect], Extra)) -> Extra {
    let (acts, shownState, extra) = locked.withLock { state -> ([Act], MutationQueueState, Extra) in
      let (effects, extra) = event(&state)
      let acts = effects.map { Self.resolve($0, in: &state) }
      state.publication += 1
      return (acts, Self.shownState(of: state), extra)
    }
    publish(shownState)
    for act in acts { perform(act) }
    return extra
  }

  /// Runs `event` under the lock, then publishes and acts, as ``handle(_:)-(((inout State)->([Machine.Effect],Extra)))``.
  func handle(_ event: @Sendable (inout State) -> [Machine.Effect]) {
    handle { state -> ([Machine.Effect], Void) in (event(&state), ()) }
  }

  /// An effect, with what it needs from the state.
  private static func resolve(_ effect: Machine.Effect, in state: inout State) -> Act {
    switch effect {
    case .write(let revision, let entries, let failed):
      return .write(revision: revision, entries: entries, failed: failed)
    case .start(let entry):
      return .start(entry, registration(for: entry.key, in: state.registrations), state.changes[entry.id])
    case .backoff(let id, let failures):
      return .backoff(id: id, failures: failures)
    case .stopBackoff(let id):
      return .stopBackoff(state.backoffs.removeValue(forKey: id)?.task)
    case .resumeFlushes(let waiters, let error):
      return .resumeFlushes(waiters, error: error)
    case .undo(let id):
      return .undo(state.changes.removeValue(forKey: id))
    }
  }

  /// The state ``MutationQueue/state`` shows, numbered after the latest.
  private static func shownState(of state: borrowing State) -> MutationQueueState {
    let machine = state.machine
    var shown = MutationQueueState(isOnline: machine.isOnline)
    shown.isRestored = machine.phase == .ready
    shown.saveError = machine.saveError
    shown.publication = state.publication
    shown.entries = machine.entries.map { entry in
      let status: QueuedMutation.Status
      if let blocker = entry.blocker {
        status = .blocked(blocker)
      } else if machine.head == .running(entry.id) {
        status = .running
      } else if case .retrying(entry.id, _) = machine.head {
        status = .waitingToRetry
      } else {
        status = .waiting
      }
      return shownEntry(entry, status: status, in: machine)
    }
    shown.failed = machine.failed.map { shownEntry($0, status: .failed, in: machine) }
    return shown
  }

  private static func shownEntry(
    _ entry: MutationQueueEntry,
    status: QueuedMutation.Status,
    in machine: borrowing Machine
  ) -> QueuedMutation {
    // A claimed run that has not started yet is not counted: the attempts shown are the ones that started.
    QueuedMutation(
      id: entry.id, key: entry.key, enqueuedAt: entry.enqueuedAt, status: status,
      attempts: entry.attempts - (entry.isClaimed ? 1 : 0), failureCount: entry.failures,
      lastError: entry.lastError, isSaved: machine.isSaved(entry), encodedArguments: entry.arguments)
  }

  /// Shows `newState`, unless a newer one is shown already (two events may publish in the other order).
  private func publish(_ newState: MutationQueueState) {
    shown.withLockReleasingReplaced { shown in
      if newState.publication > shown.publication { shown = newState }
    }
  }

  private func perform(_ act: Act) {
    switch act {
    case .write(let revision, let entries, let failed):
      Task.detached { [self] in
        let error = await write(entries, failed: failed, revision: revision)
        handle { $0.machine.writeEnded(revision: revision, error: error) }
      }
    case .start(let entry, let registration, let changes):
      start(entry, registration: registration, changes: changes)
    case .backoff(let id, let failures):
      let delay = retryDelay(failures)
      let task = Task.detached { [weak self, clock] in
        do { try await clock.sleep(for: delay, waitingFor: .queueRetry) } catch { return }
        self?.handle { state in
          if state.backoffs[id]?.failures == failures { state.backoffs[id] = nil }
          return state.machine.backoffEnded(id, failures: failures)
        }
      }
      let stale = locked.withLock { state -> Task<Void, Never>? in
        // The backoff may have been stopped before its task was kept: then it is not needed.
        guard state.machine.head == .retrying(id, failures: failures) else { return task }
        state.backoffs[id] = (failures, task)
        return nil
      }
      stale?.cancel()
    case .stopBackoff(let task):
      task?.cancel()
    case .resumeFlushes(let waiters, let error):
      for waiter in waiters {
        if let error { waiter.resume(throwing: error.error) } else { waiter.resume() }
      }
    case .undo(let changes):
      changes?.undo()
    }
  }

  /// Writes `entries` and `failed`, the queue's contents at `revision`, to the file, durably; returns the error, if
  /// it failed. The file store skips a revision older than one it holds (the exit's write may land first).
  private func write(
    _ entries: [MutationQueueEntry],
    failed: [MutationQueueEntry],
    revision: UInt64
  ) async -> HashableError? {
    do {
      let data: Data
      do {
        data = try MutationQueueFile.encode(entries, failed: failed)
      } catch {
        throw FileStorageError.unencodable(url: url, reason: "\(error)")
      }
      try await file.write(data, for: self, sequence: revision)
      return nil
    } catch {
      return HashableError(error)
    }
  }

  /// Runs `entry` once, in the queue's registry; reports how it went.
  private func start(
    _ entry: MutationQueueEntry,
    registration: QueuedMutationRegistration?,
    changes: OptimisticChangeSet?
  ) {
    let context = MutationQueueContext(
      id: entry.id, key: entry.key, attempt: entry.attempts, enqueuedAt: entry.enqueuedAt)
    let registry = self.registry
    Task.detached { [self] in
      do {
        guard let registration else { throw MutationQueueError.notRegistered(key: entry.key) }
        try await SharedRegistry.$current.withValue(registry) {
          // The changes are kept as the run succeeds, before the queries it invalidates refetch.
          try await registration.run(entry.arguments, context, { changes?.keep() })
        }
      } catch {
        // The program's code: asked outside the lock.
        let isPermanent = policy(of: registration).isPermanent(error)
        handle { $0.machine.failed(entry.id, error: HashableError(error), isPermanent: isPermanent) }
        return
      }
      let kept = handle { state -> ([Machine.Effect], OptimisticChangeSet?) in
        let changes = state.changes.removeValue(forKey: entry.id)
        return (state.machine.succeeded(entry.id), changes)
      }
      // Kept already, unless the run ended without succeeding through its mutation state; only the first keep acts.
      kept?.keep()
    }
  }
}
