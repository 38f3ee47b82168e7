// Functions that only need to compile: they pin down that the README's tour of queries is real code.
import Foundation
import SharedState

private struct Post: Sendable, Equatable {
  var id: Int
  var title: String
}

private func queryTour(api: @escaping @Sendable (Int) async throws -> Post) async throws {
  @Shared(.query(["posts", 42]) { try await api(42) }) var post = OperationState<Post>()
  $post.refetch()  // fetch again now (joins a fetch under way)

  let store = SharedRegistry.current.queries
  store.invalidate(matching: ["posts"])  // every key that starts with ["posts"]
  store.update(["posts", 42], as: OperationState<Post>.self) { $0.value?.title = "Edited" }
  let seven = try await store.fetch(.query(["posts", 7]) { try await api(7) })  // fresh and cached: at once
  _ = seven.title

  @Shared(.inMemory("rename")) var rename = MutationState<String, Post>(historyLimit: 5)
  $rename.mutate("New title", invalidates: [["posts"]]) { title in try await api(1) }

  let nextPage: @Sendable ([Post], Int) -> Int? = { page, id in page.isEmpty ? nil : id + 1 }
  let feedQuery: Query<PaginatedState<Int, [Post]>> = .paginatedQuery(["feed"], initialPage: 0, nextPage: nextPage) {
    (id: Int) -> [Post] in [try await api(id)]
  }
  let feed = Shared(wrappedValue: PaginatedState<Int, [Post]>(), feedQuery)
  feed.fetchNextPage()
  _ = feed.wrappedValue.hasNextPage
}

// Runtime values name queries as literals do: an Int, a String, a UUID, any Hashable & Sendable value.
private func runtimeValuesInQueryKeys(
  id: Int,
  slug: String,
  author: UUID,
  api: @escaping @Sendable (Int) async throws -> Post
) {
  @Shared(.query(["posts", id]) { try await api(id) }) var post = OperationState<Post>()
  @Shared(.query(["posts", slug, author]) { try await api(id) }) var byAuthor = OperationState<Post>()
  let key: QueryKey = ["posts", id, "comments"]
  let parts: [any Hashable & Sendable] = ["posts", author]
  SharedRegistry.current.queries.invalidate(matching: ["posts", id])
  _ = (post, byAuthor, key, QueryKey(parts))
}
