// The snippets about turning a query's automatic fetching off and on, and shaping what a holder shows, as the DocC
// article "Queries" (UsingQueries.md) and the documentation comments of QueryOptions.isEnabled,
// QueryStore+Enabled.swift and the selections show them, so that they compile.
import SharedState

struct QueryShapeSnippets {
  struct Post: Sendable, Equatable {
    var id: Int
    var title: String
    var comments: [String] = []
  }

  struct API: Sendable {
    var post: @Sendable (Int) async throws -> Post
    var search: @Sendable (String) async throws -> [Post]
    var page: @Sendable (Int) async throws -> [Post]
  }

  func show(_ post: Post, dimmed: Bool) {}
  func showSpinner() {}
  func render(_ posts: [Post], dimmed: Bool) {}

  func render(_ state: OperationState<[Post]>) {}

  // QueryOptions.isEnabled
  func manualOptions() -> QueryOptions {
    let options = QueryOptions(enabled: false)  // fetched only when asked to
    return options
  }

  // QueryStore.setEnabled(_:for:)
  func confirmSearch(store: QueryStore, text: String) {
    store.setEnabled(false, for: ["search", text])  // until the user confirms the search
    store.setEnabled(true, for: ["search", text])  // held and never fetched: fetches now
  }

  // Shared.setEnabled(_:)
  func follow(api: API, searchText: String) {
    @Shared(.query(["search", searchText]) { try await api.search(searchText) }) var results = OperationState<[Post]>()
    $results.setEnabled(!searchText.isEmpty)
    render(results)
  }

  // UsingQueries.md, "Fetching only when asked to"
  func searchScreen(api: API, text: String) {
    @Shared(.query(["search", text], options: QueryOptions(enabled: false)) { try await api.search(text) })
    var results = OperationState<[Post]>()
    render(results)  // idle: holding a disabled query fetches nothing
    $results.refetch()  // an explicit request fetches
    $results.setEnabled(true)  // from now on, fetched like any query
  }

  // Shared.select(_:)
  func watchTitle(of post: Shared<OperationState<Post>>) -> ObserverToken {
    let title = post.select { $0.value?.title }
    return title.observe { title in print("title:", title ?? "none") }  // not on status changes
  }

  // SharedReader.select(_:)
  func commentCount(of post: SharedReader<OperationState<Post>>) -> SharedReader<Int> {
    post.select { $0.value?.comments.count ?? 0 }
  }

  // UsingQueries.md, "Selecting part of a value"
  func showTitle(api: API) -> ObserverToken {
    @Shared(.query(["posts", 42]) { try await api.post(42) }) var post = OperationState<Post>()
    let title: SharedReader<String> = $post.select { $0.value?.title ?? "" }
    return title.observe { title in print(title) }  // once per new title, not per fetch
  }

  // ShownState
  func render(_ shown: ShownState<Post>) {
    if let post = shown.value { show(post, dimmed: shown.isPlaceholder) }
    if shown.status.isPending { showSpinner() }
  }

  // ShownState.init(_:placeholder:), subscript(dynamicMember:)
  func shownStates() {
    let shown = ShownState(OperationState<Post>(), placeholder: Post(id: 0, title: "Loading…"))
    // shown.isPlaceholder == true
    if shown.status == .error, let error = shown.error { print(error) }
  }

  // Shared.placeholder(_:)
  func showPost(api: API) -> SharedReader<ShownState<Post>> {
    @Shared(.query(["posts", 42]) { try await api.post(42) }) var post = OperationState<Post>()
    return $post.placeholder(Post(id: 42, title: "Loading…"))
  }

  // UsingQueries.md, "Placeholders"
  func postRow(api: API) -> SharedReader<ShownState<Post>> {
    @Shared(.query(["posts", 42]) { try await api.post(42) }) var post = OperationState<Post>()
    return $post.placeholder(Post(id: 42, title: "Loading…"))
  }

  // QueryHolder
  final class FeedModel: Sendable {
    let api: API
    let feed: QueryHolder<[Post]>

    init(api: API) {
      self.api = api
      feed = QueryHolder(.query(["feed", 1]) { try await api.page(1) })
    }

    func show(page: Int) {
      feed.load(.query(["feed", page]) { [api] in try await api.page(page) })
    }
  }

  // UsingQueries.md, "Keeping the previous value while a new key loads"
  final class SearchModel: Sendable {
    let api: API
    let results: QueryHolder<[Post]>

    init(api: API) {
      self.api = api
      results = QueryHolder(.query(["search", ""]) { try await api.search("") }, placeholder: [])
    }

    func search(_ text: String) {
      results.load(.query(["search", text]) { [api] in try await api.search(text) })
    }
  }

  // QueryHolder.init, shown, query, load(_:)
  func useAHolder(api: API, model: FeedModel) -> ObserverToken {
    let holder = QueryHolder(.query(["search", ""]) { try await api.search("") }, placeholder: [])
    _ = holder
    let token = model.feed.shown.observe { shown in render(shown.value ?? [], dimmed: shown.isPlaceholder) }
    model.feed.query.refetch()
    model.feed.load(.query(["feed", 2]) { try await api.page(2) })
    return token
  }
}
