// Functions that only need to compile: they pin down query API that the snippets (compiled as written in Snippets/)
// do not show.
import Foundation
import SharedState

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
