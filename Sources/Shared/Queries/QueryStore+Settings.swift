extension QueryStore {
  /// The options of every query of this store made without options of its own.
  ///
  /// ```swift
  /// let store = SharedRegistry.current.queries
  /// store.defaultOptions = QueryOptions(staleTime: .seconds(30), gcTime: .seconds(60))
  /// ```
  ///
  /// A query made with `options:` keeps its own; one made without them takes these as it enters the store (its
  /// first holder, ``fetch(_:servingStale:)->Value``, ``prefetch(_:)-(Query<OperationState<Value>>)``). Set them before the queries are made: a query the
  /// store already keeps keeps the options it entered with. The default is
  /// ``QueryOptions/init(staleTime:gcTime:enabled:operation:)`` with no arguments.
  public var defaultOptions: QueryOptions {
    get { settings.defaultOptions.withLock { $0 } ?? QueryOptions() }
    set { settings.defaultOptions.withLock { $0 = newValue } }
  }

  /// Hooks called for every fetch of this store's queries and every mutation run of its registry: for logging and
  /// metrics.
  ///
  /// ```swift
  /// store.hooks.onError = { subject, error in log("\(subject) failed: \(error)") }
  /// ```
  ///
  /// See ``QueryHooks`` for when and where they run. A change applies to fetches and runs that end after it.
  public var hooks: QueryHooks {
    get { settings.hooks.withLock { $0 } }
    set { settings.hooks.withLock { $0 = newValue } }
  }

  /// How many of this store's queries are fetching, and how many mutation runs of its registry are under way: read
  /// it, observe it, iterate its changes.
  ///
  /// ```swift
  /// let activity = SharedRegistry.current.queries.activity
  /// if activity.wrappedValue.fetchingQueries > 0 { showSpinner() }
  /// let token = activity.observe { activity in updateSpinner(activity.isIdle) }
  /// ```
  ///
  /// A query counts from the moment its fetch starts until its result is written (retries and their waits
  /// included); a mutation run from `mutate` until its `onSettled`.
  public var activity: SharedReader<QueryActivity> {
    SharedReader(settings.activity)
  }
}
