// The snippets about queries that QueriesSnippets.swift does not hold: the rest of the DocC article "Queries"
// (UsingQueries.md) and the documentation comments of query keys, options, the query store, pagination and
// mutations, as they show them, so that they compile; the ones that state a result run as tests.
import Foundation
import SharedState
import Testing

/// UsingQueries.md, "Naming queries" and "Invalidating by prefix".
struct UsingQueriesArticleKeys {
  struct API: Sendable {
    var post: @Sendable (Int) async throws -> Post
  }

  struct Network: Sendable {
    var reconnections: AsyncStream<Void>
  }

  let api: API

  func postQuery(id: Int, author: UUID) -> Query<OperationState<Post>> {
    .query(["posts", id, "by", author]) { try await api.post(id) }
  }

  func invalidatePosts() {
    SharedRegistry.current.queries.invalidate(matching: ["posts"])
  }

  func editOptimistically(network: Network) -> SharedSubscription {
    let store = SharedRegistry.current.queries
    store.update(["posts", 42], as: OperationState<Post>.self) { $0.value?.title = "Edited" }
    let subscription = store.refetchStale(on: network.reconnections, matching: ["posts"])
    return subscription
  }
}

/// The documentation comments of QueryStore, QueryOptions, pagination and mutations.
struct QueryCommentSnippets {
  struct Todo: Sendable, Equatable {
    var title: String
  }

  struct API: Sendable {
    var addTodo: @Sendable (String) async throws -> Todo
  }

  struct Network: Sendable {
    var reconnections: AsyncStream<Void>
  }

  func showSpinner() {}
  func toast(_ message: String) {}
  func log(_ message: String) {}

  // QueryStore
  func manageQueries(reconnections: AsyncStream<Void>) -> SharedSubscription {
    let store = SharedRegistry.current.queries
    store.invalidate(matching: ["posts"])  // every key that starts with ["posts"]
    store.update(["posts", 42], as: OperationState<Post>.self) { $0.value?.title = "Edited" }
    store.refetch(["posts", 42])  // fetch again now, joining a fetch under way
    let subscription = store.refetchStale(on: reconnections, matching: ["posts"])
    return subscription
  }

  // QueryStore.refetch(_:)
  func refetchPost() {
    SharedRegistry.current.queries.refetch(["posts", 42])
  }

  // QueryStore.refetchStale(on:matching:) and QueryStore.update(_:as:_:)
  func refetchOnReconnect(store: QueryStore, network: Network) -> SharedSubscription {
    store.update(["posts", 42], as: OperationState<Post>.self) { post in
      post.value?.title = "Edited"
    }
    let subscription = store.refetchStale(on: network.reconnections, matching: ["posts"])
    return subscription
  }

  // QueryOptions
  func makeOptions(clock: any Clock<Duration>) -> [QueryOptions] {
    var all: [QueryOptions] = []
    do {
      let options = QueryOptions(
        staleTime: .seconds(30),
        operation: .retry(.constant(retries: 2, delay: .seconds(1))).timeout(.seconds(10)))
      all.append(options)
    }
    do {
      let options = QueryOptions(staleTime: .seconds(30), operation: QueryOptions.defaultOperation.clock(clock))
      all.append(options)
    }
    return all
  }

  // MutationState and Shared.mutate
  func addTodo(api: API) {
    @Shared(.inMemory("add-todo")) var addTodo = MutationState<String, Todo>()
    if addTodo.status.isPending { showSpinner() }
    $addTodo.mutate("Water the plants", invalidates: [["todos"]]) { title in
      try await api.addTodo(title)
    } onSuccess: { todo in
      toast("Added \(todo.title)")
    }
    $addTodo.mutate("Water the plants") { title, context in
      if context.attempt > 1 { log("retrying the upload") }
      return try await api.addTodo(title)
    }
  }

  // PaginatedState and Shared's page fetches
  func loadPages() async throws {
    @Shared(.inMemory("feed")) var feed = PaginatedState<Int, [Post]>()
    if feed.status.isPending { showSpinner() }
    let task = $feed.fetchNextPage()
    _ = try await task?.value
    _ = try await $feed.refetchAll()?.value
  }

  func addPage(_ posts: [Post], to state: PaginatedState<Int, [Post]>) -> PaginatedState<Int, [Post]> {
    var feed = state
    feed.applySuccess(.next(id: 2, page: posts, hasNext: true))
    return feed
  }
}
