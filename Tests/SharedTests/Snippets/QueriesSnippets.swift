// The snippets about queries, as the DocC article "Queries" (UsingQueries.md) shows them, so that they compile.
// Stand-ins for the app's own types come first.
import SharedState

struct UsingQueriesArticle {
  // MARK: Stand-ins for an app's types

  struct Item: Sendable, Equatable {
    var id: Int
  }

  struct API: Sendable {
    var post: @Sendable (Int) async throws -> Post
    var feed: @Sendable () async throws -> [Item]
    var rename: @Sendable (Int, String) async throws -> Post
  }

  struct Cache: Sendable {
    var feed: [Item]?
  }

  func render<Value>(_ state: OperationState<Value>) {}

  // MARK: Overview

  func showPost(api: API) {
    @Shared(.query(["posts", 42]) { try await api.post(42) }) var post = OperationState<Post>()
    render(post)
  }

  // MARK: How fetches run

  func showPost(api: API, clock: any Clock<Duration>) {
    let options = QueryOptions(
      staleTime: .seconds(30),
      operation: QueryOptions.defaultOperation.timeout(.seconds(10)).clock(clock))
    @Shared(.query(["posts", 42], options: options) { try await api.post(42) }) var post = OperationState<Post>()
    render(post)
  }

  // MARK: Refetching is not loading

  func postScreen(_ post: OperationState<Post>) -> String {
    switch post.phase {
    case .idle, .loading: return "Loading…"  // a first load: nothing to show yet
    case .loaded(let loaded): return post.isFetching ? "\(loaded.title) (refreshing)" : loaded.title
    case .failed(let error, let previous): return "\(previous?.title ?? "No post") (\(error))"
    }
  }

  // MARK: Retries that respect users

  func showRetryingPost(api: API) {
    let retry = RetryPolicy(
      retries: 5,
      backoff: { retry in .seconds(retry * retry) },  // 1 s, 4 s, 9 s, ...
      shouldRetry: { error, failureCount in !(error is OperationTimeoutError) && failureCount < 3 })
    let options = QueryOptions(operation: QueryOptions.defaultOperation.retry(retry))
    @Shared(.query(["posts", 42], options: options) { try await api.post(42) }) var post = OperationState<Post>()
    if post.failureCount > 0 { print("Retrying after", post.failureCount, "failures") }
  }

  // MARK: Intermediate values

  func showFeed(api: API, cache: Cache) {
    @Shared(
      .query(["feed"]) { context in
        if let cached = cache.feed { context.yield(cached) }  // shown at once; still fetching
        return try await api.feed()
      }) var feed = OperationState<[Item]>()
    render(feed)
  }

  // MARK: Bounding the store

  func boundTheCache() {
    let store = SharedRegistry.current.queries
    store.capacity = 1_000
  }

  // MARK: Mutations

  func rename(api: API) {
    @Shared(.mutation("rename-42")) var rename = MutationState<String, Post>(historyLimit: 5)
    $rename.mutate("New title", .retry(.constant(retries: 2, delay: .seconds(1))), invalidates: [["posts"]]) {
      title, context in
      if context.attempt > 1 { print("retrying the rename") }
      return try await api.rename(42, title)
    }
  }
}

/// The documentation comments' snippets of the query, pagination and mutation types, with their own stand-ins.
struct QueryDocumentationSnippets {
  struct Post: Sendable, Equatable {
    var id: Int
  }

  struct Item: Sendable, Equatable {
    var id: Int
  }

  struct Todo: Sendable, Equatable {
    var title: String
  }

  struct API: Sendable {
    var post: @Sendable (Int) async throws -> Post
    var feed: @Sendable () async throws -> [Item]
    var feedPage: @Sendable (Int) async throws -> [Post]
    var addTodo: @Sendable (String) async throws -> Todo

    func feed(page: Int) async throws -> [Post] { try await feedPage(page) }
  }

  struct Cache: Sendable {
    var feed: [Item]?
  }

  func render<Value>(_ state: OperationState<Value>) {}

  // SharedKey.query(_:options:fileID:line:_:), without a context
  func showPost(api: API) {
    @Shared(.query(["posts", 42]) { try await api.post(42) }) var post = OperationState<Post>()
    render(post)
  }

  // SharedKey.query(_:options:fileID:line:_:), with a context
  func showFeed(api: API, cache: Cache) {
    @Shared(
      .query(["feed"]) { context in
        if let cached = cache.feed { context.yield(cached) }  // shown at once; still fetching
        return try await api.feed()
      }) var feed = OperationState<[Item]>()
    render(feed)
  }

  // PaginatedState
  func showFeed(api: API) {
    let nextPage: @Sendable ([Post], Int) -> Int? = { page, id in page.isEmpty ? nil : id + 1 }
    @Shared(.paginatedQuery(["feed"], initialPage: 0, nextPage: nextPage) { id in try await api.feed(page: id) })
    var feed = PaginatedState<Int, [Post]>()

    $feed.fetchNextPage()
    print(feed.pages, feed.hasNextPage)  // [[Post]], one element per page
  }

  // MutationState
  func addTodo(api: API) {
    @Shared(.inMemory("add-todo")) var addTodo = MutationState<String, Todo>()
    $addTodo.mutate("Water the plants", invalidates: [["todos"]]) { title in
      try await api.addTodo(title)
    }
    print(addTodo.history.last?.status ?? .idle)  // .pending, then .success
  }
}
