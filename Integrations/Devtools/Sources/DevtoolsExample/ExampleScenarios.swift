import Foundation
import ServiceLifecycle
import SharedState
import Synchronization

/// The example's scenarios, run until a graceful shutdown (SIGTERM or SIGINT).
struct ExampleScenarios: Service {
  let settingsURL: URL

  struct Settings: Codable, Sendable, Equatable {
    var theme = "light"
    var changes = 0
  }

  /// A nested value, to explore on the page.
  struct Profile: Codable, Sendable, Equatable {
    struct Address: Codable, Sendable, Equatable {
      var street = "1 Infinite Loop"
      var city = "Cupertino"
    }

    struct Post: Codable, Sendable, Equatable {
      var id: Int
      var title: String
      var likes: Int
      var tags: [String]
    }

    var name = "Ada"
    var address = Address()
    var posts = (1...3).map { Post(id: $0, title: "Post \($0)", likes: 0, tags: ["swift", "state"]) }
  }

  /// What the like mutation is called with.
  struct Like: Codable, Sendable {
    var postID: Int
    var liked: Bool
  }

  struct LikeRefused: Error, CustomStringConvertible {
    var postID: Int
    var description: String { "the server refused the like of post \(postID)" }
  }

  struct FlakyServiceError: Error, CustomStringConvertible {
    var fetch: Int
    var description: String { "the flaky service failed (fetch #\(fetch))" }
  }

  /// The notes "server": the mutation adds to it, the query reads it.
  actor NotesBackend {
    private var notes = ["Open the inspector"]

    func all() async throws -> [String] {
      try await Task.sleep(for: .milliseconds(200))
      return notes
    }

    func add(_ note: String) async throws -> [String] {
      try await Task.sleep(for: .milliseconds(300))
      notes.append(note)
      // The newest few, so the value stays short on the page.
      notes = Array(notes.suffix(5))
      return notes
    }
  }

  func run() async throws {
    let todoFetches = Atomic(0)
    let flakyFetches = Atomic(0)
    let backend = NotesBackend()

    // Fetched once, then fresh for an hour: only an invalidation (or a refetch) from the page fetches it again,
    // and each fetch prints a line. Its meta shows on the page, as the like mutation's does.
    @Shared(
      .query(["todos"], options: QueryOptions(staleTime: .seconds(3600), meta: ["screen": "todo list"])) {
        let fetch = todoFetches.add(1, ordering: .relaxed).newValue
        try await Task.sleep(for: .milliseconds(300))
        say(#"fetched ["todos"] #\#(fetch)"#)
        return ["Write the inspector", "Try an invalidation from the page", "Fetch #\(fetch)"]
      }) var todos = OperationState<[String]>()

    // Refetched every 2 seconds; every other fetch fails, without retries, so its status flips.
    @Shared(
      .query(
        ["flaky"],
        options: QueryOptions(
          refetchInterval: .seconds(2), operation: QueryOptions.defaultOperation.retry(.none))
      ) {
        let fetch = flakyFetches.add(1, ordering: .relaxed).newValue
        try await Task.sleep(for: .milliseconds(400))
        if fetch.isMultiple(of: 2) { throw FlakyServiceError(fetch: fetch) }
        return "healthy (fetch #\(fetch))"
      }) var flaky = OperationState<String>()

    @Shared(.query(["notes"]) { try await backend.all() }) var notes = OperationState<[String]>()
    @Shared(.mutation(["addNote"])) var addNote = MutationState<String, [String]>()
    // Every third tick a like runs: every other one is refused, so the mutations view shows both outcomes.
    @Shared(.mutation(["likePost"])) var likePost = MutationState<Like, Int>()
    @Shared(.inMemory("profile")) var profile = Profile()
    @Shared(.inMemory("counter")) var counter = 0
    @Shared(.fileStorage(settingsURL)) var settings = Settings()
    _ = (todos, flaky, notes)

    // A graceful shutdown cancels the loop: its sleep throws, and the scenarios end.
    try? await cancelWhenGracefulShutdown {
      var tick = 0
      while true {
        try await Task.sleep(for: .seconds(1))
        tick += 1
        $counter.withLock { $0 += 1 }
        if tick.isMultiple(of: 4) {
          $addNote.mutate("Note \(tick / 4)", invalidates: [["notes"]]) { note in try await backend.add(note) }
        }
        if tick.isMultiple(of: 3) {
          let like = Like(postID: (tick / 3) % 3 + 1, liked: true)
          let refused = (tick / 3).isMultiple(of: 2)
          $likePost.mutate(like, .meta(["screen": "post \(like.postID)", "source": "like button"])) { like in
            try await Task.sleep(for: .milliseconds(250))
            if refused { throw LikeRefused(postID: like.postID) }
            return like.postID
          }
          if !refused { $profile.withLock { $0.posts[like.postID - 1].likes += 1 } }
        }
        if tick.isMultiple(of: 5) {
          $settings.withLock { settings in
            settings.theme = settings.theme == "light" ? "dark" : "light"
            settings.changes += 1
          }
        }
      }
    }
  }
}
