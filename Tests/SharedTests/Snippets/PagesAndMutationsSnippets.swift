// The snippets about page limits, page fetches asked for twice, mutations per entity and retrying a mutation, as
// the documentation comments and the DocC article "Queries" (UsingQueries.md) show them, so that they compile.
import Foundation
import SharedState

struct PagesAndMutationsSnippets {
  struct API: Sendable {
    var feedPage: @Sendable (Int) async throws -> [Post]
    var renamePost: @Sendable (Int, String) async throws -> Post
    func feed(page: Int) async throws -> [Post] { try await feedPage(page) }
    func rename(_ id: Int, to title: String) async throws -> Post { try await renamePost(id, title) }
  }

  // SharedReaderKey.paginatedQuery(_:initialPage:nextPage:previousPage:maxPages:options:fileID:line:_:)
  func showFeed(api: API) {
    let nextPage: @Sendable ([Post], Int) -> Int? = { page, id in page.isEmpty ? nil : id + 1 }
    let previousPage: @Sendable ([Post], Int) -> Int? = { _, id in id > 0 ? id - 1 : nil }
    @Shared(
      .paginatedQuery(["feed"], initialPage: 0, nextPage: nextPage, previousPage: previousPage, maxPages: 3) { id in
        try await api.feed(page: id)
      })
    var feed = PaginatedState<Int, [Post]>()
    $feed.fetchNextPage()
  }

  // UsingQueries.md, "Keeping a few pages": a paginated query with options
  func showFeedFreshForAMinute(api: API) {
    let nextPage: @Sendable ([Post], Int) -> Int? = { page, id in page.isEmpty ? nil : id + 1 }
    @Shared(
      .paginatedQuery(["feed"], initialPage: 0, nextPage: nextPage, options: QueryOptions(staleTime: .seconds(60))) {
        id in try await api.feed(page: id)
      })
    var feed = PaginatedState<Int, [Post]>()
    $feed.fetchNextPage()
  }

  // Shared.fetchNextPage() and Shared.fetchPreviousPage(); UsingQueries.md, "Pages"
  func loadTwoMorePages() async throws {
    @Shared(.inMemory("feed")) var feed = PaginatedState<Int, [Post]>()
    _ = try await $feed.fetchNextPage()?.value
    _ = try await $feed.fetchNextPage()?.value
    _ = try await $feed.fetchPreviousPage()?.value
  }

  // MutationKey, SharedReaderKey.mutation(_:) and Shared.init(wrappedValue:_:); UsingQueries.md, "Mutations"
  func renameButton(post: Post, api: API) {
    @Shared(.mutation("rename-\(post.id)")) var rename = MutationState<String, Post>()
    $rename.mutate("New title") { title in try await api.rename(post.id, to: title) }
  }

  // MutationKey
  struct PostRow {
    let post: Post
    @Shared var rename: MutationState<String, Post>

    init(post: Post) {
      self.post = post
      _rename = Shared(wrappedValue: MutationState(), .mutation("rename-\(post.id)"))
    }
  }

  // MutationKey.init(_:) and MutationKeyID
  func keys() -> Bool {
    let key = MutationKey<String, Post>("rename-42")
    let same = MutationKey<String, Int>("rename-42").id == MutationKey<Int, Int>("rename-42").id  // true
    return same && key.name == "rename-42"
  }

  // Shared.retryLatest(isolation:onAttempt:onSuccess:onError:onSettled:)
  func retryRename(_ rename: Shared<MutationState<String, Post>>) async throws {
    guard let task = rename.retryLatest() else { return }  // Nothing ran yet.
    let post = try await task.value
    print(post.title)
  }
}
