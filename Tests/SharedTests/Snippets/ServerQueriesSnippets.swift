// The snippets of the DocC article "Queries on a server" (QueriesOnAServer.md), as it shows them, so that they
// compile. Stand-ins for a server's own types come first.
import SharedState

struct ServerQueriesArticle {
  // MARK: Stand-ins for a server's types

  struct User: Sendable, Equatable {
    var id: Int
    var name: String
  }

  struct Settings: Sendable, Equatable {
    var theme: String
  }

  struct TransientError: Error {}

  struct Database: Sendable {
    var user: @Sendable (Int) async throws -> User
    var settings: @Sendable (Int) async throws -> Settings
    var posts: @Sendable (Int) async throws -> [String]
  }

  struct Metrics: Sendable {
    func increment(_ name: String) {}
    func gauge(_ name: String, _ value: Int) {}
  }

  // MARK: Awaiting a value

  func userHandler(id: Int, database: Database) async throws -> User {
    try await SharedRegistry.current.queries.fetch(.query(["users", id]) { try await database.user(id) })
  }

  func profileHandler(id: Int, database: Database) async throws -> (User, Settings) {
    let store = SharedRegistry.current.queries
    let user = try await store.fetch(.query(["users", id]) { try await database.user(id) }, servingStale: true)
    let settings = try await store.ensureValue(.query(["settings", id]) { try await database.settings(id) })
    store.prefetch(.query(["posts", "by", id]) { try await database.posts(id) })  // the client asks for them next
    return (user, settings)
  }

  // MARK: staleTime, gcTime and retries for a server

  let serverOptions = QueryOptions(
    staleTime: .seconds(5),  // a response may show data up to 5 s old
    gcTime: .seconds(60),  // kept for a minute after its last use
    operation: .retry(
      RetryPolicy(
        retries: 1,
        backoff: { _ in .milliseconds(100) },
        shouldRetry: { error, _ in error is TransientError })
    ).timeout(.seconds(2)))  // each attempt: 2 s at most

  func uncachedUser(id: Int, database: Database) async throws -> User {
    let query: Query<OperationState<User>> = .query(["users", id], options: QueryOptions(gcTime: .zero)) {
      try await database.user(id)
    }
    return try await SharedRegistry.current.queries.fetch(query)
  }

  // MARK: The store's defaults, bounds and hooks

  func configureServerStore(metrics: Metrics) {
    let store = SharedRegistry.current.queries
    store.defaultOptions = serverOptions  // for every query made without options of its own
    store.capacity = 10_000  // at most 10,000 queries cached
    store.hooks = QueryHooks(
      onError: { subject, error in metrics.increment("queries.failed") },
      onSettled: { _, _ in metrics.increment("queries.settled") })
  }

  func reportActivity(metrics: Metrics) async {
    for await activity in SharedRegistry.current.queries.activity.values {
      metrics.gauge("queries.fetching", activity.fetchingQueries)
    }
  }
}
