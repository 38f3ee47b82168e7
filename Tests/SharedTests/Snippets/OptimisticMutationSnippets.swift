// The snippets about a mutation's optimistic changes to cached queries, as the documentation comments and the DocC
// article "Queries" (UsingQueries.md) show them, so that they compile.
import Foundation
import SharedState

struct OptimisticMutationSnippets {
  struct API: Sendable {
    var publishPost: @Sendable (Post) async throws -> Post
    var renamePost: @Sendable (Int, String) async throws -> Post
    func publish(_ post: Post) async throws -> Post { try await publishPost(post) }
    func rename(_ id: Int, to title: String) async throws -> Post { try await renamePost(id, title) }
  }

  // OptimisticCache
  func insert(_ draft: Post, into cache: OptimisticCache) {
    cache.update(["feed"], as: PaginatedState<Int, [Post]>.self) { feed in
      if !feed.pages.isEmpty { feed.pages[0].insert(draft, at: 0) }
    }
  }

  // OptimisticMutation; UsingQueries.md, "Optimistic changes to cached queries"
  func publish(_ draft: Post, api: API) {
    @Shared(.mutation("publish")) var publish = MutationState<Post, Post>()
    let insert = OptimisticMutation { (draft: Post, cache: OptimisticCache) -> Int in
      cache.update(["feed"], as: PaginatedState<Int, [Post]>.self) { feed in
        if !feed.pages.isEmpty { feed.pages[0].insert(draft, at: 0) }
      }
      return draft.id
    }
    $publish.mutate(draft, invalidates: [["feed"]], optimistic: insert) { draft in
      try await api.publish(draft)
    } onError: { error, draftID in
      print("post \(draftID) was not published:", error)
    }
  }

  // Shared.mutate(_:_:policy:scope:invalidates:awaitsRefetches:optimistic:isolation:_:onAttempt:onSuccess:onError:onSettled:)
  func rename(_ post: Post, to title: String, api: API) {
    @Shared(.mutation("rename-\(post.id)")) var rename = MutationState<String, Post>()
    let retitle = OptimisticMutation { (title: String, cache: OptimisticCache) -> String in
      cache.update(["posts", post.id], as: OperationState<Post>.self) { $0.value?.title = title }
      return post.title
    }
    $rename.mutate(title, invalidates: [["posts"]], optimistic: retitle) { title in
      try await api.rename(post.id, to: title)
    } onError: { _, previousTitle in
      print("kept", previousTitle)
    }
  }
}
