// The snippets about turning a query's automatic fetching off and on, and shaping what a holder shows, as the DocC
// article "Queries" (UsingQueries.md), the README and the documentation comments of QueryOptions.isEnabled,
// QueryStore+Enabled.swift and the selections show them, so that they compile.
import SharedState

struct QueryShapeSnippets {
  struct Post: Sendable, Equatable {
    var id: Int
    var title: String
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
}
