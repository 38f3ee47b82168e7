/// A new unit of work of a record, decided under the store's lock and started after it: its task, and first, unless
/// it waits for its turn, the value showing it fetching.
struct QueryLaunch<State: OperationTrackable>: QueryLaunching {
  let id: QueryRecordMachine.WorkID
  let record: QueryRecord<State>
  let fetch: QueryFetcher<State>
  let work: QueryWork
  /// The value shown fetching before the caller goes on; `nil` for work that waits for its turn (it shows its
  /// fetching when its turn comes).
  let shown: Shared<State>?
  /// The network the fetch may follow, asked after the lock (one atomic read when no online status is followed).
  let gate: NetworkGate
  /// Held weakly: a fetch that hangs keeps neither the store nor its other queries alive (its own record, and the
  /// value the record keeps, stay until it ends).
  let store: WeakQueryStore
  /// Code specialized for the value, for a holder's fetch (see ``QueryValueWriter``).
  let writer: QueryValueWriter<State>?
  /// The registry's instrument, which measures the fetch from here, in the task that launched it.
  let instruments: SharedInstruments

  func perform() {
    // The task captures these copies, not `self`: capturing `shown` would keep a reference to the value for the whole
    // fetch, and the record asks at each retry point whether anyone but the fetch holds it.
    let (id, record, fetch, work, gate, store, writer) = (id, record, fetch, work, gate, store, writer)
    // Begun in the launching task, whose task-local values (a trace's context) the measurement may read.
    let measurement = instruments.begin(.fetch(record.key, meta: record.definition.options.meta))
    if let measurement { work.measure(by: measurement) }
    guard let shown else {
      work.attach(
        Task {
          guard await work.waitForTurn() else { return }  // Withdrawn: settled by its withdrawal.
          // Asked as its turn comes: the device may have gone offline while it queued.
          let network = QueryFetchExecutor.network(of: record, at: gate, store: store)
          await QueryFetchExecutor.execute(
            id, of: record, fetch: fetch, work: work, before: nil, store: store, network: network,
            measurement: measurement)
        })
      return
    }
    // Fetching before the caller goes on: a holder that triggered the fetch sees it at once (pending, if a first
    // load; paused, if it waits for the network).
    let network = QueryFetchExecutor.network(of: record, at: gate, store: store)
    let before: OperationStatus
    if let network, network.startsPaused() {
      before = QueryFetchExecutor.markPending(shown, fetching: work.pages, network: network)
    } else {
      before = writer?.markPending(shown) ?? QueryFetchExecutor.markPending(shown, fetching: work.pages)
    }
    work.attach(
      Task {
        await QueryFetchExecutor.execute(
          id, of: record, fetch: fetch, work: work, before: before, store: store, network: network, writer: writer,
          measurement: measurement)
      })
  }
}
