import Shared

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
  let result = await $list.sync(onError: { error in console.line("list: sync failed: \(error)", .failure) }).result
  if case .success(let synced) = result {
    console.line("list: synced \(synced.count) todos", .success)
  }
  $list.withLock { $0.upsert(Todo(id: 1, title: "Water the plants", isDone: true)) }
  _ = await $list.sync().result
  let done = counter.items.filter(\.isDone).count
  console.line("counter: \(counter.items.count) todos, \(done) done, pending \(counter.pendingIDs.count)")
  return "sync: \(counter.items.count) todos synced, \(counter.pendingIDs.count) pending"
}
