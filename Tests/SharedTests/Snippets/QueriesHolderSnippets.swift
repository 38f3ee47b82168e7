// The snippets about holding many queries at once, as the documentation comments and the DocC article "Queries"
// (UsingQueries.md) show them, so that they compile.
import Foundation
import SharedState

struct QueriesHolderSnippets {
  struct API: Sendable {
    var onePost: @Sendable (Int) async throws -> Post
    func post(_ id: Int) async throws -> Post { try await onePost(id) }
  }

  // CombinedQueries
  func render(_ posts: CombinedQueries<Post>) {
    if let error = posts.error { print("one post failed:", error) }
    if posts.isFetching { print("refreshing…") }
    let loaded = posts.values.compactMap { $0 }
    print(loaded.count, "of", posts.states.count, "posts loaded")
  }

  // QueriesHolder
  final class PostsModel: Sendable {
    let posts: QueriesHolder<Post, CombinedQueries<Post>>

    init(ids: [Int], api: API) {
      posts = QueriesHolder(ids.map { id in .query(["posts", id]) { try await api.post(id) } })
    }
  }

  // QueriesHolder.init(_:combine:), combined, load(_:) and init(_:)
  func holders(model: PostsModel, ids: [Int], queries: [Query<OperationState<Post>>], api: API) {
    let titles = QueriesHolder(queries) { states in states.compactMap { $0.value?.title } }
    let token = model.posts.combined.observe { posts in render(posts) }
    model.posts.load(ids.map { id in .query(["posts", id]) { try await api.post(id) } })
    _ = (titles, token)
  }

  // QueriesHolder.init(_:)
  func listed(ids: [Int], api: API) -> QueriesHolder<Post, CombinedQueries<Post>> {
    let queries: [Query<OperationState<Post>>] = ids.map { id in .query(["posts", id]) { try await api.post(id) } }
    let posts = QueriesHolder(queries)
    return posts
  }
}
