// The README's tour, as README.md shows it, so that it compiles. DocumentationSnippetTests checks that every
// snippet appears in this folder as written; each part sits in a namespace of its own, with its own stand-ins.
import Foundation
import SharedState

/// README.md, "A shared value".
enum ReadmeSharedValueTour {
  struct Settings: Codable, Sendable { var theme = "light" }

  func sharedValue(settingsURL: URL) {
    @Shared(.inMemory("counter")) var counter = 0  // every holder of "counter" sees one value
    $counter.withLock { $0 += 1 }  // the only way to write: under a lock, so no change is lost
    print(counter)  // a synchronous read

    let token = $counter.observe { value in print("now", value) }  // called after each change
    Task {
      for await value in $counter.values { print("latest", value) }  // the current value, then changes
    }
    token.cancel()

    @Shared(.fileStorage(settingsURL)) var settings = Settings()  // kept in a JSON file
    $settings.withLock { $0.theme = "dark" }  // saved within 0.25 s (or now: try await $settings.save())
  }
}

/// README.md, "Operation state".
enum ReadmeOperationTour {
  struct Post: Sendable, Equatable {
    var id: Int
    var title: String
  }

  func openPost(api: @escaping @Sendable (Int) async throws -> Post) {
    @Shared(.inMemory("post")) var post = OperationState<Post>()
    $post.run(.retry(.exponential(retries: 3))) {  // returns at once: every holder already sees .pending
      try await api(1)
    } onSuccess: { post in
      print("opened", post.title)
    } onError: { error in
      print("failed", error)  // the error also stays in the state until the next success
    }
  }

  func title(of post: OperationState<Post>) -> String {
    switch post.phase {  // the status, with what each case has to show
    case .idle: "Not loaded"
    case .loading(nil): "Loading… (attempt \(post.attempt))"
    case .loading(let previous?): "\(previous.title) (reloading…)"
    case .loaded(let loaded): loaded.title  // never optional
    case .failed(let error, let previous): "\(previous?.title ?? "No post"): \(error.localizedDescription)"
    }
  }
}

/// README.md, "A query" and "A mutation".
enum ReadmeQueryTour {
  struct Post: Sendable, Equatable {
    var id: Int
    var title: String
  }

  func postScreen(api: @escaping @Sendable (Int) async throws -> Post) {
    @Shared(.query(["posts", 42]) { try await api(42) }) var post = OperationState<Post>()
    switch post.phase {
    case .idle, .loading: print("first load")  // nothing fetched yet
    case .loaded(let shown) where post.isFetching: print("refreshing", shown.title)  // a refetch keeps the value
    case .loaded(let shown): print(shown.title)
    case .failed(let error, _): print("failed", error)
    }
    SharedRegistry.current.queries.invalidate(matching: ["posts"])  // held queries under ["posts"] refetch
  }

  func postHandler(id: Int, api: @escaping @Sendable (Int) async throws -> Post) async throws -> Post {
    try await SharedRegistry.current.queries.fetch(.query(["posts", id]) { try await api(id) })
  }

  func renameButton(api: @escaping @Sendable (Int, String) async throws -> Post) {
    @Shared(.mutation("rename-42")) var rename = MutationState<String, Post>()
    $rename.mutate("New title", invalidates: [["posts", 42]]) { title in
      try await api(42, title)  // after a success, the post's query is invalidated
    }
  }

  func tryAgainButton(_ rename: Shared<MutationState<String, Post>>) {
    if rename.wrappedValue.status.isError { rename.retryLatest() }  // the latest run, with its arguments
  }

  func launchOffline(
    folder: URL, network: ManualOnlineStatus, send: @escaping @Sendable (String, String) async throws -> Void
  ) async throws -> MutationQueue {
    // One source for both: fetches and mutations wait while offline, held stale queries refetch on a reconnect.
    SharedRegistry.current.queries.onlineStatus = network
    // Queries fetched on an earlier launch show at once; their staleTime decides whether they refetch.
    await SharedRegistry.current.queries.persistCache(
      QueryCachePersistence(persister: .file(folder.appendingPathComponent("queries.cache")), version: "1"))
    // Edits wait in a file while offline, survive a restart, and are sent in order once online.
    let queue = MutationQueue(file: folder.appendingPathComponent("mutations.json"), network: network)
    queue.register(.mutation("add-note"), invalidates: [["notes"]]) { (note: String, context) in
      try await send(note, context.idempotencyKey)  // the server applies each key once
    }
    try queue.restore()
    return queue
  }

  func addNote(_ note: String, queue: MutationQueue) async throws {
    try queue.enqueue("add-note", note)
    try await SharedRegistry.current.flush()  // before the program ends: every waiting write is on disk
  }
}
