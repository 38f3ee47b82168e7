// The snippets about mutations that survive a restart, as the documentation comments of MutationQueue and its types
// and the DocC article "Working offline" (WorkingOffline.md) show them, so that they compile.
import Foundation
import SharedState

struct MutationQueueSnippets {
  struct TodoAPI: Sendable {
    var add: @Sendable (String, String) async throws -> [String]
    func addTodo(_ title: String, idempotencyKey: String) async throws -> [String] {
      try await add(title, idempotencyKey)
    }
  }

  // MutationQueue; WorkingOffline.md, "Setting up the queue at launch" and "Queueing a change"
  func startQueue(folder: URL, network: ManualOnlineStatus, api: TodoAPI) throws -> MutationQueue {
    let queue = MutationQueue(file: folder.appendingPathComponent("mutations.json"), network: network)
    let insert = OptimisticMutation { (title: String, cache: OptimisticCache) in
      cache.update(["todos"], as: OperationState<[String]>.self) { todos in
        if todos.value?.contains(title) == false { todos.value?.append(title) }
      }
    }
    queue.register(.mutation("add-todo"), invalidates: [["todos"]], optimistic: insert) {
      (title: String, context) in
      try await api.addTodo(title, idempotencyKey: context.idempotencyKey)
    }
    try queue.restore()  // the entries of earlier runs: their optimistic changes show again
    return queue
  }

  func addTodo(_ title: String, queue: MutationQueue) throws {
    try queue.enqueue("add-todo", title)  // shown at once; sent when online, in order
  }

  // MutationQueue.init(file:network:retryDelay:retry:clock:)
  func makeQueue() {
    let folder = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask)[0]
    let queue = MutationQueue(file: folder.appendingPathComponent("mutations.json"), network: ManualOnlineStatus())
    _ = queue
  }

  // MutationQueue.state
  func showPending(_ queue: MutationQueue) -> ObserverToken {
    queue.state.observe { state in
      print(state.entries.count, "pending", state.isPaused ? "(offline)" : "")
    }
  }

  // MutationQueue.register(_:invalidates:awaitsRefetches:retry:_:)
  struct Plain {
    func register(on queue: MutationQueue, api: TodoAPI) {
      queue.register(.mutation("add-todo"), invalidates: [["todos"]]) { (title: String, context) in
        try await api.addTodo(title, idempotencyKey: context.idempotencyKey)
      }
    }
  }

  // MutationQueue.register(_:invalidates:awaitsRefetches:retry:optimistic:_:)
  struct Optimistic {
    func register(on queue: MutationQueue, api: TodoAPI) {
      let insert = OptimisticMutation { (title: String, cache: OptimisticCache) in
        cache.update(["todos"], as: OperationState<[String]>.self) { todos in
          if todos.value?.contains(title) == false { todos.value?.append(title) }
        }
      }
      queue.register(.mutation("add-todo"), invalidates: [["todos"]], optimistic: insert) {
        (title: String, context) in
        try await api.addTodo(title, idempotencyKey: context.idempotencyKey)
      }
    }
  }

  // MutationQueue.enqueue(_:_:) with a key
  func rename(post id: Int, to title: String, queue: MutationQueue) throws {
    try queue.enqueue(["posts", id, "rename"], title)  // run by the mutation registered under ["posts"]
  }

  // MutationQueue.enqueue(_:_:) with a typed key
  struct Typed {
    enum Mutations {
      static let addTodo = MutationKey<String, [String]>("add-todo")
    }

    func addTodo(_ title: String, queue: MutationQueue) throws {
      try queue.enqueue(Mutations.addTodo, title)
    }
  }

  // MutationQueue.discard(_:)
  func giveUp(on entry: QueuedMutation, queue: MutationQueue) {
    if entry.failureCount > 0 { queue.discard(entry.id) }
  }

  // MutationQueue.flush(); WorkingOffline.md, "Sending each change once"
  func addAndSave(_ title: String, queue: MutationQueue) async throws {
    try queue.enqueue("add-todo", title)
    try await queue.flush()  // now it survives a kill
  }

  // MutationQueue.restore()
  func launch(queue: MutationQueue, api: TodoAPI) {
    queue.register(.mutation("add-todo"), invalidates: [["todos"]]) { (title: String, context) in
      try await api.addTodo(title, idempotencyKey: context.idempotencyKey)
    }
    do {
      let restored = try queue.restore()
      print(restored.count, "changes from the last run")
    } catch {
      print(error)  // the file was unreadable: moved aside, and the queue started empty
    }
  }

  // MutationQueueContext; WorkingOffline.md, "Sending each change once"
  func registerAddTodo(on queue: MutationQueue, api: TodoAPI) {
    queue.register(.mutation("add-todo"), invalidates: [["todos"]]) { (title: String, context) in
      try await api.addTodo(title, idempotencyKey: context.idempotencyKey)
    }
  }

  // MutationQueueContext.init(id:key:attempt:enqueuedAt:)
  func ownContext() {
    let context = MutationQueueContext(id: UUID(), key: ["add-todo"], attempt: 1, enqueuedAt: Date())
    _ = context
  }

  // MutationQueueError
  func add(_ title: String, queue: MutationQueue) {
    do {
      try queue.enqueue("add-todo", title)
    } catch {
      print(error)  // MutationQueueError.notRegistered(key: ["add-todo"]) if nothing runs it
    }
  }

  // QueuedMutation
  func pendingList(_ queue: MutationQueue) -> [String] {
    queue.state.wrappedValue.entries.map { entry in
      let title = (try? entry.arguments(as: String.self)) ?? "?"
      switch entry.status {
      case .waiting: return "\(title): waiting"
      case .running: return "\(title): sending"
      case .waitingToRetry: return "\(title): failed (\(entry.lastError?.description ?? "")), will retry"
      case .blocked(let reason): return "\(title): \(reason)"
      case .failed: return "\(title): failed for good (\(entry.lastError?.description ?? ""))"
      }
    }
  }

  // QueuedMutation.arguments(as:)
  func shownTitle(of entry: QueuedMutation) throws -> String {
    let title = try entry.arguments(as: String.self)
    return title
  }

  // MutationQueueState; WorkingOffline.md, "Showing what waits"
  func banner(_ state: MutationQueueState) -> String? {
    guard !state.entries.isEmpty else { return nil }
    if state.isPaused { return "\(state.entries.count) changes wait for the network" }
    return "Sending \(state.entries.count) changes…"
  }
}

extension MutationQueueSnippets {
  struct PostRename: Codable, Sendable {
    var id: Int
    var title: String
  }

  struct PostAPI: Sendable {
    var send: @Sendable (PostRename, String) async throws -> Void
    func rename(_ rename: PostRename, idempotencyKey: String) async throws {
      try await send(rename, idempotencyKey)
    }
  }

  // QueuedMutationRetryPolicy
  struct PolicyForHTTP {
    struct HTTPError: Error {
      var status: Int
    }

    let policy = QueuedMutationRetryPolicy(maxAttempts: 5) { error in
      guard let status = (error as? HTTPError)?.status else { return false }
      return (400..<500).contains(status) && status != 408 && status != 429
    }
  }

  // QueuedMutationRetryPolicy.init(maxAttempts:isPermanent:)
  func policies() -> [QueuedMutationRetryPolicy] {
    typealias HTTPError = PolicyForHTTP.HTTPError
    let threeTries = QueuedMutationRetryPolicy(maxAttempts: 3)
    let refusedForGood = QueuedMutationRetryPolicy { error in (error as? HTTPError)?.status == 422 }
    return [threeTries, refusedForGood]
  }

  // QueuedMutationRetryPolicy.forever
  func queueThatNeverGivesUp(url: URL, network: ManualOnlineStatus) -> MutationQueue {
    let queue = MutationQueue(file: url, network: network, retry: .forever)
    return queue
  }

  // MutationQueue.retry(_:)
  func retryFailed(_ queue: MutationQueue) {
    for entry in queue.state.wrappedValue.failed {
      queue.retry(entry.id)
    }
  }

  // MutationQueueState.failed
  func failedList(_ state: MutationQueueState) -> [String] {
    state.failed.map { "\($0.key): \($0.lastError?.description ?? "")" }
  }

  // WorkingOffline.md, "Giving up"
  struct GivingUp {
    struct HTTPError: Error {
      var status: Int
    }

    func registerRename(on queue: MutationQueue, api: PostAPI) {
      // A 4xx is the server's final word (but 408 and 429 ask to try again later); anything else is retried, 5 times
      // at most.
      let giveUp = QueuedMutationRetryPolicy(maxAttempts: 5) { error in
        guard let status = (error as? HTTPError)?.status else { return false }
        return (400..<500).contains(status) && status != 408 && status != 429
      }
      queue.register(.mutation("rename-post"), invalidates: [["posts"]], retry: giveUp) {
        (rename: PostRename, context) in
        try await api.rename(rename, idempotencyKey: context.idempotencyKey)
      }
    }
  }

  func failedChanges(_ queue: MutationQueue) -> [(title: String, retry: () -> Void, discard: () -> Void)] {
    queue.state.wrappedValue.failed.map { entry in
      let reason = entry.lastError?.description ?? "refused"
      return (
        "\(entry.key): \(reason)",
        { queue.retry(entry.id) },
        { queue.discard(entry.id) }
      )
    }
  }
}
