/// What a ``QueryStore`` keeps for all its queries and mutations: the options for queries made without their own,
/// the app's hooks, how many fetches and mutation runs are under way, the mutations waiting in their scopes, and the
/// network.
final class QueryStoreServices: Sendable {
  /// The options for queries made without their own (store-wide and per key prefix), and those for mutations
  /// run without options, per key prefix.
  let defaults = Lock(QueryStoreDefaults())
  let hooks = Lock(QueryHooks())
  /// The fetches and mutation runs under way, counted for the whole store and for the prefixes asked about.
  let activity = QueryActivityTracker()
  /// The readers of the runs of the mutations under a filter, read again as runs start and end.
  let mutationStates = MutationStatesTracker()
  /// The lines of the mutation scopes of the store's registry.
  let mutationScopes = MutationScopes()
  /// The online status the store follows, its default network mode, and the work waiting for the network.
  let network: NetworkGate
  /// The focus sources the store follows, which keep a query's interval from refetching in the background.
  let focus = QueryFocusSources()
  /// The registry's inspector: fetches and mutation runs publish events to it while it is attached.
  let inspector: SharedInspector

  /// The registry's instrument: fetches, mutation runs and the cache's events are measured while one is attached.
  var instruments: SharedInstruments { inspector.instruments }

  init(inspector: SharedInspector) {
    self.inspector = inspector
    network = NetworkGate(instruments: inspector.instruments)
  }

  /// The store's default options for `query`, if it was made without options of its own and the store has
  /// defaults; `nil` when it keeps its own (so that most queries are not copied to be given options).
  func defaultOptions<State: OperationTrackable>(for query: Query<State>) -> QueryOptions? {
    guard query.usesDefaultOptions else { return nil }
    return defaults.withLock { $0.queryOptions(for: query.key) }
  }

  /// Calls the hooks for a fetch or run of `subject` that ended with `result`: `onSuccess` or `onError`, then
  /// `onSettled`. Call outside every lock.
  func report<Success: Sendable>(_ subject: QueryHookSubject, _ result: Result<Success, any Error>) {
    let hooks = self.hooks.withLock { $0 }
    guard hooks.onSuccess != nil || hooks.onError != nil || hooks.onSettled != nil else { return }
    switch result {
    case .success(let value): hooks.onSuccess?(subject, value)
    case .failure(let error):
      // A cancelled fetch was not a failure: it only settles, as a cancelled operation run does.
      if !(error is CancellationError) { hooks.onError?(subject, error) }
    }
    hooks.onSettled?(subject, result.map { $0 as any Sendable })
  }

  /// Calls the success hooks of `subject`, whose settled hook follows later.
  func reportSuccess(_ subject: QueryHookSubject, _ value: any Sendable) {
    hooks.withLock { $0 }.onSuccess?(subject, value)
  }

  /// Calls the error hook of `subject`, whose settled hook follows later.
  func reportError(_ subject: QueryHookSubject, _ error: any Error) {
    hooks.withLock { $0 }.onError?(subject, error)
  }

  /// Calls the settled hook of `subject`.
  func reportSettled(_ subject: QueryHookSubject, _ result: Result<any Sendable, any Error>) {
    hooks.withLock { $0 }.onSettled?(subject, result)
  }
}
