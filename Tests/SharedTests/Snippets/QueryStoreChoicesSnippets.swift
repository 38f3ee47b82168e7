// The snippets about invalidation choices, cancelling, resetting and removing queries, a store's default options,
// hooks and activity, as the DocC article "Queries" (UsingQueries.md) and the documentation comments of
// QueryFilter, QueryRefetchScope, QueryStore+Filters, QueryStore+Settings, QueryHooks, QueryHookSubject and QueryActivity
// show them, so that they compile.
import SharedState

struct QueryStoreChoicesSnippets {
  struct Metrics: Sendable {
    func increment(_ name: String) {}
  }

  let metrics = Metrics()

  func log(_ message: String) {}
  func showSpinner() {}
  func updateSpinner(_ isIdle: Bool) {}

  // QueryFilter
  func filters() {
    let store = SharedRegistry.current.queries
    store.invalidate(.prefix(["posts"]))  // ["posts"], ["posts", 42], ["posts", 42, "comments"]
    store.invalidate(.exactly(["posts", 42]))  // that query only
    store.remove(.prefix(["posts"]).satisfying { $0.parts.count == 2 })  // ["posts", 42], not its comments
  }

  func filterMembers(store: QueryStore) {
    let filter = QueryFilter(key: ["posts"], isExact: false) { key in key.parts.count == 2 }
    _ = filter
    store.invalidate(.prefix(["posts"]))
    store.invalidate(.exactly(["posts", 42]))
    store.cancel(.all)
    store.invalidate(.prefix(["posts"]).satisfying { key in key.parts.last as? Int == 42 })
  }

  // QueryRefetchScope
  func refetchChoices(store: QueryStore) {
    store.invalidate(.prefix(["posts"]), refetching: .all)  // warm the cache for screens not shown yet
    store.invalidate(.prefix(["posts"]), refetching: .none)  // stale now, fetched by their next holder or caller
  }

  // QueryStore.invalidate(_:refetching:); UsingQueries.md, "Choosing what an invalidation reaches"
  func invalidationChoices() {
    let store = SharedRegistry.current.queries
    store.invalidate(.exactly(["posts", 42]))  // that post only, not its comments
    store.invalidate(.prefix(["posts"]), refetching: .all)  // held or not, fetch them now
    store.invalidate(.prefix(["posts"]).satisfying { key in key.parts.count == 2 }, refetching: .none)
  }

  // QueryStore.cancel(_:), remove(_:); UsingQueries.md, "Cancelling, resetting and removing queries"
  func cancelAndRemove(store: QueryStore, userID: Int) {
    store.cancel(.prefix(["posts"]))  // before an optimistic update, so no fetch overwrites it
    store.update(["posts", 42], as: OperationState<Post>.self) { $0.value?.title = "Edited" }

    store.remove(.prefix(["users", userID]))  // after signing out: nothing of the user stays cached
  }

  // QueryStore.reset(_:); UsingQueries.md, "Cancelling, resetting and removing queries"
  func reset(store: QueryStore) {
    store.reset(.prefix(["posts"]))  // after switching accounts: show a first load, not the other account's posts
  }

  // QueryStore.defaultOptions, hooks, activity
  func settings() {
    let store = SharedRegistry.current.queries
    store.defaultOptions = QueryOptions(staleTime: .seconds(30), gcTime: .seconds(60))
  }

  func hookOnError(store: QueryStore) {
    store.hooks.onError = { subject, error in log("\(subject) failed: \(error)") }
  }

  func spinner() {
    let activity = SharedRegistry.current.queries.activity
    if activity.wrappedValue.fetchingQueries > 0 { showSpinner() }
    let token = activity.observe { activity in updateSpinner(activity.isIdle) }
    token.cancel()
  }

  // QueryHooks; UsingQueries.md, "One store's options, hooks and activity"
  func hooks() {
    let store = SharedRegistry.current.queries
    store.hooks = QueryHooks(
      onError: { subject, error in log("\(subject) failed: \(error)") },
      onSettled: { _, _ in metrics.increment("requests") })
  }

  func hooksValue() {
    let hooks = QueryHooks(onError: { subject, error in log("\(subject) failed: \(error)") })
    _ = hooks
  }

  // QueryHookSubject
  func hookSubjects(store: QueryStore) {
    store.hooks.onError = { subject, error in
      switch subject {
      case .query(let key, _): log("fetching \(key) failed: \(error)")
      case .mutation(let arguments, _): log("a mutation with \(arguments) failed: \(error)")
      }
    }
  }

  // QueryActivity
  func watchActivity(store: QueryStore) async {
    for await activity in store.activity.values {
      print("fetching \(activity.fetchingQueries), saving \(activity.runningMutations)")
    }
  }

  func activityMembers(store: QueryStore) {
    let quiet = QueryActivity()
    assert(quiet.isIdle)
    if !store.activity.wrappedValue.isIdle { showSpinner() }
  }

  // UsingQueries.md, "One store's options, hooks and activity"
  func configureQueries(userID: Int) {
    let store = SharedRegistry.current.queries
    store.defaultOptions = QueryOptions(staleTime: .seconds(30))  // for queries made without options
    store.hooks = QueryHooks(onError: { subject, error in print("\(subject) failed: \(error)") })
    store.invalidate(.exactly(["posts", 42]), refetching: .all)  // one key; held or not, fetch now
    store.cancel(.prefix(["posts"]))  // stop fetches under way, back to the status before
    store.reset(.prefix(["feed"]))  // no value, no error; held ones load again
    store.remove(.prefix(["users", userID]))  // forget a user's queries
    _ = store.activity.wrappedValue.fetchingQueries  // also observable: a global spinner
  }
}
