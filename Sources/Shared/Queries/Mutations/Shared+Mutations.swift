extension Shared {
  /// Runs the mutation with `arguments`, recording the run in the shared history; after a success, invalidates the
  /// queries whose keys start with any of `invalidates`.
  ///
  /// ```swift
  /// $addTodo.mutate("Water the plants", invalidates: [["todos"]]) { title in
  ///   try await api.addTodo(title)
  /// } onSuccess: { todo in
  ///   toast("Added \(todo.title)")
  /// }
  /// ```
  ///
  /// The run follows ``run(_:policy:optimistic:isolation:_:onAttempt:onSuccess:onError:onSettled:)-(_,_,_,_,()->Value.Success,_,_,_,_)``:
  /// the same policies, retries, callbacks and their order. The history entry is complete before `onSuccess`,
  /// `onError` or `onSettled` run.
  ///
  /// Mutations that share a `scope` run one at a time, in the order `mutate` was called, whatever their keys and
  /// values: a mutation in a scope waits until the ones called before it have settled (see ``MutationScope``).
  ///
  /// ## Saved and refreshed
  ///
  /// By default the run settles as soon as the mutation succeeds: the queries `invalidates` names are marked stale
  /// then, and the held ones refetch in the background. With `awaitsRefetches`, the run stays under way (pending)
  /// until those refetches have ended too, so that `onSuccess`, `onSettled` and the task's value come once the
  /// screens show data fetched after the change:
  ///
  /// ```swift
  /// func add(_ title: String, api: API) async throws {
  ///   @Shared(.mutation("add-todo")) var addTodo = MutationState<String, Todo>()
  ///   _ = try await $addTodo.mutate(title, invalidates: [["todos"]], awaitsRefetches: true) { title in
  ///     try await api.addTodo(title)
  ///   }.value
  ///   // The held ["todos"] queries were refetched: the list shows the new todo.
  /// }
  /// ```
  ///
  /// The queries are invalidated as the mutation succeeds, before its state shows it; the run then waits for the
  /// refetch that answers the invalidation of each held query (see
  /// ``QueryStore/invalidateAndAwaitRefetches(_:refetching:)``). A refetch that fails or is cancelled does not fail
  /// the mutation, which was saved: the query shows its own error, and the run settles as a success once every
  /// refetch has ended. Cancelling the run while it waits stops the wait, not the refetches, and the run still
  /// settles as a success. Queries nobody holds are not waited for: they refetch when next needed.
  ///
  /// - Parameters:
  ///   - arguments: What to run the mutation with; kept in the history.
  ///   - options: Retries, the timeout of each attempt, the clock, and modifiers; see ``OperationOptions``. When
  ///     omitted, the store's defaults for the mutation's key (``QueryStore/setMutationDefaults(_:forKeysUnder:)``),
  ///     otherwise `OperationOptions()`.
  ///   - policy: What to do when another run is under way on this state.
  ///   - scope: The scope whose mutations run one at a time, in call order; none by default.
  ///   - invalidates: Key prefixes of the queries a success makes stale.
  ///   - awaitsRefetches: Whether the run settles only once the held queries that `invalidates` reaches were
  ///     refetched; `false` by default.
  ///   - isolation: Where the callbacks run; the caller's isolation by default.
  ///   - perform: The mutation.
  ///   - onAttempt: Called when the run starts, before `mutate` returns.
  ///   - onSuccess: Called with the result when the run succeeds.
  ///   - onError: Called with the error when the run fails.
  ///   - onSettled: Called last, with the result.
  /// - Returns: A handle to cancel the run or await its result.
  @discardableResult
  public func mutate<Arguments: Sendable, Result: Sendable>(
    _ arguments: Arguments,
    _ options: OperationOptions? = nil,
    policy: OperationPolicy = .parallel,
    scope: MutationScope? = nil,
    invalidates: [QueryKey] = [],
    awaitsRefetches: Bool = false,
    isolation: isolated (any Actor)? = #isolation,
    _ perform: @escaping @Sendable (Arguments) async throws -> Result,
    onAttempt: (() -> Void)? = nil,
    onSuccess: ((Result) -> Void)? = nil,
    onError: ((any Error) -> Void)? = nil,
    onSettled: ((Swift.Result<Result, any Error>) -> Void)? = nil
  ) -> OperationTask<Result> where Value == MutationState<Arguments, Result> {
    mutate(
      arguments, .plain { try await perform(arguments) }, options: options, policy: policy, scope: scope,
      invalidates: invalidates, awaitsRefetches: awaitsRefetches, isolation: isolation, onAttempt: onAttempt,
      onSuccess: onSuccess, onError: onError, onSettled: onSettled)
  }

  /// Runs the mutation with `arguments`, its closure receiving the attempt's context as well; otherwise as
  /// ``mutate(_:_:policy:scope:invalidates:awaitsRefetches:isolation:_:onAttempt:onSuccess:onError:onSettled:)-(_,_,_,_,_,_,_,(Arguments)->Result,_,_,_,_)``.
  ///
  /// ```swift
  /// $addTodo.mutate("Water the plants") { title, context in
  ///   if context.attempt > 1 { log("retrying the upload") }
  ///   return try await api.addTodo(title)
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - arguments: What to run the mutation with; kept in the history.
  ///   - options: Retries, the timeout of each attempt, the clock, and modifiers; see ``OperationOptions``. When
  ///     omitted, the store's defaults for the mutation's key (``QueryStore/setMutationDefaults(_:forKeysUnder:)``),
  ///     otherwise `OperationOptions()`.
  ///   - policy: What to do when another run is under way on this state.
  ///   - scope: The scope whose mutations run one at a time, in call order; none by default.
  ///   - invalidates: Key prefixes of the queries a success makes stale.
  ///   - awaitsRefetches: Whether the run settles only once the held queries that `invalidates` reaches were
  ///     refetched; `false` by default.
  ///   - isolation: Where the callbacks run; the caller's isolation by default.
  ///   - perform: The mutation, given its arguments and its attempt's context.
  ///   - onAttempt: Called when the run starts, before `mutate` returns.
  ///   - onSuccess: Called with the result when the run succeeds.
  ///   - onError: Called with the error when the run fails.
  ///   - onSettled: Called last, with the result.
  /// - Returns: A handle to cancel the run or await its result.
  @discardableResult
  public func mutate<Arguments: Sendable, Result: Sendable>(
    _ arguments: Arguments,
    _ options: OperationOptions? = nil,
    policy: OperationPolicy = .parallel,
    scope: MutationScope? = nil,
    invalidates: [QueryKey] = [],
    awaitsRefetches: Bool = false,
    isolation: isolated (any Actor)? = #isolation,
    _ perform: @escaping @Sendable (Arguments, OperationContext<Result>) async throws -> Result,
    onAttempt: (() -> Void)? = nil,
    onSuccess: ((Result) -> Void)? = nil,
    onError: ((any Error) -> Void)? = nil,
    onSettled: ((Swift.Result<Result, any Error>) -> Void)? = nil
  ) -> OperationTask<Result> where Value == MutationState<Arguments, Result> {
    mutate(
      arguments, .contextual { context in try await perform(arguments, context) }, options: options, policy: policy,
      scope: scope, invalidates: invalidates, awaitsRefetches: awaitsRefetches, isolation: isolation,
      onAttempt: onAttempt, onSuccess: onSuccess, onError: onError, onSettled: onSettled)
  }

  /// Records a run of the mutation and starts `body`, at once or when its turn in `scope` comes;
  /// `beforeInvalidating` runs after the mutation succeeds and before the queries it invalidates refetch.
  func mutate<Arguments: Sendable, Result: Sendable>(
    _ arguments: Arguments,
    _ body: OperationBody<Result>,
    options given: OperationOptions?,
    policy: OperationPolicy,
    scope: MutationScope?,
    invalidates: [QueryKey],
    awaitsRefetches: Bool,
    isolation: isolated (any Actor)?,
    beforeInvalidating: (@Sendable () -> Void)? = nil,
    onJoined: (@Sendable () -> Void)? = nil,
    onAttempt: (() -> Void)?,
    onSuccess: ((Result) -> Void)?,
    onError: ((any Error) -> Void)?,
    onSettled: ((Swift.Result<Result, any Error>) -> Void)?
  ) -> OperationTask<Result> where Value == MutationState<Arguments, Result> {
    let queries = owningQueries
    // Options given win; otherwise the store's defaults for the mutation's key, read as the run starts.
    let options =
      given ?? queries.services.defaults.withLock { $0.mutationOptions(for: mutationKey) } ?? OperationOptions()
    let id = withLockReleasingReplaced {
      $0.record(
        arguments, body, options: options, policy: policy, scope: scope, invalidates: invalidates,
        awaitsRefetches: awaitsRefetches)
    }
    let shared = self
    // The store's watchers hear about every run; the hooks run where the run's callbacks do.
    let services = queries.services
    // The store's network mode unless the options name one; none while the store follows no online status.
    let network = RunNetwork(gate: services.network, mode: options.networkMode)
    let instruments = MutationInstruments<Result>(
      started: mutationKey, arguments: arguments, meta: options.meta, services: services)
    // An attached instrument measures each attempt around the mutation's own work (inside the modifiers).
    let body =
      instruments.measurement.map { measurement in
        OperationBody<Result>.contextual { context in
          try await measurement.attempt(context.attempt) { try await body(context) }
        }
      } ?? body
    // Invalidated as the mutation succeeds, before its state shows it, when the run waits for the refetches;
    // otherwise once it shows it.
    let refreshes = awaitsRefetches && !invalidates.isEmpty
    var afterSuccess: (@Sendable (Result) async -> Void)?
    if refreshes {
      let filters = invalidates.map { QueryFilter.prefix($0) }
      afterSuccess = { _ in
        beforeInvalidating?()
        let joined = queries.invalidateJoiningRefetches(filters, refetching: .held).joined
        // Only a cancelled caller throws: it stops waiting, and the run still succeeds.
        _ = try? await queries.awaitRefetches(joined)
      }
    }
    let recordSuccess: (Result) -> Void = { result in
      shared.withLockReleasingReplaced { $0.finish(id, status: .success, result: result, error: nil) }
      if !refreshes {
        beforeInvalidating?()
        for prefix in invalidates { queries.invalidate(matching: prefix) }
      }
      instruments.succeeded(result, callsBack: onSuccess != nil)
      onSuccess?(result)
    }
    let recordError: (any Error) -> Void = { error in
      shared.withLockReleasingReplaced { $0.finish(id, status: .error, result: nil, error: error) }
      instruments.failed(error, callsBack: onError != nil)
      onError?(error)
    }
    let recordSettled: (Swift.Result<Result, any Error>) -> Void = { result in
      if case .failure(let error) = result, error is CancellationError {
        shared.withLockReleasingReplaced {
          $0.finish(id, status: .idle, result: nil, error: nil, onlyIfPending: true)
        }
      }
      instruments.settled(result, callsBack: onSettled != nil)
      onSettled?(result)
    }
    guard let scope else {
      return start(
        body, options: options, policy: policy, optimistic: nil, afterSuccess: afterSuccess, network: network,
        isolation: isolation, onAttempt: onAttempt, onSuccess: recordSuccess, onError: recordError,
        onSettled: recordSettled, onJoined: onJoined)
    }
    return start(
      body, in: scope, of: services.mutationScopes, options: options, policy: policy, afterSuccess: afterSuccess,
      network: network, isolation: isolation, onAttempt: onAttempt, onSuccess: recordSuccess, onError: recordError,
      onSettled: recordSettled, onJoined: onJoined)
  }

  /// The query store of the registry this value was made in: its runs are counted, listed and measured there, and
  /// its optimistic changes reach that store's queries, whichever registry is current where it runs. The current
  /// registry's for a value of no registry (a permanent key's, or one made without a key).
  var owningQueries: QueryStore {
    guard case .root(let root) = reference, let registry = root.registration?.registry else {
      return SharedRegistry.current.queries
    }
    return registry.queries
  }

  /// The key of the mutation this value holds the state of, for ``QueryStore/activity(matching:)``: its
  /// ``MutationKey``'s, or `nil` for a state held under another kind of key.
  var mutationKey: QueryKey? {
    guard case .root(let root) = reference, let id = root.registration?.id as? MutationKeyID else { return nil }
    return id.key
  }
}

extension Shared {
  /// Runs the mutation with `arguments` after changing cached queries optimistically, as `optimistic` says: the
  /// changes show at once, last through the queries' fetches and edits while the mutation runs, stay if it
  /// succeeds, and are dropped if it fails or is cancelled (see ``OptimisticCache`` for the rule).
  ///
  /// ```swift
  /// func rename(_ post: Post, to title: String, api: API) {
  ///   @Shared(.mutation("rename-\(post.id)")) var rename = MutationState<String, Post>()
  ///   let retitle = OptimisticMutation { (title: String, cache: OptimisticCache) -> String in
  ///     cache.update(["posts", post.id], as: OperationState<Post>.self) { $0.value?.title = title }
  ///     return post.title
  ///   }
  ///   $rename.mutate(title, invalidates: [["posts"]], optimistic: retitle) { title in
  ///     try await api.rename(post.id, to: title)
  ///   } onError: { _, previousTitle in
  ///     print("kept", previousTitle)
  ///   }
  /// }
  /// ```
  ///
  /// Otherwise as ``mutate(_:_:policy:scope:invalidates:awaitsRefetches:isolation:_:onAttempt:onSuccess:onError:onSettled:)-(_,_,_,_,_,_,_,(Arguments)->Result,_,_,_,_)``:
  /// the same policies, scopes, retries, history and callback order. With `awaitsRefetches`, the changes are kept
  /// before the refetches start, and the run settles once they have ended. The changes are dropped before `onError`
  /// (or, for a cancelled run, `onSettled`) is called, so the callbacks see the queries as they are without them.
  /// Each call keeps or drops its own changes, whatever the policy does with its run (a run that `.cancelPrevious`
  /// cancels, or that `.debounce` drops, is dropped); a call that joins a run under way (`.dedupe`) drops its changes
  /// as it joins, since its arguments never reach the server, and gets that run's result.
  ///
  /// - Parameters:
  ///   - arguments: What to run the mutation with; kept in the history.
  ///   - options: Retries, the timeout of each attempt, the clock, and modifiers; see ``OperationOptions``. When
  ///     omitted, the store's defaults for the mutation's key (``QueryStore/setMutationDefaults(_:forKeysUnder:)``),
  ///     otherwise `OperationOptions()`.
  ///   - policy: What to do when another run is under way.
  ///   - scope: The scope whose mutations run one at a time, in call order; none by default.
  ///   - invalidates: Key prefixes of the queries a success makes stale.
  ///   - awaitsRefetches: Whether the run settles only once the held queries that `invalidates` reaches were
  ///     refetched; `false` by default.
  ///   - optimistic: Changes cached queries when the mutation starts, and returns the callbacks' context.
  ///   - isolation: Where the callbacks run; the caller's isolation by default.
  ///   - perform: The mutation.
  ///   - onAttempt: Called when the run starts, before `mutate` returns.
  ///   - onSuccess: Called with the result and the context when the run succeeds.
  ///   - onError: Called with the error and the context when the run fails, after the changes were dropped.
  ///   - onSettled: Called last, with the result and the context.
  /// - Returns: A handle to cancel the run or await its result.
  @discardableResult
  public func mutate<Arguments: Sendable, Result: Sendable, Context: Sendable>(
    _ arguments: Arguments,
    _ options: OperationOptions? = nil,
    policy: OperationPolicy = .parallel,
    scope: MutationScope? = nil,
    invalidates: [QueryKey] = [],
    awaitsRefetches: Bool = false,
    optimistic: OptimisticMutation<Arguments, Context>,
    isolation: isolated (any Actor)? = #isolation,
    _ perform: @escaping @Sendable (Arguments) async throws -> Result,
    onAttempt: (() -> Void)? = nil,
    onSuccess: ((Result, Context) -> Void)? = nil,
    onError: ((any Error, Context) -> Void)? = nil,
    onSettled: ((Swift.Result<Result, any Error>, Context) -> Void)? = nil
  ) -> OperationTask<Result> where Value == MutationState<Arguments, Result> {
    let cache = OptimisticCache(store: owningQueries)
    let context = optimistic.start(arguments, cache)
    let changes = cache.changes
    return mutate(
      arguments, .plain { try await perform(arguments) }, options: options, policy: policy, scope: scope,
      invalidates: invalidates, awaitsRefetches: awaitsRefetches,
      // The changes are kept before the queries the success invalidates refetch, so that the server's data those
      // refetches bring replaces them rather than being changed again.
      isolation: isolation, beforeInvalidating: { changes.keep() },
      // A call that joins a run under way (`.dedupe`) never sends its arguments: its changes go at once.
      onJoined: { changes.undo() }, onAttempt: onAttempt,
      onSuccess: { result in onSuccess?(result, context) },
      onError: { error in
        changes.undo()
        onError?(error, context)
      },
      onSettled: { result in
        if case .failure = result { changes.undo() }
        onSettled?(result, context)
      })
  }
}
