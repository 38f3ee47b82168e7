// The snippets of refetch triggers and staleness (`QueryOptions`' refetch options, `RefetchCondition`, the status
// sources, `QueryStore.onlineStatus`, `isStale`, `Query.staleTime(_:)` and the Queries article's sections),
// as they show them, so that they compile. Stand-ins for an app's types come first.
import SharedState

struct RefetchTriggerSnippets {
  struct Post: Sendable, Equatable {
    var id: Int
    var isPublished: Bool
  }

  struct API: Sendable {
    var post: @Sendable (Int) async throws -> Post
  }

  func showRefreshHint() {}

  // RefetchCondition
  func conditions() -> QueryOptions {
    let options = QueryOptions(
      staleTime: .seconds(30), refetchOnHolder: .always, refetchOnReconnect: .ifStale, refetchOnFocus: .never)
    return options
  }

  // UsingQueries.md, "Refetching on a timer, a reconnect or focus"
  func articleOptions() -> QueryOptions {
    let options = QueryOptions(
      staleTime: .seconds(30),
      refetchOnHolder: .always,  // every screen that shows it refetches it
      refetchOnReconnect: .ifStale,  // the default
      refetchOnFocus: .never,
      refetchInterval: .seconds(60))  // while held, whatever its age
    return options
  }

  func followTheDevice(network: ManualOnlineStatus, focus: ManualFocus) -> SharedSubscription {
    let store = SharedRegistry.current.queries
    store.onlineStatus = network  // pauses work offline, refetches on a reconnect
    return store.refetch(onFocus: focus)
  }

  // OnlineStatusSource, ManualOnlineStatus
  func reconnects() {
    let network = ManualOnlineStatus()
    SharedRegistry.current.queries.onlineStatus = network
    network.setOnline(false)  // fetches and mutations wait
    network.setOnline(true)  // they go on, and the held queries refetch, as their refetchOnReconnect says
  }

  // FocusSource, ManualFocus
  func focusChanges() -> SharedSubscription {
    let focus = ManualFocus()
    let subscription = SharedRegistry.current.queries.refetch(onFocus: focus)
    focus.setFocused(false)
    focus.setFocused(true)  // the held queries refetch, as their refetchOnFocus says
    return subscription
  }

  // ApplicationFocus, QueryStore.refetch(onFocus:matching:)
  func applicationFocus() -> SharedSubscription {
    let subscription = SharedRegistry.current.queries.refetch(onFocus: ApplicationFocus.platform)
    return subscription
  }

  #if canImport(Network)
    // NetworkPathOnlineStatus
    func pathMonitor() {
      SharedRegistry.current.queries.onlineStatus = NetworkPathOnlineStatus()
    }
  #endif

  // QueryStore.isStale(_:)
  func hint() {
    if SharedRegistry.current.queries.isStale(["posts", 42]) == true { showRefreshHint() }
  }

  // Shared.isStale
  func holderIsStale(api: API) {
    @Shared(.query(["posts", 42]) { try await api.post(42) }) var post = OperationState<Post>()
    if $post.isStale == true { print("showing an older copy") }
  }

  // Query.staleTime(_:), and UsingQueries.md, "When a value is stale"
  func showPost(api: API) {
    let query: Query<OperationState<Post>> = .query(["posts", 42]) { try await api.post(42) }
    // A published post changes rarely; a draft is refetched by every new holder.
    @Shared(query.staleTime { post in post.isPublished ? .seconds(300) : .zero }) var post = OperationState<Post>()
  }
}
