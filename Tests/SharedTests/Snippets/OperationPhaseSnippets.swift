// The snippets about an operation state's phase (the documentation comments of OperationPhase and of the states'
// `phase`, and HashableError's description), as they show them, so that they compile; the one that states a result
// runs as a test. Stand-ins for an app's types come first.
import Foundation
import SharedState
import Testing

@Suite struct OperationPhaseSnippets {
  // MARK: Stand-ins for an app's types

  struct User: Sendable, Equatable {
    var name: String
  }

  struct API: Sendable {
    var post: @Sendable (Int) async throws -> Post
  }

  struct AuthSession: OperationTrackable, Equatable {
    var user: User?
    var operation = OperationTracking()

    mutating func applySuccess(_ user: User) { self.user = user }
  }

  // MARK: OperationPhase

  func title(of post: OperationState<Post>) -> String {
    switch post.phase {
    case .idle: "Not loaded"
    case .loading(nil): "Loading…"
    case .loading(let previous?): "\(previous.title) (reloading…)"
    case .loaded(let loaded): loaded.title
    case .failed(let error, _): "Failed: \(error.localizedDescription)"
    }
  }

  // OperationPhase.idle
  func loadIfIdle(api: API) {
    @Shared(.inMemory("post")) var post = OperationState<Post>()
    if case .idle = post.phase { $post.run { try await api.post(1) } }
  }

  // OperationPhase.loading(previous:), .loaded(_:) and .failed(_:previous:)
  func show(_ post: OperationState<Post>) {
    if case .loading(let previous) = post.phase {
      print(previous.map { "\($0.title) (reloading…)" } ?? "Loading…")
    }
    if case .loaded(let loaded) = post.phase { print(loaded.title) }
    if case .failed(let error, let previous) = post.phase {
      print("Failed: \(error)", previous.map { "still showing \($0.title)" } ?? "")
    }
  }

  // OperationPhase.init(_:value:)
  func phase(of auth: AuthSession) -> OperationPhase<User> {
    let phase = OperationPhase(auth.operation, value: auth.user)
    return phase
  }

  // OperationPhase.map(_:)
  func posts(of feed: PaginatedState<Int, [Post]>) -> OperationPhase<[Post]> {
    let posts = feed.phase.map { pages in pages.flatMap { $0 } }  // OperationPhase<[Post]>
    return posts
  }

  // MARK: The states' phase

  // OperationState.phase
  func render(_ post: OperationState<Post>) -> String {
    switch post.phase {
    case .idle: "Not loaded"
    case .loading(let previous): previous.map { "\($0.title) (reloading…)" } ?? "Loading…"
    case .loaded(let loaded): post.isFetching ? "\(loaded.title) (refreshing)" : loaded.title
    case .failed(let error, let previous): "\(previous?.title ?? "No post"): failed with \(error)"
    }
  }

  // PaginatedState.phase
  func render(_ feed: PaginatedState<Int, [Post]>) -> String {
    switch feed.phase {
    case .idle, .loading(nil): "Loading the feed…"
    case .loading(let pages?): "\(pages.count) pages, reloading…"
    case .loaded(let pages): feed.hasNextPage ? "\(pages.count) pages, and more" : "\(pages.count) pages"
    case .failed(let error, let pages): "\(pages?.count ?? 0) pages; failed with \(error)"
    }
  }

  // MutationState.phase
  func saveLabel(_ rename: MutationState<String, Post>) -> String {
    switch rename.phase {
    case .idle: "Save"
    case .loading: "Saving…"
    case .loaded(let post): "Saved as \(post.title)"
    case .failed(let error, _): "Could not save: \(error)"
    }
  }

  // MARK: HashableError describes itself as the error it wraps

  // HashableError.errorDescription
  @Test func aWrappedErrorReadsAsItsOwn() {
    let failure = HashableError(URLError(.timedOut))
    #expect(failure.localizedDescription == URLError(.timedOut).localizedDescription)
  }
}
