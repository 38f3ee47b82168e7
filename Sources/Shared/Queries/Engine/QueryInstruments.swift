/// What watches a store's fetches: its activity counts, the app's hooks and an attached inspector.
///
/// The fetch executor hands one of these each event of a fetch, in order, and it tells every watcher what that
/// watcher needs; the executor itself names no watcher. A new watcher is added here, not at the engine's steps. An
/// attached instrument (``SharedInstrument``) measures the fetch from its launch instead, in the launching task
/// (``QueryLaunch``), and hears its end from its ``QueryWork``.
struct FetchInstruments {
  private let services: QueryStoreServices
  private let key: QueryKey
  /// The query's meta, for the hooks.
  private let meta: OperationMeta
  /// Set when an inspector is attached as the fetch starts: it hears how the fetch ends.
  private let inspected: (inspector: SharedInspector, startedAt: ContinuousClock.Instant)?

  /// A fetch of the query named `key` started (its value shows it fetching): counted, and told to an attached
  /// inspector.
  init(started key: QueryKey, meta: OperationMeta, services: QueryStoreServices) {
    self.services = services
    self.key = key
    self.meta = meta
    services.activity.fetchStarted(key)
    let inspector = services.inspector
    if inspector.isAttached {
      inspected = (inspector, .now)
      inspector.publish(InspectedKey.id(query: key), .fetchStarted)
    } else {
      inspected = nil
    }
  }

  /// The fetch's value (or failure) was written: it no longer counts as under way.
  func written() {
    services.activity.fetchEnded(key)
  }

  /// The record settled how the fetch ended, before its callers resume and the work it starts next: an attached
  /// inspector hears it.
  func settled(_ result: QueryWork.Outcome) {
    guard let inspected else { return }
    let duration = ContinuousClock.now - inspected.startedAt
    inspected.inspector.publish(InspectedKey.id(query: key), .fetchEnded(duration: duration, outcome: .init(result)))
  }

  /// Last, outside every lock, once the callers and the work that follows went on: the app's hooks.
  func ended(_ result: QueryWork.Outcome) {
    services.report(.query(key, meta: meta), result)
  }
}

/// What watches a store's mutation runs: its activity counts, the app's hooks, an attached inspector and an attached
/// instrument.
///
/// A run hands one of these each event, in order, and it tells every watcher what that watcher needs.
struct MutationInstruments<Result: Sendable>: Sendable {
  private let services: QueryStoreServices
  /// The mutation's key (`nil`: a mutation state held under another kind of key).
  private let key: QueryKey?
  private let subject: QueryHookSubject
  /// Set when an inspector is attached as the run starts: it hears the callbacks and how the run ends.
  private let inspected: (id: String, startedAt: ContinuousClock.Instant)?
  /// The attached instrument's measurement of the run, begun in the caller's task: it measures each attempt.
  let measurement: (any WorkMeasurement)?

  /// A run of the mutation named `key` with `arguments` started: counted, told to an attached inspector, and measured
  /// by an attached instrument.
  init(started key: QueryKey?, arguments: some Sendable, meta: OperationMeta, services: QueryStoreServices) {
    self.services = services
    self.key = key
    subject = .mutation(arguments: arguments, meta: meta)
    services.activity.mutationStarted(key)
    services.mutationStates.changed(key)
    measurement = services.instruments.begin(.mutation(key, meta: meta))
    let inspector = services.inspector
    if inspector.isAttached {
      let id = InspectedKey.id(kind: .mutation, name: key.map { MutationKeyID(key: $0).name } ?? "(unnamed)")
      inspected = (id, .now)
      inspector.publish(id, .mutationStarted)
    } else {
      inspected = nil
    }
  }

  /// The run succeeded with `result` and its state shows it; `callsBack`: the caller's `onSuccess` runs next.
  func succeeded(_ result: Result, callsBack: Bool) {
    services.mutationStates.changed(key)
    services.reportSuccess(subject, result)
    if let inspected, callsBack { services.inspector.publish(inspected.id, .mutationCallback(.onSuccess)) }
  }

  /// The run failed with `error` and its state shows it; `callsBack`: the caller's `onError` runs next.
  func failed(_ error: any Error, callsBack: Bool) {
    services.mutationStates.changed(key)
    services.reportError(subject, error)
    if let inspected, callsBack { services.inspector.publish(inspected.id, .mutationCallback(.onError)) }
  }

  /// The run ended with `result` (a cancelled run's state shows it now); `callsBack`: the caller's `onSettled` runs
  /// next.
  func settled(_ result: Swift.Result<Result, any Error>, callsBack: Bool) {
    services.activity.mutationEnded(key)
    measurement?.ended(InstrumentedOutcome(result))
    // A success or a failure was heard as it showed; a cancellation shows only now.
    if case .failure(let error) = result, error is CancellationError { services.mutationStates.changed(key) }
    services.reportSettled(subject, result.map { $0 as any Sendable })
    guard let inspected else { return }
    let duration = ContinuousClock.now - inspected.startedAt
    services.inspector.publish(inspected.id, .mutationEnded(duration: duration, outcome: .init(result)))
    if callsBack { services.inspector.publish(inspected.id, .mutationCallback(.onSettled)) }
  }
}
