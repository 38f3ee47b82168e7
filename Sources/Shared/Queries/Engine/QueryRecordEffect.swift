/// What the store decided under its lock for its records, as named steps performed after the lock, in order.
///
/// Every event of a record (a holder appearing, an invalidation, a fetch ending, a reset, a removal) is decided under
/// the store's lock by its ``QueryRecordMachine``; the record turns the machine's action into steps, and the caller
/// performs them once the lock is released. This type's ``callAsFunction()`` is the one place that says what each
/// step does.
struct QueryRecordEffect {
  /// One thing to do after the lock.
  enum Step {
    /// Queued work whose turn came runs.
    case giveTurn(QueryWork)
    /// A new unit of work starts (see ``QueryLaunch``).
    case launch(any QueryLaunching)
    /// The running work's task is cancelled; the work ends, and reports, as usual.
    case cancel(QueryWork)
    /// Queued work nobody needs any more ends as cancelled, without running.
    case withdraw(QueryWork)
    /// The value write of a removed record's running work is dropped if it has not landed.
    case detach(QueryWork)
    /// A write to the query's value (see ``QueryValueWrite``).
    case write(any QueryValueWriting)
    /// The store's timer for queries refetched on an interval starts.
    case startTimer(QueryIntervalKey, clock: any Clock<Duration>, store: QueryStore)
    /// Something the decision let go (a record, a value): kept by the effect, so released when the effect is dropped
    /// after the lock, wherever it stands in the list.
    case release(Any)
  }

  private(set) var steps: [Step]

  /// Nothing to do.
  static var none: Self { Self(steps: []) }

  init(_ step: Step) { steps = [step] }

  private init(steps: [Step]) { self.steps = steps }

  /// Whether there is nothing to do.
  var isNone: Bool { steps.isEmpty }

  /// Appends `step`.
  mutating func append(_ step: Step) { steps.append(step) }

  /// Appends `other`'s steps, after this effect's.
  mutating func append(_ other: Self) {
    if steps.isEmpty { steps = other.steps } else { steps += other.steps }
  }

  /// This effect, then `other`.
  func then(_ other: Self) -> Self {
    var combined = self
    combined.append(other)
    return combined
  }

  /// Performs the steps, in order; call after the lock.
  func callAsFunction() {
    for step in steps {
      switch step {
      case .giveTurn(let work):
        work.giveTurn()
      case .launch(let launch):
        launch.perform()
      case .cancel(let work):
        work.cancel()
      case .withdraw(let work):
        work.withdraw()
        work.finish(.failure(CancellationError()))
      case .detach(let work):
        work.detach()
      case .write(let write):
        write.perform()
      case .startTimer(let key, let clock, let store):
        store.startTimer(on: clock, key: key)
      case .release:
        break  // Released with the effect.
      }
    }
  }
}

/// The launch step of a ``QueryRecordEffect``, of the query's state type (``QueryLaunch``).
protocol QueryLaunching {
  /// Starts the work; call after the lock.
  func perform()
}

/// The write step of a ``QueryRecordEffect``, of the query's state type (``QueryValueWrite``).
protocol QueryValueWriting {
  /// Writes the value; call after the lock.
  func perform()
}

/// A write to a query's value, decided under the store's lock and performed after it.
struct QueryValueWrite<State: OperationTrackable>: QueryValueWriting {
  /// What is written.
  enum Change {
    /// The query's initial state is written as the value, before anything a holder's decision starts.
    case seed(State)
    /// The optimistic changes made before the query was (see ``QueryStore/adopt(_:in:)``) show over the value.
    case adopt(OptimisticLayer<State>)
    /// The value goes back to its initial state, showing a first load if a refresh takes over the fetching.
    case reset(showingLoad: Bool)
    /// A removed record's value is told that no fetch runs any more.
    case endFetches
    /// The fetching left showing by the work `id` ends (a first load left pending goes back to idle); then the store
    /// is told (``QueryStore/settled(_:key:as:)``), which takes its lock again and may start the work that follows.
    case settle(QueryRecordMachine.WorkID, key: QueryKey, store: WeakQueryStore)
  }

  let root: SharedRoot<State>
  let change: Change

  func perform() {
    let shared = Shared<State>(reference: .root(root))
    switch change {
    case .seed(let initial):
      shared.withLockReleasingReplaced { $0 = initial }
    case .adopt(let layer):
      QueryStore.adopt(layer, in: root)
    case .reset(let showingLoad):
      // What the reset replaces is released after the value's lock.
      shared.withLockReleasingReplaced { state in
        state.resetToInitialState()
        if showingLoad { state.operation.beginFetch() }
      }
    case .endFetches:
      shared.withLockUnannounced { state in
        if state.operation.status == .pending { state.operation.status = .idle }
        state.operation.endFetch()
      }
    case .settle(let id, let key, let store):
      shared.withLockUnannounced { state in
        // Only a cancelled first load leaves the status pending for the work that follows.
        if state.operation.status == .pending { state.operation.restore(.idle) }
        state.operation.endFetch()
      }
      store.store?.settled(id, key: key, as: State.self)
    }
  }
}

extension QueryRecordEffect {
  /// A write of `change` to the value in `root`.
  static func write<State>(_ change: QueryValueWrite<State>.Change, to root: SharedRoot<State>) -> Self {
    Self(.write(QueryValueWrite(root: root, change: change)))
  }
}
