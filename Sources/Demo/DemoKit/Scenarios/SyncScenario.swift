import SharedState

/// Todos edited locally stay pending until a sync pushes them.
@MainActor
func runSyncScenario() async -> String {
  let console = DemoEnvironment.current.console
  console.heading("Sync: offline edits, then a sync")
  @Shared(.inMemory("todos")) var list = SyncedCollection<Todo>()
  @Shared(.inMemory("todos")) var counter = SyncedCollection<Todo>()

  $list.withLock { todos in
    todos.upsert(Todo(id: 1, title: "Water the plants"))
    todos.upsert(Todo(id: 2, title: "Write the release notes"))
  }
  console.line(
    "list: 2 todos added; the counter sees \(counter.pendingIDs.count) pending, isSyncing = \(counter.isSyncing)")
  var failedSyncs = 0
  // The todos the server holds after the latest sync that succeeded.
  var onServer: [Todo]?
  let first = await $list.sync(onError: { error in console.line("list: sync failed: \(error)", .failure) }).result
  switch first {
  case .success(let synced):
    onServer = synced
    console.line("list: synced \(synced.count) todos", .success)
  case .failure:
    failedSyncs += 1
  }
  $list.withLock { $0.upsert(Todo(id: 1, title: "Water the plants", isDone: true)) }
  let second = await $list.sync(onError: { error in console.line("list: sync failed: \(error)", .failure) }).result
  switch second {
  case .success(let synced): onServer = synced
  case .failure: failedSyncs += 1
  }
  let done = counter.items.filter(\.isDone).count
  console.line("counter: \(counter.items.count) todos, \(done) done, pending \(counter.pendingIDs.count)")
  let synced = onServer.map { "\($0.count) todos synced" } ?? "nothing synced"
  let failures = failedSyncs == 0 ? "" : ", \(failedSyncs) of 2 syncs failed"
  return "sync: \(synced), \(counter.pendingIDs.count) pending\(failures)"
}
