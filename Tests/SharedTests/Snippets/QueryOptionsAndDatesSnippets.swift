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

/// QueryOptions.structuralSharing, and its section of "Using queries".
struct StructuralSharingSnippets {
  enum API {
    static func posts() async throws -> [Post] { [] }
  }

  func options() -> QueryOptions {
    let options = QueryOptions(structuralSharing: false)  // every fetch shows the instance it returned
    return options
  }

  func feed() -> Query<OperationState<[Post]>> {
    .query(["posts"], options: QueryOptions(structuralSharing: false)) { try await API.posts() }
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

/// OperationMeta, OperationOptions.meta, QueryOptions.meta, OperationContext.meta, QueryHookSubject.meta.
struct OperationMetaSnippets {
  struct API: Sendable {
    var feed: @Sendable (Int) async throws -> [Post]
    var rename: @Sendable (Int, String) async throws -> Post

    func feed(limit: Int) async throws -> [Post] { try await feed(limit) }
    func rename(_ id: Int, to title: String) async throws -> Post { try await rename(id, title) }
  }

  func showToast(_ error: any Error) {}

  func options() -> [QueryOptions] {
    let options = QueryOptions(meta: ["screen": "feed", "showsErrorToast": true])
    return [options, second()]
  }

  func second() -> QueryOptions {
    let options = QueryOptions(meta: ["screen": "feed"])
    return options
  }

  func meta() -> String? {
    let meta = OperationMeta(["screen": "feed"])
    let screen = meta["screen", as: String.self]
    return screen
  }

  func hooks(store: QueryStore) {
    store.hooks.onError = { subject, error in
      if subject.meta["showsErrorToast", as: Bool.self] == true { showToast(error) }
    }
  }

  func feed(api: API) -> Query<OperationState<[Post]>> {
    let query: Query<OperationState<[Post]>> = .query(["feed"], options: QueryOptions(meta: ["page size": 20])) {
      context in try await api.feed(limit: context.meta["page size", as: Int.self] ?? 50)
    }
    return query
  }

  func rename(api: API) {
    @Shared(.mutation("rename-42")) var rename = MutationState<String, Post>()
    $rename.mutate("New title", .meta(["screen": "post"])) { title in try await api.rename(42, to: title) }
    $rename.mutate("New title", .retry(.exponential(retries: 3)).meta(["screen": "post"])) { title in
      try await api.rename(42, to: title)
    }
  }
}
