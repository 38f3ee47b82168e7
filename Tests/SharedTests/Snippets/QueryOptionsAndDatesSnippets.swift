// The documentation comments of intervals in the background, the dates of a value, and the outcome of a write to a
// cached query (QueryOptions, OperationTracking, QueryUpdateResult), as they show them, so that they compile.
import Foundation
import SharedState

/// QueryOptions.refetchIntervalInBackground.
struct BackgroundIntervalSnippets {
  func options() -> QueryOptions {
    let options = QueryOptions(refetchInterval: .seconds(30), refetchIntervalInBackground: true)
    return options
  }
}

/// OperationTracking's dates.
struct OperationDatesSnippets {
  func show(_ post: OperationState<Post>) {
    if let obtained = post.dataUpdatedAt { print("fetched at", obtained) }
    if let obtained = post.dataUpdatedAt { print("as of", obtained) }
    if let failedAt = post.errorUpdatedAt, post.error != nil { print("failing since", failedAt) }
  }
}

/// QueryUpdateResult.
struct QueryUpdateResultSnippets {
  func rename(_ id: Int, to title: String, in store: QueryStore) {
    switch store.update(["posts", id], as: OperationState<Post>.self, { $0.value?.title = title }) {
    case .updated: break
    case .notCached: print("post \(id) is not loaded: nothing to rename")
    case .typeMismatch(let expected, let found): print("post \(id) holds \(found), not \(expected)")
    }
  }

  func edit(_ store: QueryStore) -> Bool {
    let changed = store.update(["posts", 42], as: OperationState<Post>.self) { $0.value?.title = "Edited" }.isUpdated
    return changed
  }
}
