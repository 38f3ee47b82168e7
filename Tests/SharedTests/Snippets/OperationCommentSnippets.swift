// The snippets of the operation types' documentation comments (options, retries, modifiers, the context, the
// status, the task, optimistic updates), as they show them, so that they compile; the ones that state a result run
// as tests. Stand-ins for an app's types come first.
import Foundation
import SharedState
import Synchronization
import Testing

struct OperationCommentSnippets {
  // MARK: Stand-ins for an app's types

  struct Item: Sendable, Equatable {
    var id: Int
  }

  struct Todo: Sendable, Equatable {
    var id = UUID()
    var title: String
  }

  struct User: Sendable, Equatable {
    var name: String
  }

  struct API: Sendable {
    var post: @Sendable (Int) async throws -> Post
    var feed: @Sendable () async throws -> [Item]
    var add: @Sendable (Todo) async throws -> [Todo]
  }

  struct FeedCache: Sendable {
    var feed: [Item]?
  }

  struct APIError: Error {
    var isTransient: Bool
  }

  struct Haptics {
    func tap() {}
  }

  final class Form {
    var isEnabled = false
  }

  struct AuthSession: OperationTrackable, Equatable {
    var user: User?
    var operation = OperationTracking()

    mutating func applySuccess(_ user: User) { self.user = user }
  }

  protocol TokenRefreshing: Sendable {
    func refreshToken() async throws
  }

  struct RefreshingAuth: OperationModifier {
    let session: any TokenRefreshing

    func run<Success: Sendable>(
      context: OperationContext<Success>,
      next: (OperationContext<Success>) async throws -> Success
    ) async throws -> Success {
      try await next(context)
    }
  }

  struct LoggingModifier: OperationModifier {
    func run<Success: Sendable>(
      context: OperationContext<Success>,
      next: (OperationContext<Success>) async throws -> Success
    ) async throws -> Success {
      print("attempt", context.attempt)
      return try await next(context)
    }
  }

  func log(_ message: String) {}
  func show(_ value: Any) {}
  func showSpinner() {}
  func showSignInButton() {}
  func showRetryButton() {}
  func navigate(to post: Post) {}
  func toast(_ error: any Error) {}
  func render(_ auth: AuthSession) {}

  // MARK: OperationModifier

  func logAttempts(api: API) {
    @Shared(.inMemory("post")) var post = OperationState<Post>()
    struct LoggingModifier: OperationModifier {
      func run<Success: Sendable>(
        context: OperationContext<Success>,
        next: (OperationContext<Success>) async throws -> Success
      ) async throws -> Success {
        print("attempt \(context.attempt) starts")
        defer { print("attempt \(context.attempt) ends") }
        return try await next(context)
      }
    }

    $post.run(.modifier(LoggingModifier()).retry(.exponential(retries: 3))) { try await api.post(1) }
  }

  // OperationModifier.run(context:next:)
  struct PreviewDelay: OperationModifier {
    func run<Success: Sendable>(
      context: OperationContext<Success>,
      next: (OperationContext<Success>) async throws -> Success
    ) async throws -> Success {
      try await context.clock.sleep(for: .seconds(1))  // a preview's artificial delay
      return try await next(context)
    }
  }

  // MARK: OperationContext

  func loadFeed(api: API, cache: FeedCache) {
    @Shared(.inMemory("feed")) var feed = OperationState<[Item]>()
    $feed.run { context in
      if let cached = cache.feed { context.yield(cached) }  // shown now; the run stays pending
      if context.attempt > 1 { log("retrying, attempt \(context.attempt)") }
      return try await api.feed()
    }
  }

  // MARK: OperationOptions

  func loadPost(api: API, clock: any Clock<Duration>) {
    @Shared(.inMemory("post")) var post = OperationState<Post>()
    $post.run(.retry(.exponential(retries: 3)).timeout(.seconds(10))) {
      try await api.post(1)
    }

    let options = OperationOptions(retry: .constant(retries: 2, delay: .seconds(1)), clock: clock)
    $post.run(options) { try await api.post(1) }
  }

  func makeOptions() -> OperationOptions {
    let options = OperationOptions(retry: .exponential(retries: 3), timeout: .seconds(10))
    return options
  }

  func runWithOptions(api: API, session: any TokenRefreshing) {
    @Shared(.inMemory("post")) var post = OperationState<Post>()
    // OperationOptions.retry(_:)
    $post.run(.retry(.constant(retries: 2, delay: .seconds(1)))) { try await api.post(1) }
    // OperationOptions.retry(_:), on options
    $post.run(.timeout(.seconds(5)).retry(.exponential(retries: 3))) { try await api.post(1) }
    // OperationOptions.timeout(_:)
    $post.run(.timeout(.seconds(10))) { try await api.post(1) }
    // OperationOptions.modifier(_:)
    $post.run(.modifier(LoggingModifier())) { try await api.post(1) }
    // OperationOptions.modifier(_:), on options
    $post.run(.modifier(LoggingModifier()).modifier(RefreshingAuth(session: session))) { try await api.post(1) }
  }

  // OperationOptions.clock(_:)
  func runOnAManualClock(api: API) {
    @Shared(.inMemory("post")) var post = OperationState<Post>()
    let clock = ManualClock()
    $post.run(.clock(clock).timeout(.seconds(1))) { try await api.post(1) }
    $post.run(.retry(.constant(retries: 1, delay: .seconds(1))).clock(clock)) { try await api.post(1) }
  }

  // MARK: RetryPolicy

  func retry(api: API) {
    @Shared(.inMemory("post")) var post = OperationState<Post>()
    $post.run(.retry(.exponential(retries: 3, initial: .milliseconds(200), maxDelay: .seconds(5)))) {
      try await api.post(1)
    }
    $post.run(.retry(.none)) { try await api.post(1) }
    $post.run(.retry(.constant(retries: 2, delay: .seconds(1)))) { try await api.post(1) }
    $post.run(.retry(.exponential(retries: 3))) { try await api.post(1) }  // waits 200 ms, 400 ms, 800 ms
  }

  func squaredBackoff() -> RetryPolicy {
    let policy = RetryPolicy(
      retries: 5,
      backoff: { retry in .seconds(retry * retry) },  // 1 s, 4 s, 9 s, ...
      shouldRetry: { error, failureCount in error is URLError && failureCount < 3 })
    return policy
  }

  func transientErrorsOnly() -> RetryPolicy {
    let policy = RetryPolicy(
      retries: 2,
      backoff: { retry in .milliseconds(100 * retry) },
      shouldRetry: { error, _ in (error as? APIError)?.isTransient ?? false })
    return policy
  }

  // MARK: OperationState and OperationStatus

  func showPost(_ post: OperationState<Post>) {
    if post.status == .error, let error = post.error { show(error) }
    switch post.status {
    case .idle: print("Not loaded")
    case .pending: print("Loading…")
    case .success: print(post.value!.title)
    case .error: print("Failed:", post.error!)
    }

    if post.status.isPending { showSpinner() }
    if post.status.isSuccess, let loaded = post.value { show(loaded) }
    if post.status.isError { showRetryButton() }
  }

  // MARK: OperationTracking: refetching and retries

  func showRefetchAndRetries(_ post: OperationState<Post>) {
    if post.status.isPending {
      showSpinner()  // a first load: nothing to show yet
    } else if post.isFetching {
      showRefreshIndicator()  // a background refetch: the value stays on screen
    }
    if post.isFetching && !post.status.isPending { showRefreshIndicator() }
    if post.failureCount > 0 { print("Retrying after \(post.failureCount) failures") }
    if let reason = post.failureReason { print("Attempt \(post.attempt - 1) failed:", reason) }
  }

  func showRefreshIndicator() {}

  func showSignIn(_ auth: AuthSession) {
    if auth.operation.status.isIdle { showSignInButton() }
    switch auth.operation.status {
    case .pending: print("Signing in…")
    case .error: print("Sign-in failed:", auth.operation.error!)
    case .idle, .success: render(auth)
    }
  }

  // MARK: Shared's run and perform

  func save(api: API, haptics: Haptics, form: Form) {
    @Shared(.inMemory("post")) var post = OperationState<Post>()
    $post.run {
      try await api.post(1)
    } onAttempt: {
      haptics.tap()
    } onSuccess: { post in
      navigate(to: post)
    } onError: { error in
      toast(error)
    } onSettled: { result in
      form.isEnabled = true
    }
  }

  func showFeed(api: API, cache: FeedCache) {
    @Shared(.inMemory("feed")) var feed = OperationState<[Item]>()
    $feed.run { context in
      if let cached = cache.feed { context.yield(cached) }  // shown at once; the run stays pending
      return try await api.feed()
    }
  }

  func perform(api: API) async throws -> Post {
    @Shared(.inMemory("post")) var post = OperationState<Post>()
    let loaded = try await $post.perform { try await api.post(1) }
    return loaded
  }

  func performFeed(api: API, cache: FeedCache) async throws -> [Item] {
    @Shared(.inMemory("feed")) var feed = OperationState<[Item]>()
    let items = try await $feed.perform { context in
      if let cached = cache.feed { context.yield(cached) }
      return try await api.feed()
    }
    return items
  }

  // OperationTask
  func cancel(api: API) async throws -> Post {
    @Shared(.inMemory("post")) var post = OperationState<Post>()
    let task = $post.run { try await api.post(1) }
    task.cancel()  // stops it; the state follows the other runs once it returns
    let loaded = try await task.value  // or waits for it
    return loaded
  }

  // OptimisticUpdate
  func add(api: API) {
    @Shared(.inMemory("todos")) var todos = OperationState<[Todo]>()
    let todo = Todo(title: "Water the plants")
    $todos.run(
      optimistic: OptimisticUpdate(
        apply: { $0.value?.append(todo) },
        rollback: { $0.value?.removeAll { $0.id == todo.id } })
    ) {
      try await api.add(todo)
    }
  }
}
