import Foundation

/// Runs a query's fetches: marks the value fetching, runs the attempts with their retries, writes how they ended as
/// the record decides, and tells the record; every step that needs the record's decision takes the store's lock
/// (the steps below, in `QueryStore`), and no step holds it while the program's code runs.
@usableFromInline
enum QueryFetchExecutor {
  /// Performs the unit of work `id` of `record`: fetches with retries, writes the status and the value, and tells
  /// the record how it ended.
  ///
  /// The store is held weakly and only for each step (the steps after the last attempt, none of which suspends, share
  /// one reference): a fetch that hangs keeps neither the store nor its other queries alive (its own record, and the
  /// value that record keeps, stay until it ends). The record is reached directly, not looked up by its key: one that
  /// left the store answers each step as a removed query (its machine runs no work). The value is borrowed from the
  /// record for each step only (an attempt, a write), never across a retry's wait, so that the record can tell at a
  /// retry point whether anyone else still holds it.
  static func execute<State: OperationTrackable>(
    _ id: QueryRecordMachine.WorkID,
    of record: QueryRecord<State>,
    fetch: QueryFetcher<State>,
    work: QueryWork,
    before: OperationStatus?,
    store: WeakQueryStore,
    network: NetworkRun? = nil,
    writer: QueryValueWriter<State>? = nil,
    measurement: (any WorkMeasurement)? = nil
  ) async {
    let result: QueryWork.Outcome
    let outcome: QueryRecordMachine.Outcome
    let effect: QueryRecordEffect
    var instruments: FetchInstruments?  // Set when a fetch ran: its watchers hear how it ended.
    let started: OperationStatus?
    if let before {
      started = before
    } else {
      guard let shared = store.store?.valueForStep(of: record) else {
        work.finish(.failure(CancellationError()))
        return
      }
      // Cancelled as its turn came: it neither marks the value nor fetches. The value may still show the fetching
      // the work before it handed over; the record ends that when nothing follows (`QueryRecordMachine.finished`).
      if Task.isCancelled {
        started = nil
      } else if let network {
        started = markPending(shared, fetching: work.pages, network: network)
      } else {
        started = markPending(shared, fetching: work.pages)
      }
    }
    if let started {
      instruments = store.store.map {
        FetchInstruments(started: record.key, meta: record.definition.options.meta, services: $0.services)
      }
      // Values the fetcher yields show while its fetch runs: the gate closes, under the value's lock, as the
      // fetch's own result is written, so no yielded value lands after it. A fetcher with no context and no
      // modifier around it cannot yield: it needs no gate.
      let options = record.definition.options.operation
      let gate = fetch.mayYield || !options.modifiers.isEmpty ? YieldGate() : nil
      let attempts = await attempt(
        id, of: record, fetch: fetch, options: options, network: network, gate: gate, store: store,
        measurement: measurement)
      // Nothing from here on suspends: one strong reference to the store serves every step (a reference taken and
      // dropped per step is two atomic writes each, on a count the threads making holders share).
      let strong = store.store
      (result, outcome) = apply(
        attempts, id, of: record, work: work, before: started, gate: gate, store: strong, writer: writer)
      instruments?.written()
      if case .applied = outcome { strong?.persistedValueChanged(record.key) }
      effect = strong?.finished(id, of: record, outcome: outcome) ?? .none
    } else {
      (result, outcome) = (.failure(CancellationError()), .cancelled)
      effect = store.store?.finished(id, of: record, outcome: outcome) ?? .none
    }
    instruments?.settled(result)
    work.finish(result)
    effect()
    // Last, outside every lock: the callers and the work that follows do not wait for the hooks.
    instruments?.ended(result)
  }

  /// Runs the attempts of the fetch of `id` of `record`, with its retries.
  private static func attempt<State: OperationTrackable>(
    _ id: QueryRecordMachine.WorkID,
    of record: QueryRecord<State>,
    fetch: QueryFetcher<State>,
    options: OperationOptions,
    network: NetworkRun?,
    gate: YieldGate?,
    store: WeakQueryStore,
    measurement: (any WorkMeasurement)?
  ) async -> RunOutcome<State.Success> {
    await AttemptLoop.run(
      .contextual { context in
        // Borrowed for this attempt only: released before the retry point asks whether anyone else holds it.
        guard let shared = store.store?.valueForStep(of: record) else { throw CancellationError() }
        guard let measurement else { return try await fetch(shared, context) }
        return try await measurement.attempt(context.attempt) { try await fetch(shared, context) }
      },
      options: options,
      network: network,
      yield: gate.map { gate in
        { value, attempt in
          guard gate.isOpen, attempt.isOpen, let shared = store.store?.valueForStep(of: record) else { return }
          let value = sharedValue(value, with: shared, sharing: record.definition.options.structuralSharing)
          QueryFetchExecutor.writeData(into: shared) { state in
            guard gate.isOpen, attempt.isOpen else { return }
            state.applySuccess(value)
            state.operation.noteChange()
          }
        }
      },
      onFailure: { error, failureCount in
        store.store?.valueForStep(of: record)?.withLockUnannounced { value in
          value.operation.noteFailure(error, failureCount: failureCount)
        }
      },
      mayRetry: {
        // A query nobody holds and no caller awaits stops retrying: it ends as cancelled.
        store.store?.retryPoint(id, of: record) == .retry
      },
      onRetry: { attempt in
        store.store?.valueForStep(of: record)?.withLockUnannounced { value in value.operation.retry(attempt) }
      })
  }

  /// Writes how the attempts of the fetch of `id` (the unit of work `work`) of `record` ended, as its record decides
  /// (`store` is `nil` once the store went away: the result is then dropped), and closes its gate. A write that the
  /// record's removal detached (``QueryWork/detach()``) is dropped.
  private static func apply<State: OperationTrackable>(
    _ attempts: RunOutcome<State.Success>,
    _ id: QueryRecordMachine.WorkID,
    of record: QueryRecord<State>,
    work: QueryWork,
    before: OperationStatus,
    gate: YieldGate?,
    store: QueryStore?,
    writer: QueryValueWriter<State>?
  ) -> (QueryWork.Outcome, QueryRecordMachine.Outcome) {
    switch attempts {
    case .success(let value):
      // Fresh from this moment: read before the value shows, so no reader sees it stale.
      let now = record.stopwatch.elapsed()
      let returned = store?.fetchReturned(id, of: record)
      guard case .apply(let keepFetching) = returned?.action, let shared = returned?.value else {
        gate?.close()
        return (.success(value), .cancelled)
      }
      let sharing = record.definition.options.structuralSharing
      // A holder's fetch writes through the same code, specialized where the holder was made.
      if let writer {
        writer.showSuccess(shared, value, sharing, keepFetching, gate, work)
      } else {
        showSuccess(value, in: shared, sharing: sharing, keepFetching: keepFetching, closing: gate, of: work)
      }
      // The query's rule, if any, is the app's code: run here, outside the lock.
      return (.success(value), .applied(at: record.freshnessTime(of: value, fetchedAt: now)))
    case .cancelled:
      let (action, shared) = store?.fetchStopped(id, of: record, cancelled: true) ?? (.discard, nil)
      shared?.withLockReleasingReplaced { state in
        gate?.close()
        // With work following at once, a first load stays pending and fetching.
        if action == .apply(keepPending: true) || work.isDetached { return }
        if state.operation.status == .pending { state.operation.restore(before) }
        state.operation.endFetch()
      }
      return (.failure(CancellationError()), .cancelled)
    case .failure(let error):
      let (action, shared) = store?.fetchStopped(id, of: record, cancelled: false) ?? (.discard, nil)
      shared?.withLockReleasingReplaced { state in
        gate?.close()
        guard !work.isDetached else { return }  // The record was removed meanwhile: see `showSuccess`.
        Shared<State>.show(attempts, in: &state)
        if action == .apply(keepPending: true) { state.operation.isFetching = true }
      }
      return (.failure(error), .failed)
    }
  }

  /// The network the fetch of `record` follows, if its mode (or the store's) needs one while `gate` follows an
  /// online status; its pauses show in the record's value.
  static func network<State: OperationTrackable>(
    of record: QueryRecord<State>,
    at gate: NetworkGate,
    store: WeakQueryStore
  ) -> NetworkRun? {
    // The common case, no source followed, reads nothing of the query.
    guard gate.followsSource else { return nil }
    let operation = record.definition.options.operation
    guard let mode = gate.mode(for: operation.networkMode) else { return nil }
    // A fetch with no retries that starts now needs nothing more of the gate.
    if operation.retry.retries == 0 && (mode == .offlineFirst || gate.isOnlineNow) { return nil }
    return NetworkRun(gate: gate, mode: mode) { run in
      store.store?.valueForStep(of: record)?.withLockUnannounced { value in value.operation.showPaused(run.isPaused) }
    }
  }

  /// Shows a fetch starting as ``markPending(_:fetching:)`` does, and paused if it waits for the network (decided
  /// by `network` here, once); returns the status to restore if it is cancelled.
  static func markPending<State: OperationTrackable>(
    _ shared: Shared<State>,
    fetching pages: OperationTracking.PageFetch,
    network: NetworkRun
  ) -> OperationStatus {
    let pauses = network.startsPaused()
    return shared.withLockUnannounced { value in
      let before = value.operation.status == .pending ? .idle : value.operation.status
      value.operation.beginFetch(pages)
      // Read under the value's lock: the network may have come back since (see `NetworkRun`).
      if pauses { value.operation.showPaused(network.isPaused) }
      return before
    }
  }

  /// Shows a fetch starting: fetching, attempt 1, pending only for a first load (a refetch keeps its status);
  /// returns the status to restore if it is cancelled (a first load left pending by a cancelled one counts as
  /// idle).
  @inlinable
  static func markPending<State: OperationTrackable>(
    _ shared: Shared<State>,
    fetching pages: OperationTracking.PageFetch = .all
  ) -> OperationStatus {
    shared.withLockUnannounced { value in
      let before = value.operation.status == .pending ? .idle : value.operation.status
      value.operation.beginFetch(pages)
      return before
    }
  }

  /// Writes a fetched value, closing the fetch's gate (if it can yield) in the same step; the value stays fetching
  /// when work follows at once (`keepFetching`), so no idle shows between the two. With `sharing` (the query's
  /// ``QueryOptions/structuralSharing``), the value keeps what the query shows where it did not change (compared
  /// before the lock: see ``sharedValue(_:with:sharing:)``).
  ///
  /// Nothing is written when the record was removed after the write was decided (`work` was detached): the value
  /// left the store with it, and the store tells it that no fetch runs; asked under the value's lock, so the value
  /// ends showing no fetch whichever of the two writes comes first.
  @inlinable
  static func showSuccess<State: OperationTrackable>(
    _ value: State.Success,
    in shared: Shared<State>,
    sharing: Bool,
    keepFetching: Bool,
    closing gate: YieldGate?,
    of work: QueryWork
  ) {
    let value = sharedValue(value, with: shared, sharing: sharing)
    writeData(into: shared) { state in
      gate?.close()
      guard !work.isDetached else { return }
      Shared<State>.show(.success(value), in: &state)
      if keepFetching { state.operation.isFetching = true }
    }
  }

  /// Writes data the store brings (a fetch's value, a yielded value, a value the program sets) into `shared`: while
  /// mutations' optimistic changes are pending on it, into its confirmed value, showing the changes over it again
  /// (see ``OptimisticLayer``). The value it replaces is released after the lock.
  @inlinable
  static func writeData<State: OperationTrackable>(into shared: Shared<State>, _ write: (inout State) -> Void) {
    shared.withLockReleasingReplaced(write)
  }

  /// Writes into the value of `root` as ``writeData(into:_:)`` does, only while its version is still `expected`;
  /// returns the version after the write, or `nil` when the value changed since.
  static func writeData<State: OperationTrackable>(
    into root: SharedRoot<State>,
    ifVersion expected: UInt64,
    _ write: (inout State) -> Void
  ) -> UInt64? {
    let written = root.box.withLock(attached: AttachedLayer<State>.self, ifVersion: expected) {
      state, attached -> State in
      let previous = state
      if let attached { attached.layer.write(write, to: &state) } else { write(&state) }
      return previous
    }
    withExtendedLifetime(written?.result) {}  // The state replaced, released after the lock.
    return written?.version
  }
}

// MARK: The locked steps of a fetch

extension QueryStore {
  /// The fetch of `id` of `record` returned a value: whether to write it, and the value to write it into, borrowed
  /// in the same lock (one lock per fetch, not two).
  fileprivate func fetchReturned<State: OperationTrackable>(
    _ id: QueryRecordMachine.WorkID,
    of record: QueryRecord<State>
  ) -> (action: QueryRecordMachine.ReturnAction, value: Shared<State>?) {
    state.withLock { _ in
      // A record that left the store discards the result: its machine no longer runs `id`.
      let action = record.fetchReturned(id)
      guard case .apply = action else { return (action, nil) }
      return (action, record.borrowed)
    }
  }

  /// The value of `record`, borrowed for one step of its fetch; `nil` once the record left the store.
  fileprivate func valueForStep<State: OperationTrackable>(of record: QueryRecord<State>) -> Shared<State>? {
    state.withLock { _ in record.borrowed }
  }

  /// The fetch of `id` of `record` failed or was cancelled: whether work follows at once, and the value to write its
  /// end into, borrowed in the same lock.
  fileprivate func fetchStopped<State: OperationTrackable>(
    _ id: QueryRecordMachine.WorkID,
    of record: QueryRecord<State>,
    cancelled: Bool
  ) -> (action: QueryRecordMachine.ReturnAction, value: Shared<State>?) {
    state.withLock { _ in (record.fetchStopped(id, cancelled: cancelled), record.borrowed) }
  }

  /// An attempt of the fetch of `id` of `record` failed and a retry is due: whether anyone still needs it. Call
  /// with no reference to the value held by the fetch.
  fileprivate func retryPoint<State: OperationTrackable>(
    _ id: QueryRecordMachine.WorkID,
    of record: QueryRecord<State>
  ) -> QueryRecordMachine.RetryAction {
    state.withLock { _ in record.retryPoint(id) }
  }

  fileprivate func finished<State: OperationTrackable>(
    _ id: QueryRecordMachine.WorkID,
    of record: QueryRecord<State>,
    outcome: QueryRecordMachine.Outcome
  ) -> QueryRecordEffect {
    state.withLockReleasingAfter { _ in
      let (finished, effect) = record.finished(id, outcome: outcome, store: self)
      return (result: effect, released: finished)
    }
  }
}
