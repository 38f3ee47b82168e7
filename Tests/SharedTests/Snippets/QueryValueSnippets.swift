// The snippets about awaiting a query's value, as the DocC article "Queries" (UsingQueries.md, "Awaiting a value")
// and the documentation comments of QueryStore+Values.swift and Shared.fetchValue(servingStale:) show them, so that
// they compile.
import SharedState

struct QueryValueSnippets {
  struct User: Sendable, Equatable {
    var name: String
  }

  struct API: Sendable {
    var post: @Sendable (Int) async throws -> Post
    var user: @Sendable (Int) async throws -> User
  }

  func show(_ post: Post) {}
  func render(_ post: Post) {}

  // UsingQueries.md, "Awaiting a value"
  func postTitle(api: API) async throws -> String {
    let post = try await SharedRegistry.current.queries.fetch(.query(["posts", 42]) { try await api.post(42) })
    return post.title
  }

  func warmUp(api: API) async throws {
    let store = SharedRegistry.current.queries
    store.prefetch(.query(["posts", 43]) { try await api.post(43) })
    let cached = store.cachedValues(matching: ["posts"], as: Post.self)
    print(cached.map(\.key))
  }

  // QueryStore.fetch(_:servingStale:)
  func fetchPost(api: API) async throws -> Post {
    let post = try await SharedRegistry.current.queries.fetch(.query(["posts", 42]) { try await api.post(42) })
    return post
  }

  // QueryStore.ensureValue(_:), prefetch(_:), cachedValue(for:as:), cachedValues(matching:as:)
  func useTheStore(store: QueryStore, api: API, id: Int) async throws {
    let user = try await store.ensureValue(.query(["users", id]) { try await api.user(id) })
    print(user)
    store.prefetch(.query(["posts", 43]) { try await api.post(43) })  // the next page a user will open
    if let post = store.cachedValue(for: ["posts", 42], as: Post.self) { show(post) }
    for (key, post) in store.cachedValues(matching: ["posts"], as: Post.self) { print(key, post.title) }
  }

  // Shared.fetchValue(servingStale:)
  func showPost(api: API) async throws {
    @Shared(.query(["posts", 42]) { try await api.post(42) }) var post = OperationState<Post>()
    if let fresh = try await $post.fetchValue() { render(fresh) }
  }
}
