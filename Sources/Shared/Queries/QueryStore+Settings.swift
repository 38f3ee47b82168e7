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
  /// store already keeps keeps the options it entered with. Defaults for a key prefix
  /// (``setQueryDefaults(_:forKeysUnder:)``) win over these for the keys under it. The default is
  /// ``QueryOptions/init(staleTime:gcTime:enabled:refetchOnHolder:refetchOnReconnect:refetchOnFocus:refetchInterval:refetchesWhileUnheld:refetchIntervalInBackground:structuralSharing:networkMode:meta:operation:)`` with no arguments.
  public var defaultOptions: QueryOptions {
    get { services.defaults.withLock { $0.queries } ?? QueryOptions() }
    set {
      services.defaults.withLockReleasingAfter { (result: (), released: $0.setQueryOptions(newValue, under: [])) }
    }
  }

  /// Sets the options of the queries made without options of their own under `prefix`: TanStack Query's
  /// `setQueryDefaults`.
  ///
  /// ```swift
  /// let store = SharedRegistry.current.queries
  /// store.setQueryDefaults(QueryOptions(staleTime: .seconds(300)), forKeysUnder: ["settings"])
  /// store.setQueryDefaults(QueryOptions(staleTime: .zero), forKeysUnder: ["settings", "live"])
  /// ```
  ///
  /// A query made without `options:` takes, as it enters the store, the options of the longest prefix of its key
  /// that has defaults (`["settings", "live", 1]` takes the second ones above, `["settings", "theme"]` the first),
  /// otherwise ``defaultOptions``, otherwise the library's. A query made with `options:` keeps its own: they win
  /// over every default. The options are taken whole: no field of one set of defaults is merged into another, nor
  /// into a query's own options (``QueryOptions`` has a value for every field, so there is no field left unset to
  /// merge). The empty prefix `[]` is every key: it sets ``defaultOptions``.
  ///
  /// A query the store already keeps keeps the options it entered with: set the defaults before the queries are
  /// made, or remove those queries (``remove(_:)``) so that they enter again with the new ones.
  ///
  /// - Parameters:
  ///   - options: The options; `nil` removes the defaults of `prefix`, so its keys take a shorter prefix's.
  ///   - prefix: The key prefix; `["settings"]` reaches `["settings"]` and `["settings", "theme"]`.
  public func setQueryDefaults(_ options: QueryOptions?, forKeysUnder prefix: QueryKey) {
    services.defaults.withLockReleasingAfter { (result: (), released: $0.setQueryOptions(options, under: prefix)) }
  }

  /// The options a query named `key` takes when it is made without options of its own: TanStack Query's
  /// `getQueryDefaults`.
  ///
  /// ```swift
  /// let staleTime = SharedRegistry.current.queries.queryDefaults(for: ["settings", "theme"]).staleTime
  /// ```
  ///
  /// - Parameter key: The query's key.
  /// - Returns: The defaults of the longest prefix of `key` that has some, otherwise ``defaultOptions``.
  public func queryDefaults(for key: QueryKey) -> QueryOptions {
    services.defaults.withLock { $0.queryOptions(for: key) } ?? QueryOptions()
  }

  /// Sets the options of the mutation runs started without options of their own, for the mutations named under
  /// `prefix`: TanStack Query's `setMutationDefaults`.
  ///
  /// ```swift
  /// let store = SharedRegistry.current.queries
  /// store.setMutationDefaults(.retry(.exponential(retries: 3)), forKeysUnder: ["posts"])
  /// ```
  ///
  /// A run of ``Shared/mutate(_:_:policy:scope:invalidates:awaitsRefetches:isolation:_:onAttempt:onSuccess:onError:onSettled:)-(_,_,_,_,_,_,_,(Arguments)->Result,_,_,_,_)``
  /// started without options, on a state held under a ``MutationKey`` (`.mutation(["posts", 42, "rename"])`),
  /// takes the options of the longest prefix of that key that has defaults, otherwise `OperationOptions()` (a
  /// mutation does not retry by default). Options given to `mutate` win over every default, and are taken whole:
  /// no field is merged. A mutation state held under another kind of key (`.inMemory("rename")`), which has no key
  /// parts, takes only the defaults of `[]`, which reach every mutation run.
  ///
  /// The defaults are read as each run starts: a change applies to the runs started after it, whatever their state
  /// (a run under way keeps the options it started with; ``Shared/retryLatest(isolation:onAttempt:onSuccess:onError:onSettled:)``
  /// runs again with them too). The mutations of a ``MutationQueue`` take their options from their registrations,
  /// not from these.
  ///
  /// - Parameters:
  ///   - options: The options; `nil` removes the defaults of `prefix`, so its keys take a shorter prefix's.
  ///   - prefix: The mutation key prefix; `["posts"]` reaches `.mutation(["posts", 42, "rename"])`.
  public func setMutationDefaults(_ options: OperationOptions?, forKeysUnder prefix: QueryKey) {
    services.defaults.withLockReleasingAfter { (result: (), released: $0.setMutationOptions(options, under: prefix)) }
  }

  /// The options a run of the mutation named `key` takes when it is started without options of its own: TanStack
  /// Query's `getMutationDefaults`.
  ///
  /// ```swift
  /// let retry = SharedRegistry.current.queries.mutationDefaults(for: ["posts", 42, "rename"]).retry
  /// ```
  ///
  /// - Parameter key: The mutation's key (``MutationKey/key``).
  /// - Returns: The defaults of the longest prefix of `key` that has some, otherwise `OperationOptions()`.
  public func mutationDefaults(for key: QueryKey) -> OperationOptions {
    services.defaults.withLock { $0.mutationOptions(for: key) } ?? OperationOptions()
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
    get { services.hooks.withLock { $0 } }
    set { services.hooks.withLock { $0 = newValue } }
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
  /// included); a mutation run from `mutate` until its `onSettled`. For the counts of one part of the app, see
  /// ``activity(matching:)``.
  public var activity: SharedReader<QueryActivity> {
    SharedReader(services.activity.all)
  }

  /// How many queries under `prefix` are fetching, and how many runs of mutations named under it are under way:
  /// read it, observe it, iterate its changes, as ``activity`` for the whole store.
  ///
  /// ```swift
  /// let posts = SharedRegistry.current.queries.activity(matching: ["posts"])
  /// if !posts.wrappedValue.isIdle { showSpinner() }  // a post loading or being saved
  /// let token = posts.observe { activity in updateSpinner(activity.isIdle) }
  /// ```
  ///
  /// A query counts when its key starts with `prefix`. A mutation counts when its ``MutationKey`` does: name a
  /// mutation with the parts of the data it changes (`.mutation(["posts", post.id, "rename"])`), and it counts
  /// under `["posts"]` and `["posts", post.id]`, beside the fetches of those posts. A mutation named by a string
  /// (`.mutation("rename-42")`) has the key of that one part (`["rename-42"]`); a mutation state held under
  /// another kind of key (`.inMemory("rename")`, or a value with no key) counts only in ``activity``, which the
  /// empty prefix `[]` also returns.
  ///
  /// The counts start from the fetches and runs under way when the reader is made, and follow every fetch and run
  /// that starts or ends after it, as ``activity`` does. Holders of one prefix share one reader while any of them
  /// holds it; it costs nothing once nobody does.
  ///
  /// - Parameter prefix: The key prefix; `["posts"]` reaches `["posts", 42]` and `["posts", 42, "comments"]`.
  /// - Returns: A reader of the counts under `prefix`.
  public func activity(matching prefix: QueryKey) -> SharedReader<QueryActivity> {
    guard !prefix.parts.isEmpty else { return activity }
    return SharedReader(services.activity.activity(matching: prefix))
  }
}
