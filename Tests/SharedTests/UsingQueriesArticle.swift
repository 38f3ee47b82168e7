// The code of the DocC article "Queries" (UsingQueries.md), as written there, so that it compiles. Stand-ins for the
// app's own types come first.
import SharedState

enum UsingQueriesArticle {
  // MARK: Stand-ins for an app's types

  struct Post: Sendable, Equatable {
    var id: Int
    var title: String
  }

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

  static func render<Value>(_ state: OperationState<Value>) {}

  // MARK: Overview

  static func showPost(api: API) {
    @Shared(.query(["posts", 42]) { try await api.post(42) }) var post = OperationState<Post>()
    render(post)
  }

  // MARK: How fetches run

  static func showPost(api: API, clock: any Clock<Duration>) {
    let options = QueryOptions(
      staleTime: .seconds(30),
      operation: QueryOptions.defaultOperation.timeout(.seconds(10)).clock(clock))
    @Shared(.query(["posts", 42], options: options) { try await api.post(42) }) var post = OperationState<Post>()
    render(post)
  }

  // MARK: Intermediate values

  static func showFeed(api: API, cache: Cache) {
    @Shared(
      .query(["feed"]) { context in
        if let cached = cache.feed { context.yield(cached) }  // shown at once; the status stays pending
        return try await api.feed()
      }) var feed = OperationState<[Item]>()
    render(feed)
  }

  // MARK: Mutations

  static func rename(api: API) {
    @Shared(.inMemory("rename-post")) var rename = MutationState<String, Post>(historyLimit: 5)
    $rename.mutate("New title", .retry(.constant(retries: 2, delay: .seconds(1))), invalidates: [["posts"]]) {
      title, context in
      if context.attempt > 1 { print("retrying the rename") }
      return try await api.rename(42, title)
    }
  }
}
