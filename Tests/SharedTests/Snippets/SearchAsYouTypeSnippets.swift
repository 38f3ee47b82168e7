// The snippets of search as you type (`OperationPolicy.debounceCancellingPrevious` and the Operations article's
// section), as they show them, so that they compile. Stand-ins for an app's types come first.
import SharedState

struct SearchAsYouTypeSnippets {
  struct API: Sendable {
    var search: @Sendable (String) async throws -> [Post]
  }

  // OperationPolicy.debounceCancellingPrevious(_:)
  func search(_ text: String, api: API) {
    @Shared(.inMemory("search")) var results = OperationState<[Post]>()
    $results.run(policy: .debounceCancellingPrevious(.milliseconds(300))) {
      try await api.search(text)
    }
  }

  // RunningOperations.md, "Search as you type"
  func searchField(_ text: String, api: API) {
    @Shared(.inMemory("search")) var results = OperationState<[Post]>()
    $results.run(policy: .debounceCancellingPrevious(.milliseconds(300))) {
      try await api.search(text)
    }
  }

  func searchResults(_ results: OperationState<[Post]>) -> String {
    if results.status.isPending { return "Searching…" }  // the first search: nothing to show yet
    let titles = (results.value ?? []).map(\.title).joined(separator: "\n")
    return results.isFetching ? titles + "\n(updating)" : titles
  }
}
