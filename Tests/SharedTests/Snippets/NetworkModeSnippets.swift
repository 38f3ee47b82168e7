// The snippets of network modes (`NetworkMode`, `OperationOptions.networkMode`, `QueryOptions.networkMode`,
// `OperationTracking.isPaused`, the store's `onlineStatus`, `networkMode` and `isOnline`, and the Working offline
// article), as they show them, so that they compile. Stand-ins for an app's types come first.
import Foundation
import SharedState

struct NetworkModeSnippets {
  struct API: Sendable {
    var postCall: @Sendable (Int) async throws -> Post
    var renameCall: @Sendable (Int, String) async throws -> Post
    var draftsCall: @Sendable () async throws -> [Post]
    var publishCall: @Sendable (Int) async throws -> Post

    func post(_ id: Int) async throws -> Post { try await postCall(id) }
    func rename(_ id: Int, to title: String) async throws -> Post { try await renameCall(id, title) }
    func drafts() async throws -> [Post] { try await draftsCall() }
    func publish(_ id: Int) async throws -> Post { try await publishCall(id) }
  }

  func showOfflineBadge() {}
  func showOfflineBanner() {}

  // NetworkMode
  func storeSettings() {
    let store = SharedRegistry.current.queries
    store.onlineStatus = ManualOnlineStatus(isOnline: false)  // NetworkPathOnlineStatus() on Apple platforms
    store.networkMode = .online  // the default: fetches and mutations wait for the network
  }

  // NetworkMode's cases, OperationOptions.networkMode and its builders
  func mutationModes(api: API) {
    @Shared(.mutation("rename-42")) var rename = MutationState<String, Post>()
    $rename.mutate("New title", .networkMode(.online)) { title in try await api.rename(42, to: title) }
    $rename.mutate("New title", .networkMode(.offlineFirst)) { title in try await api.rename(42, to: title) }
    $rename.mutate("New title", .networkMode(.always)) { title in try await api.rename(42, to: title) }
    $rename.mutate("New title", .retry(.exponential(retries: 3)).networkMode(.offlineFirst)) { title in
      try await api.rename(42, to: title)
    }
  }

  func queryModes() -> [QueryOptions] {
    let local = QueryOptions(networkMode: .always)  // a query that reads a local database
    let cached = QueryOptions(networkMode: .offlineFirst)  // an HTTP cache on the device may answer
    let options = QueryOptions(networkMode: .offlineFirst)  // the first attempt runs offline; retries wait
    return [local, cached, options]
  }

  // OperationTracking.isPaused, and its "Waiting for the network" section
  func paused(_ post: OperationState<Post>) {
    if post.isPaused { showOfflineBadge() }  // a fetch or a mutation waits for the network
    if post.isPaused {
      showOfflineBadge()  // waits for the network; post.status tells whether a value is shown
    }
  }

  // QueryStore.onlineStatus, networkMode, isOnline
  func storeMembers() {
    let network = ManualOnlineStatus(isOnline: false)
    SharedRegistry.current.queries.onlineStatus = network
    // Fetches and mutations wait now, paused; they go on when the device is online, and stale held queries refetch:
    network.setOnline(true)
    SharedRegistry.current.queries.networkMode = .offlineFirst
    if !SharedRegistry.current.queries.isOnline { showOfflineBanner() }
  }

  // WorkingOffline.md, "Network mode"
  func followTheNetwork() -> ManualOnlineStatus {
    let network = ManualOnlineStatus()  // or NetworkPathOnlineStatus() where the Network framework exists
    let store = SharedRegistry.current.queries
    store.onlineStatus = network
    return network
  }

  // WorkingOffline.md, "What waits"
  func modes(api: API) {
    @Shared(.query(["drafts"], options: QueryOptions(networkMode: .always)) { try await api.drafts() })
    var drafts = OperationState<[Post]>()
    @Shared(.mutation("publish")) var publish = MutationState<Int, Post>()
    $publish.mutate(42, .networkMode(.offlineFirst)) { id in try await api.publish(id) }
  }

  // WorkingOffline.md, "Showing that work waits"
  func title(of post: OperationState<Post>) -> String {
    switch post.phase {
    case .idle: "Not loaded"
    case .loading where post.isPaused: "Waiting for the network…"
    case .loading: "Loading…"
    case .loaded(let loaded): post.isPaused ? "\(loaded.title) (offline)" : loaded.title
    case .failed(let error, _): "Failed: \(error.localizedDescription)"
    }
  }

  // WorkingOffline.md, "In tests"
  func offlineInATest(api: API) {
    let network = ManualOnlineStatus(isOnline: false)
    SharedRegistry.current.queries.onlineStatus = network
    @Shared(.query(["posts", 1]) { try await api.post(1) }) var post = OperationState<Post>()
    assert(post.isPaused && post.status == .pending)  // nothing fetched yet
    network.setOnline(true)  // the fetch goes on, once
  }
}
