import SharedState

/// A post query shared by two screens, a rename that invalidates it, and a failing fetch that retries.
@MainActor
func runQueriesScenario() async -> String {
  let environment = DemoEnvironment.current
  let console = environment.console
  let backend = environment.content
  console.heading("Queries: one shared fetch, an invalidation, retries")
  // Time, for staleness and retry delays, is the environment's clock.
  let options = QueryOptions(
    staleTime: .seconds(30), operation: .retry(.constant(retries: 2, delay: .zero)).clock(environment.clock))
  let postQuery: Query<OperationState<Post>> = .query(["posts", 1], options: options) { try await backend.post(1) }

  @Shared(postQuery) var detail = OperationState<Post>()
  @Shared(postQuery) var sidebar = OperationState<Post>()
  // Two `for await` consumers of the same query, until it shows the renamed post or the scenario stops them.
  let watchers = (0..<2).map { index in
    Task { @MainActor in
      // How many states a loop sees depends on when it starts; where it ends does not.
      var last: String?
      for await state in $detail.values(buffering: .all) {
        last = state.value?.title ?? last
        if state.status.isSuccess && state.value?.title.hasPrefix("Renamed") == true {
          return "for-await loop \(index + 1) over the post followed it to \"\(last ?? "")\""
        }
      }
      return "for-await loop \(index + 1) over the post was stopped at \(last.map { "\"\($0)\"" } ?? "no post")"
    }
  }
  let first = await settled($detail)
  let firstFetches = await backend.postFetches
  switch sidebar.phase {
  case .loaded(let post):
    console.line("detail and sidebar: \"\(post.title)\" (\(fetches(firstFetches)) for both)", .success)
  case .failed(let error, _):
    console.line("detail and sidebar: could not load the post: \(error) (\(fetches(firstFetches)) for both)", .failure)
  case .idle, .loading:
    console.line("detail and sidebar: could not load the post (\(fetches(firstFetches)) for both)", .failure)
  }

  @Shared(.inMemory("rename-post")) var rename = MutationState<String, Post>(historyLimit: 3)
  // Subscribed before the rename, so that the refetch it causes cannot slip by unseen.
  var sidebarStates = $sidebar.values(buffering: .all).makeAsyncIterator()
  let renamed = await $rename.mutate("Renamed: shared state", invalidates: [["posts"]]) { title in
    try await backend.rename(post: 1, to: title)
  }.result
  var refetched = false
  switch renamed {
  case .success:
    let after = await refetchSettled(&sidebarStates) { refetching in
      // A refetch is not a load: the sidebar keeps its post and its status while the new one is fetched.
      if case .loaded(let post) = refetching.phase {
        console.line(
          "while it refetches: the sidebar still shows \"\(post.title)\" "
            + "(status \(refetching.status.rawValue), isFetching = \(refetching.isFetching))")
      }
    }
    switch after.phase {
    case .loaded(let post) where post.title.hasPrefix("Renamed"):
      refetched = true
      console.line("after the rename: the sidebar refetched \"\(post.title)\"", .success)
    case .loaded(let post):
      console.line("after the rename: the sidebar still shows \"\(post.title)\"", .failure)
    case .failed(let error, _):
      console.line("after the rename: the sidebar could not refetch: \(error)", .failure)
    case .idle, .loading:
      console.line("after the rename: the sidebar shows no post", .failure)
    }
  case .failure(let error):
    console.line("rename: \(error); the sidebar keeps what it had", .failure)
  }
  await awaitPosts(postQuery, options: options)
  for watcher in watchers {
    // A consumer stops by itself once it sees the renamed post; otherwise it is stopped here.
    if !refetched { watcher.cancel() }
    console.line(await watcher.value, .muted)
  }

  let feed = await publishToFeed(options: options)

  await backend.failNextPostFetches(2)
  let attempts = $detail.observe { state in
    // A retry begins (an attempt after the last failure); the failure itself shows as `failureCount` first.
    if state.status.isPending && state.attempt > 1 && state.failureCount < state.attempt {
      console.line("detail: Retrying… (attempt \(state.attempt) of \(options.operation.retry.retries + 1))")
    }
  }
  _ = await $detail.run(options.operation) {
    try await backend.post(1)
  } onError: { error in
    console.line("detail: gave up: \(error)", .failure)
  }.result
  attempts.cancel()
  console.line(
    "detail: \(detail.status.rawValue) after \(detail.attempt) attempts", detail.status.isSuccess ? .success : .failure)

  let fetched = first.status.isSuccess ? "\(fetches(firstFetches)) shared by both screens" : "the shared fetch failed"
  let afterRename: String
  switch (renamed, refetched) {
  case (.success, true): afterRename = "refetched after a rename"
  case (.success, false): afterRename = "the refetch after a rename failed"
  case (.failure, _): afterRename = "the rename failed"
  }
  let retried =
    detail.status.isSuccess ? "recovered after \(detail.attempt) attempts" : "gave up after \(detail.attempt) attempts"
  return "queries: \(fetched), \(afterRename), \(retried); \(feed)"
}

/// Awaits posts the way a server's handler does, with `store.fetch`: the fresh post the screens hold returns at once
/// from the cache, and three callers of a post nobody fetched yet share one fetch. Counts the backend's fetches.
@MainActor
private func awaitPosts(_ postQuery: Query<OperationState<Post>>, options: QueryOptions) async {
  let environment = DemoEnvironment.current
  let console = environment.console
  let backend = environment.content
  let store = SharedRegistry.current.queries
  var before = await backend.postFetches
  do {
    let post = try await store.fetch(postQuery)
    let fetched = await backend.postFetches - before
    let how = fetched == 0 ? "at once, from the cache (no fetch)" : "after \(fetches(fetched))"
    console.line("awaiting post 1: \"\(post.title)\" \(how)", .success)
  } catch {
    console.line(
      "awaiting post 1: \(describe(error)) after \(fetches(await backend.postFetches - before))", .failure)
  }

  before = await backend.postFetches
  let coldQuery: Query<OperationState<Post>> = .query(["posts", 2], options: options) { try await backend.post(2) }
  // `nil` for a caller whose fetch failed.
  let titles = await withTaskGroup(of: String?.self) { group in
    for _ in 0..<3 {
      group.addTask { try? await store.fetch(coldQuery).title }
    }
    var titles: [String?] = []
    for await title in group { titles.append(title) }
    return titles
  }
  let fetched = fetches(await backend.postFetches - before)
  let failures = titles.filter { $0 == nil }.count
  if failures == 0, let title = titles.first ?? nil, titles.allSatisfy({ $0 == title }) {
    console.line("3 callers await post 2 at once: \"\(title)\" (\(fetched) for the three)", .success)
  } else {
    console.line("3 callers await post 2 at once: \(failures) of 3 failed (\(fetched) for the three)", .failure)
  }
}

/// "1 fetch", "3 fetches".
private func fetches(_ count: Int) -> String {
  count == 1 ? "1 fetch" : "\(count) fetches"
}

/// An error for the narration, or "no error" when there is none.
func describe(_ error: (any Error)?) -> String {
  error.map { "\($0)" } ?? "no error"
}

/// Waits until the shared operation state settles, on success or on error, with nothing in flight, and returns it.
@MainActor
func settled<Value: Sendable>(_ shared: Shared<OperationState<Value>>) async -> OperationState<Value> {
  for await state in shared.values where (state.status.isSuccess || state.status.isError) && !state.isFetching {
    return state
  }
  return shared.wrappedValue
}

/// Reads states until a fetch that starts after the iteration began has settled, on success or on error, and
/// returns that state; a successful state that already shows what was awaited needs no new fetch. Tells
/// `onRefetch` the first state that shows the fetch in flight over a value already shown (a background refetch).
@MainActor
private func refetchSettled(
  _ states: inout Shared<OperationState<Post>>.Values.AsyncIterator,
  onRefetch: (OperationState<Post>) -> Void
) async -> OperationState<Post> {
  var sawFetch = false
  var last = OperationState<Post>()
  while let state = await states.next(isolation: #isolation) {
    last = state
    if state.isFetching && !sawFetch {
      sawFetch = true
      if state.value != nil { onRefetch(state) }
    }
    if state.status.isSuccess && !state.isFetching && state.value?.title.hasPrefix("Renamed") == true { return state }
    if sawFetch && !state.isFetching { return state }
  }
  return last
}
