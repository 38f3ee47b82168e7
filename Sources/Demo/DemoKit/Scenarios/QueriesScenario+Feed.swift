import SharedState

/// A paginated feed, and posts published to it optimistically: each shows at the top of the feed before the server
/// answers; one the server refuses leaves the feed as it was. Returns what happened, for the summary.
@MainActor
func publishToFeed(options: QueryOptions) async -> String {
  let environment = DemoEnvironment.current
  let console = environment.console
  let backend = environment.content
  let nextPage: @Sendable ([Post], Int) -> Int? = { page, id in page.count < 3 ? nil : id + 1 }
  @Shared(
    .paginatedQuery(["feed"], initialPage: 0, nextPage: nextPage, options: options) { page in
      try await backend.feed(page: page)
    })
  var feed = PaginatedState<Int, [Post]>()
  do {
    _ = try await $feed.fetchValue()
  } catch {
    console.line("feed: could not load the first page: \(error)", .failure)
    return "the feed did not load"
  }
  console.line("feed: \(describeFeed(feed))")

  @Shared(.mutation("publish")) var publish = MutationState<Post, Post>()
  var published = 0
  var rolledBack = 0
  for draft in [Post(id: 200, title: "Shared state in a feed"), Post(id: 201, title: "")] {
    let insert = OptimisticMutation { (draft: Post, cache: OptimisticCache) -> Int in
      let postsBefore = feed.pages.first?.count ?? 0
      cache.update(["feed"], as: PaginatedState<Int, [Post]>.self) { feed in
        if !feed.pages.isEmpty { feed.pages[0].insert(draft, at: 0) }
      }
      return postsBefore
    }
    let task = $publish.mutate(draft, invalidates: [["feed"]], optimistic: insert) { draft in
      try await backend.publish(draft)
    } onError: { error, postsBefore in
      rolledBack += 1
      console.line(
        "publish: \(error); the feed rolls back to \(feed.pages.first?.count ?? 0) posts on its first page "
          + "(\(postsBefore) before)", .failure)
    }
    let title = draft.title.isEmpty ? "a post without a title" : "\"\(draft.title)\""
    console.line("feed: before the server answers, \(title) shows at the top: \(describeFeed(feed))")
    if (try? await task.value) != nil {
      published += 1
      // The refetch the invalidation started brings the server's first page, with the post in it.
      _ = try? await $feed.fetchValue()
      console.line("feed: the server has it; after the refetch, \(describeFeed(feed))", .success)
    }
  }
  return "\(published == 1 ? "1 post" : "\(published) posts") published to the feed, \(rolledBack) rolled back"
}

/// What the feed shows: the first page's titles and whether more pages follow, or why there is no page.
private func describeFeed(_ feed: PaginatedState<Int, [Post]>) -> String {
  switch feed.phase {
  case .idle, .loading(nil): "no page yet"
  case .loading(let pages?): "\(firstPage(of: pages)), reloading"
  case .loaded(let pages): "\(firstPage(of: pages))\(feed.hasNextPage ? ", more below" : "")"
  case .failed(let error, let pages): "\(pages.map(firstPage(of:)) ?? "no page"); the last fetch failed: \(error)"
  }
}

/// The first page's titles.
private func firstPage(of pages: [[Post]]) -> String {
  let titles = (pages.first ?? []).map { $0.title.isEmpty ? "(untitled)" : $0.title }
  return "[\(titles.joined(separator: ", "))]"
}
