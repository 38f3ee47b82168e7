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
  /// ``QueryOptions/init(staleTime:gcTime:enabled:refetchOnHolder:refetchOnReconnect:refetchOnFocus:refetchInterval:refetchesWhileUnheld:refetchIntervalInBackground:networkMode:meta:operation:)`` with no arguments.
  public var defaultOptions: QueryOptions {
    get { services.defaultOptions.withLock { $0 } ?? QueryOptions() }
    set { services.defaultOptions.withLock { $0 = newValue } }
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
