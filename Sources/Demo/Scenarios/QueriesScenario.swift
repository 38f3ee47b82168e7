import Shared

/// A post query shared by two screens, a rename that invalidates it, and a failing fetch that retries.
@MainActor
func runQueriesScenario() async -> String {
  let environment = DemoEnvironment.current
  let console = environment.console
  let backend = environment.content
  console.heading("Queries: fetched once, invalidated, retried")
  let options = QueryOptions(
    staleTime: .seconds(30), retry: .constant(retries: 2, delay: .zero), clock: ContinuousClock())
  let postQuery: Query<OperationState<Post>> = .query(["posts", 1], options: options) { try await backend.post(1) }

  @Shared(postQuery) var detail = OperationState<Post>()
  @Shared(postQuery) var sidebar = OperationState<Post>()
  // Two `for await` consumers of the same query.
  let watchers = (0..<2).map { index in
    Task { @MainActor in
      var seen = 0
      for await state in $detail.values(buffering: .all) {
        seen += 1
        if state.isSuccess && state.value?.title.hasPrefix("Renamed") == true { break }
      }
      return "consumer \(index + 1) saw \(seen) states"
    }
  }
  await waitFor($detail) { $0.isSuccess }
  console.line("detail and sidebar: \"\(sidebar.value?.title ?? "")\" (one fetch for both)", .success)

  @Shared(.inMemory("rename-post")) var rename = MutationState<String, Post>(historyLimit: 3)
  _ = await $rename.mutate("Renamed: shared state", invalidates: [["posts"]]) { title in
    try await backend.rename(post: 1, to: title)
  }.result
  await waitFor($sidebar) { $0.isSuccess && $0.value?.title.hasPrefix("Renamed") == true }
  console.line("after the rename: the sidebar refetched \"\(sidebar.value?.title ?? "")\"", .success)
  for watcher in watchers { console.line(await watcher.value, .muted) }

  await backend.failNextPostFetches(2)
  let attempts = $detail.observe { state in
    if state.isLoading && state.attempt > 1 {
      console.line("detail: Retrying… (attempt \(state.attempt) of \(options.retry.retries + 1))")
    }
  }
  _ = await $detail.run(retry: options.retry) {
    try await backend.post(1)
  } onError: { error in
    console.line("detail: gave up: \(error)", .failure)
  }.result
  attempts.cancel()
  console.line(
    "detail: \(detail.status.rawValue) after \(detail.attempt) attempts", detail.isSuccess ? .success : .failure)
  return "queries: 1 shared fetch, refetched after a rename, recovered after \(detail.attempt) attempts"
}

/// Waits until the shared value meets `condition`.
@MainActor
func waitFor<Value: Sendable>(_ shared: Shared<Value>, _ condition: (Value) -> Bool) async {
  for await value in shared.values where condition(value) { return }
}
