// The snippets about turning a query's automatic fetching off and on, and shaping what a holder shows, as the DocC
// article "Queries" (UsingQueries.md), the README and the documentation comments of QueryOptions.isEnabled,
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
  }

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
}
