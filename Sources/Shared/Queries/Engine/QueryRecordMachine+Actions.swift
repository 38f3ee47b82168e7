/// What the record machine's events answer: the named actions its caller performs after the lock.
extension QueryRecordMachine {
  /// What the caller does after an event that may start work.
  enum RequestAction: Equatable, Sendable {
    /// Start this work now.
    case start(WorkID, Work)
    /// This work, already running or queued, serves the request.
    case join(WorkID)
    /// This new work waits its turn; a later action starts it.
    case wait(WorkID, Work)
    /// The work `WorkID` ended with the value left fetching and nothing following: work it handed over to was then
    /// withdrawn, or its own task was cancelled as its turn came and wrote nothing. End the fetching (a first load
    /// left pending goes back to idle), then report ``QueryRecordMachine/settled(_:)``.
    case settleStatus(WorkID)
    /// Nothing to do.
    case none
  }

  /// How old a cached value an awaiting caller takes.
  enum Acceptance: Equatable, Sendable {
    /// Only a value fetched less than `staleTime` ago, with no invalidation since; otherwise it waits for a fetch.
    case fresh
    /// Any fetched value at once; a stale one is refetched in the background.
    case staleWhileRefetching
    /// Any fetched value, whatever its age; it waits for a fetch only when nothing was fetched yet.
    case anyAge
  }

  /// What the caller does when a caller awaits the query's value.
  enum ValueAction: Equatable, Sendable {
    /// The cached value serves: read it.
    case serveCached
    /// The cached value serves, and this refresh (asked for by the library, so the caller's cancellation does not
    /// stop it) brings a newer one.
    case serveCachedAndRefetch(RequestAction)
    /// The caller waits for the refresh this action names (asked for by the caller: the caller may cancel it).
    /// `.none` when the record was collected: find or make the record again.
    case awaitFetch(RequestAction)
  }

  /// What an awaiting caller does when it asks before reading the clock (the cheap path for a fresh value).
  enum PeekAction: Equatable, Sendable {
    /// A value was fetched at this time with no invalidation since: it serves if the clock, read after the lock,
    /// says it is younger than `staleTime`; otherwise ask ``QueryRecordMachine/valueRequested(now:staleTime:accepting:)``.
    case serveIfYounger(fetchedAt: Duration)
    /// Nothing that can serve without a decision: ask ``QueryRecordMachine/valueRequested(now:staleTime:accepting:)``.
    case ask
  }

  /// What the caller does when a fetch returned a value.
  enum ReturnAction: Equatable, Sendable {
    /// Write the value (or the failure), then report ``QueryRecordMachine/finished(_:outcome:isHeld:)``.
    /// `keepPending`: work follows at once (a refetch after an invalidation, or queued work), so the value stays
    /// fetching (and a first load stays pending).
    case apply(keepPending: Bool)
    /// The work is not the running one (the record was replaced): drop the value.
    case discard
  }

  /// What the caller does when an attempt of the running work failed and a retry is due.
  enum RetryAction: Equatable, Sendable {
    /// Someone needs the work: retry.
    case retry
    /// Nobody holds the query and no caller awaits the work: end it as cancelled, without retrying.
    case stop
  }

  /// What the caller does when a caller of a unit of work cancelled its task.
  enum CancelAction: Equatable, Sendable {
    /// Others still need the work: only this caller stops waiting.
    case leave
    /// Nobody needs the running work any more: cancel its task; it reports ``QueryRecordMachine/finished(_:outcome:isHeld:)``.
    case cancelRunning(WorkID)
    /// Nobody needs the queued work any more: it was removed; end it as cancelled without running it.
    case withdraw(WorkID)
  }

  /// How a unit of work ended.
  enum Outcome: Equatable, Sendable {
    /// Its value was written, at this time.
    case applied(at: Duration)
    /// It failed.
    case failed
    /// It was cancelled.
    case cancelled
  }

  /// What the caller does when the app cancels the record's fetches or removes the record.
  struct StopAction: Equatable, Sendable {
    /// The running work to cancel, if it still fetches (a value being written is written); it reports
    /// ``QueryRecordMachine/finished(_:outcome:isHeld:)`` as usual.
    var cancelRunning: WorkID?
    /// The queued work that was removed: end each as cancelled without running it.
    var withdraw: [WorkID]
    /// The running work whose value is being written as the record is removed: the value leaves the store with
    /// the record, so that write is dropped if it has not landed yet (the store then tells the value that no fetch
    /// runs, whichever came first). A cancel lets such a write land.
    var detachWriting: WorkID? = nil

    /// Nothing to stop.
    static var none: Self { Self(cancelRunning: nil, withdraw: []) }
  }

  /// What the caller does when the app resets the query to its initial state.
  struct ResetAction: Equatable, Sendable {
    /// The fetches to stop, as ``QueryRecordMachine/fetchesCancelled()`` stops them.
    var stop: StopAction
    /// The refresh that fetches the value again: started at once (``RequestAction/start(_:_:)``) or queued behind the
    /// cancelled work (``RequestAction/wait(_:_:)``) for a held query; ``RequestAction/none`` otherwise.
    var refresh: RequestAction
    /// Whether the value is reset now; otherwise the running work is writing its value, and the value is reset
    /// when that work ends (``QueryRecordMachine/resetsValueAtEnd(of:)``), so that the reset comes after the write.
    var resetsValueNow: Bool
  }

  /// What a garbage check decided.
  enum CollectAction: Equatable, Sendable {
    case keep
    /// Remove the record now.
    case collect
  }
}
