// The snippets about filters by what a query shows, refetching and writing many queries by a filter, defaults per
// key prefix, and reading mutations across keys, as the DocC article "Queries" (UsingQueries.md) and the
// documentation comments of QueryFilter, QueryFilter+Conditions, QueryStore+Filters, QueryStore+SetQueriesData,
// QueryUpdateReport, QueryStore+Settings, MutationFilter, MutationSnapshot and QueryStore+MutationState show them, so
// that they compile.
import SharedState

struct QueryFilterSnippets {
  func showSpinner() {}
  func showSavingBadge() {}

  // QueryFilter
  func filterOverview() {
    let store = SharedRegistry.current.queries
    store.invalidate(.prefix(["posts"]))  // ["posts"], ["posts", 42], ["posts", 42, "comments"]
    store.invalidate(.exactly(["posts", 42]))  // that query only
    store.remove(.prefix(["posts"]).satisfying { $0.parts.count == 2 })  // ["posts", 42], not its comments
    store.refetch(.prefix(["posts"]).only(.active).stale())  // the held posts whose value is stale
    store.reset(.all.matching { query in query.status == .error })  // every query that shows an error
  }

  func filterConditions(store: QueryStore) {
    store.invalidate(.prefix(["posts"]).only(.inactive), refetching: .none)  // what no screen shows
    store.refetch(.prefix(["posts"]).stale())
    store.cancel(.all.fetchStatus(.paused))  // give up the fetches waiting for the network
    store.invalidate(.prefix(["posts"]).matching { query in query.status == .error && query.isActive })
    assert(!QueryFilter.prefix(["posts"]).satisfying { $0.parts.count == 2 }.hasQueryConditions)
    store.invalidate(.prefix(["posts"]).only(.active))
    let paused = store.fetchingCount(.all.fetchStatus(.paused))
    let failedPosts = QueryFilter.prefix(["posts"]).matching { query in
      query.status == .error && !query.isActive
    }
    let failed = QueryFilter.all.matching { $0.status == .error }
    let waiting = QueryFilter.all.matching { $0.fetchStatus == .paused }
    _ = (paused, failedPosts, failed, waiting)
  }

  // QueryStore.refetch(_:) by a filter, fetchingCount(_:)
  func refetchByFilter() {
    let store = SharedRegistry.current.queries
    store.refetch(.prefix(["posts"]))  // every cached post, held or not
    store.refetch(.prefix(["posts"]).only(.active).stale())  // the stale ones a screen shows
    store.refetch(.all.matching { query in query.status == .error })
  }

  func fetchingCount() {
    let store = SharedRegistry.current.queries
    if store.fetchingCount(.prefix(["posts"]).only(.active)) > 0 { showSpinner() }
  }

  // UsingQueries.md, "Filtering by what a query shows"
  func filteringByWhatAQueryShows() {
    let store = SharedRegistry.current.queries
    store.refetch(.prefix(["posts"]).only(.active).stale())  // what a screen shows, if stale
    store.reset(.all.matching { query in query.status == .error })  // every query showing an error
    store.cancel(.all.fetchStatus(.paused))  // fetches waiting for the network
    let loadingPosts = store.fetchingCount(.prefix(["posts"]).only(.active))  // TanStack's isFetching(filters)
    _ = loadingPosts
  }

  // QueryStore.setQueriesData(_:as:_:), QueryUpdateReport
  func setQueriesData() {
    let store = SharedRegistry.current.queries
    let report = store.setQueriesData(.prefix(["posts"]), as: OperationState<Post>.self) { key, post in
      post.value?.title += " (edited)"
    }
    print("edited \(report.count) posts; skipped \(report.mismatched)")
  }

  func updateReport(store: QueryStore) {
    let report = store.setQueriesData(.prefix(["posts"]), as: OperationState<Post>.self) { _, post in
      post.value?.title += " (edited)"
    }
    assert(report.mismatched.isEmpty, "not posts: \(report.mismatched)")
    let written = report.count
    _ = written
  }

  // QueryStore.setQueryDefaults(_:forKeysUnder:), queryDefaults(for:), setMutationDefaults, mutationDefaults(for:)
  func queryDefaults() {
    let store = SharedRegistry.current.queries
    store.setQueryDefaults(QueryOptions(staleTime: .seconds(300)), forKeysUnder: ["settings"])
    store.setQueryDefaults(QueryOptions(staleTime: .zero), forKeysUnder: ["settings", "live"])
  }

  func readDefaults() {
    let staleTime = SharedRegistry.current.queries.queryDefaults(for: ["settings", "theme"]).staleTime
    let retry = SharedRegistry.current.queries.mutationDefaults(for: ["posts", 42, "rename"]).retry
    _ = (staleTime, retry)
  }

  func mutationDefaults() {
    let store = SharedRegistry.current.queries
    store.setMutationDefaults(.retry(.exponential(retries: 3)), forKeysUnder: ["posts"])
  }

  // UsingQueries.md, "Defaults per key prefix"
  func configureDefaults() {
    let store = SharedRegistry.current.queries
    store.setQueryDefaults(QueryOptions(staleTime: .seconds(300)), forKeysUnder: ["settings"])
    store.setQueryDefaults(QueryOptions(staleTime: .zero), forKeysUnder: ["settings", "live"])
    store.setMutationDefaults(.retry(.constant(retries: 2, delay: .seconds(1))), forKeysUnder: ["posts"])
  }

  // MutationFilter, MutationSnapshot, QueryStore.mutations(matching:), runningMutationCount(_:)
  func mutationFilters() {
    let store = SharedRegistry.current.queries
    let pending = store.mutations(matching: .prefix(["posts"]).status(.pending))
    let failedRenames = store.mutations(matching: .exactly(["posts", 42, "rename"]).status(.error))
    let long = store.mutations(matching: .all.matching { $0.arguments(as: String.self)?.count ?? 0 > 100 })
    _ = (pending, failedRenames, long)
  }

  func mutationFilterMembers(store: QueryStore) {
    let filter = MutationFilter(key: ["posts"], isExact: false)
    let posts = store.mutations(matching: .prefix(["posts"]))
    let renames = store.mutations(matching: .exactly(["posts", 42, "rename"]))
    let everything = store.mutations(matching: .all)
    let running = store.mutations(matching: .all.status(.pending))
    let toPost42 = MutationFilter.prefix(["posts"]).matching { $0.key.parts.dropFirst().first as? Int == 42 }
    _ = (filter, posts, renames, everything, running, toPost42)
  }

  func mutationSnapshots(snapshot: MutationSnapshot) {
    let saving = SharedRegistry.current.queries.mutations(matching: .prefix(["posts"]).status(.pending))
    let titles = saving.compactMap { $0.arguments(as: String.self) }  // the titles being saved, shown at once
    let title = snapshot.arguments(as: String.self)
    let saved = snapshot.result(as: Post.self)
    _ = (titles, title, saved)
  }

  func listMutations() {
    let store = SharedRegistry.current.queries
    let saving = store.mutations(matching: .prefix(["posts"]).status(.pending))
    for run in saving {
      print(run.key, run.arguments(as: String.self) ?? "-", run.startedAt)
    }
  }

  func runningMutations() {
    if SharedRegistry.current.queries.runningMutationCount(.prefix(["posts"])) > 0 { showSavingBadge() }
  }

  // UsingQueries.md, "Mutations across keys"
  func mutationsAcrossKeys() {
    let store = SharedRegistry.current.queries
    let saving = store.mutations(matching: .prefix(["posts"]).status(.pending))
    let pendingTitles = saving.compactMap { $0.arguments(as: String.self) }
    let busy = store.runningMutationCount(.prefix(["posts"]))  // TanStack's isMutating(filters)
    _ = (pendingTitles, busy)
  }

  // UsingQueries.md, "Mutations across keys", the live form
  func followMutationsAcrossKeys(store: QueryStore) -> ObserverToken {
    let saving = store.mutationStates(matching: .prefix(["posts"]).status(.pending))
    let token = saving.observe { runs in print("saving", runs.count) }  // a live isMutating(filters)
    return token
  }

  // QueryStore.mutationStates(matching:)
  func followMutations() -> ObserverToken {
    let saving = SharedRegistry.current.queries.mutationStates(matching: .prefix(["posts"]).status(.pending))
    let token = saving.observe { runs in
      print("saving", runs.compactMap { $0.arguments(as: String.self) })  // the titles being saved
    }
    return token
  }
}

extension QueryFilterSnippets {
  // UsingQueries.md, "Writing the cache"
  func markAllEdited() {
    let report = SharedRegistry.current.queries.setQueriesData(.prefix(["posts"]), as: OperationState<Post>.self) {
      _, post in post.value?.title += " (edited)"
    }
    print("edited \(report.count); other types: \(report.mismatched)")
  }
}
