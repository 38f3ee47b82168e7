// The snippets about operations, as the DocC article "Operations" (RunningOperations.md) and OperationState's page
// show them, so that they compile; the article's modifiers also run in `OperationModifierTests`. Stand-ins for the
// app's own types come first.
import SharedState

struct RunningOperationsArticle {
  // MARK: Stand-ins for an app's types

  struct User: Sendable, Equatable {
    var name: String
  }

  struct Item: Sendable, Equatable {
    var id: Int
  }

  struct Profile: Sendable, Equatable {
    var name: String
  }

  struct ValidationError: Error {}

  struct API: Sendable {
    var post: @Sendable (Int) async throws -> Post
    var feed: @Sendable () async throws -> [Item]
  }

  struct ProfileAPI: Sendable {
    var profile: @Sendable () async throws -> Profile
  }

  struct FeedCache: Sendable {
    var feed: [Item]?
  }

  final class Analytics: Sendable {
    enum Event { case opened(Int) }
    func log(_ event: Event) {}
  }

  // MARK: Overview

  func openPost(api: API, analytics: Analytics) {
    @Shared(.inMemory("post")) var post = OperationState<Post>()

    $post.run {
      try await api.post(1)
    } onSuccess: { post in
      analytics.log(.opened(post.id))
    }
  }

  // MARK: The state every holder sees

  func render(_ post: OperationState<Post>) -> String {
    switch post.phase {
    case .idle: return "Not loaded"
    case .loading: return post.attempt > 1 ? "Retrying (attempt \(post.attempt))" : "Loading"
    case .loaded(let loaded): return loaded.title
    case .failed(let error, let previous): return "\(previous?.title ?? "No post"): failed with \(error)"
    }
  }

  struct AuthSession: OperationTrackable, Equatable {
    var user: User?
    var operation = OperationTracking()

    mutating func applySuccess(_ user: User) { self.user = user }
  }

  // MARK: Waiting for the result

  func loadedPost(api: API) async throws -> Post {
    @Shared(.inMemory("post")) var post = OperationState<Post>()
    return try await $post.perform(policy: .dedupe) { try await api.post(1) }  // every holder sees the run
  }

  func dismissError() {
    @Shared(.inMemory("post")) var post = OperationState<Post>()
    if post.status.isError { $post.reset() }  // idle again, no error; the last value stays
  }

  // MARK: Options

  func loadPost(api: API) {
    @Shared(.inMemory("post")) var post = OperationState<Post>()
    $post.run(.retry(.exponential(retries: 3)).timeout(.seconds(10))) {
      try await api.post(1)
    }
  }

  let policy = RetryPolicy(
    retries: 5,
    backoff: { retry in .seconds(retry) },
    shouldRetry: { error, failureCount in !(error is ValidationError) && failureCount < 4 })

  func retryOnAManualClock(api: API) async {
    @Shared(.inMemory("post")) var post = OperationState<Post>()
    let clock = ManualClock()
    $post.run(.retry(.constant(retries: 2, delay: .seconds(1))).clock(clock)) { try await api.post(1) }
    await clock.waitForSleepers()
    clock.advance(by: .seconds(1))  // the retry starts now
  }

  // MARK: The context

  func loadFeed(api: API, cache: FeedCache) {
    @Shared(.inMemory("feed")) var feed = OperationState<[Item]>()
    $feed.run(.retry(.exponential(retries: 2))) { context in
      if context.attempt == 1, let cached = cache.feed { context.yield(cached) }  // shown now; still pending
      return try await api.feed()
    }
  }

  // MARK: Customizing operations

  struct LoggingModifier: OperationModifier {
    var log: @Sendable (String) -> Void = { print($0) }

    func run<Success: Sendable>(
      context: OperationContext<Success>,
      next: (OperationContext<Success>) async throws -> Success
    ) async throws -> Success {
      log("attempt \(context.attempt) started")
      do {
        let value = try await next(context)
        log("attempt \(context.attempt) succeeded")
        return value
      } catch {
        log("attempt \(context.attempt) failed: \(error)")
        throw error
      }
    }
  }

  struct PreviewDelayModifier: OperationModifier {
    var delay: Duration = .seconds(1)

    func run<Success: Sendable>(
      context: OperationContext<Success>,
      next: (OperationContext<Success>) async throws -> Success
    ) async throws -> Success {
      try await context.clock.sleep(for: delay)
      return try await next(context)
    }
  }

  enum APIError: Error, Equatable {
    case unauthorized
  }

  protocol TokenRefreshing: Sendable {
    func refreshToken() async throws
  }

  struct RefreshingAuthModifier: OperationModifier {
    let session: any TokenRefreshing

    func run<Success: Sendable>(
      context: OperationContext<Success>,
      next: (OperationContext<Success>) async throws -> Success
    ) async throws -> Success {
      do {
        return try await next(context)
      } catch APIError.unauthorized {
        try await session.refreshToken()
        return try await next(context)
      }
    }
  }

  func loadProfile(api: ProfileAPI, session: any TokenRefreshing) {
    @Shared(.inMemory("profile")) var profile = OperationState<Profile>()
    let options = OperationOptions.modifier(LoggingModifier())
      .modifier(RefreshingAuthModifier(session: session))
      .retry(.exponential(retries: 2))
      .timeout(.seconds(15))
    $profile.run(options) { try await api.profile() }
  }

  // MARK: OperationState's page (Extensions/OperationState.md)

  func showSpinner() {}

  func showPost(api: API) {
    @Shared(.inMemory("post")) var post = OperationState<Post>()
    $post.run(.retry(.exponential(retries: 3))) { try await api.post(1) }
    if post.status.isPending { showSpinner() }
  }
}

/// The documentation comments' snippets of the operation types (OperationState, OperationTrackable, OperationContext),
/// with their own stand-ins.
struct OperationDocumentationSnippets {
  struct Post: Sendable, Equatable {
    var id: Int
  }

  struct User: Sendable, Equatable {
    var name: String
  }

  struct Item: Sendable, Equatable {
    var id: Int
  }

  struct API: Sendable {
    var post: @Sendable (Int) async throws -> Post
    var signIn: @Sendable () async throws -> User
    var feed: @Sendable () async throws -> [Item]
  }

  struct FeedCache: Sendable {
    var feed: [Item]?
  }

  func showSpinner() {}
  func show(_ error: any Error) {}

  // OperationState
  func loadPost(api: API) {
    @Shared(.inMemory("post")) var post = OperationState<Post>()

    $post.run { try await api.post(1) }
    if post.status.isPending { showSpinner() }
    if let error = post.error { show(error) }
  }

  // OperationTrackable
  struct AuthSession: OperationTrackable, Equatable {
    var user: User?
    var operation = OperationTracking()

    mutating func applySuccess(_ user: User) { self.user = user }
  }

  func signIn(api: API) {
    @Shared(.inMemory("auth")) var auth = AuthSession()
    $auth.run { try await api.signIn() }
    if auth.operation.status.isPending { showSpinner() }
  }

  // OperationTrackable.resetToInitialState()
  struct Profile: OperationTrackable {
    var user: User?
    var operation = OperationTracking()

    mutating func applySuccess(_ user: User) { self.user = user }
    mutating func resetToInitialState() { self = Profile() }
  }

  func resetStates(
    session: inout AuthSession,
    state: inout OperationState<Post>,
    feed: inout PaginatedState<Int, [Item]>
  ) {
    session.resetToInitialState()  // session.operation == OperationTracking()
    state.resetToInitialState()  // state.value == nil, state.status == .idle
    feed.resetToInitialState()  // feed.pages == [], feed.status == .idle
  }

  // OperationContext.yield(_:)
  func loadFeed(api: API, cache: FeedCache) {
    @Shared(.inMemory("feed")) var feed = OperationState<[Item]>()
    $feed.run { context in
      if let cached = cache.feed { context.yield(cached) }
      return try await api.feed()
    }
  }
}
