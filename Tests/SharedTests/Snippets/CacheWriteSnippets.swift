// The snippets about writing the cache (values set by the program, initial values) and about paginated queries
// awaited and edited, as the documentation comments and the DocC article "Queries" (UsingQueries.md) show them, so
// that they compile.
import Foundation
import SharedState

struct CacheWriteSnippets {
  struct Profile: Sendable, Equatable {
    var name: String
  }

  struct ProfileState: OperationTrackable {
    var profile: Profile?
    var operation = OperationTracking()
    mutating func applySuccess(_ profile: Profile) { self.profile = profile }
  }

  struct API: Sendable {
    var feedPage: @Sendable (Int) async throws -> [Post]
    var onePost: @Sendable (Int) async throws -> Post
    func feed(page: Int) async throws -> [Post] { try await feedPage(page) }
    func post(_ id: Int) async throws -> Post { try await onePost(id) }
  }

  func render(_ pages: [[Post]]) {}
  func show(_ pages: [[Post]]) {}
  func showSpinnerBelowTheList() {}
  func showSpinnerAboveTheList() {}

  // PaginatedState.pages
  func insertDraft(_ draft: Post, store: QueryStore, feedQuery: Query<PaginatedState<Int, [Post]>>) {
    store.setFetchedState(for: feedQuery) { feed in
      if !feed.pages.isEmpty { feed.pages[0].insert(draft, at: 0) }
    }
  }

  // PaginatedState.isFetchingNextPage and isFetchingPreviousPage
  func spinners(feed: PaginatedState<Int, [Post]>) {
    if feed.isFetchingNextPage { showSpinnerBelowTheList() }
    if feed.isFetchingPreviousPage { showSpinnerAboveTheList() }
  }

  // PaginatedState.replacePages(ids:pages:hasNextPage:hasPreviousPage:)
  func replace(firstPage: [Post], store: QueryStore, feedQuery: Query<PaginatedState<Int, [Post]>>) {
    store.setFetchedState(for: feedQuery) { feed in
      feed.replacePages(ids: [0], pages: [firstPage], hasNextPage: true, hasPreviousPage: false)
    }
  }

  // QueryStore.fetch(_:servingStale:) for a paginated query
  func firstPage(of feed: Query<PaginatedState<Int, [Post]>>) async throws -> [Post] {
    let loaded = try await SharedRegistry.current.queries.fetch(feed)
    return loaded.pages.first ?? []
  }

  // QueryStore.ensureValue(_:), prefetch(_:) and cachedState(for:as:) for a paginated query
  func cached(store: QueryStore, feedQuery: Query<PaginatedState<Int, [Post]>>) async throws {
    let feed = try await store.ensureValue(feedQuery)
    store.prefetch(feedQuery)
    if let feed = store.cachedState(for: ["feed"], as: PaginatedState<Int, [Post]>.self) { show(feed.pages) }
    _ = feed
  }

  // Shared.fetchValue(servingStale:) for a paginated query
  func showFeed(api: API) async throws {
    let nextPage: @Sendable ([Post], Int) -> Int? = { page, id in page.isEmpty ? nil : id + 1 }
    @Shared(.paginatedQuery(["feed"], initialPage: 0, nextPage: nextPage) { id in try await api.feed(page: id) })
    var feed = PaginatedState<Int, [Post]>()
    if let loaded = try await $feed.fetchValue() { render(loaded.pages) }
  }

  // Query.initialState(_:updatedAt:)
  func showFeed(api: API, saved: PaginatedState<Int, [Post]>, savedAt: Date) {
    let nextPage: @Sendable ([Post], Int) -> Int? = { page, id in page.isEmpty ? nil : id + 1 }
    let feed: Query<PaginatedState<Int, [Post]>> = .paginatedQuery(["feed"], initialPage: 0, nextPage: nextPage) {
      id in try await api.feed(page: id)
    }
    @Shared(feed.initialState(saved, updatedAt: savedAt)) var shown = PaginatedState<Int, [Post]>()
  }

  // Query.initialValue(_:updatedAt:)
  func showPost(_ post: Post, listedAt: Date, api: API) {
    let query: Query<OperationState<Post>> = .query(["posts", post.id]) { try await api.post(post.id) }
    @Shared(query.initialValue(post, updatedAt: listedAt)) var detail = OperationState<Post>()
  }

  // QueryStore.setFetchedValue(_:for:updatedAt:)
  func postCreated(_ post: Post, api: API) {
    let store = SharedRegistry.current.queries
    store.setFetchedValue(post, for: .query(["posts", post.id]) { try await api.post(post.id) })
  }

  // QueryStore.setFetchedState(for:updatedAt:_:)
  func draftPublished(_ post: Post, feed: Query<PaginatedState<Int, [Post]>>) {
    SharedRegistry.current.queries.setFetchedState(for: feed) { feed in
      if !feed.pages.isEmpty { feed.pages[0].insert(post, at: 0) }
    }
  }

  // QueryStore.setFetchedState(for:startingWith:updatedAt:_:)
  func profileLearned(_ profile: Profile, query: Query<ProfileState>) {
    SharedRegistry.current.queries.setFetchedState(for: query, startingWith: ProfileState()) { $0.profile = profile }
  }
}
