// The README's tours, as README.md shows them, so that they compile. DocumentationSnippetTests checks that every
// snippet appears in this folder as written; each tour sits in a namespace of its own, with its own stand-ins.
import Foundation
import SharedState

/// README.md, "Sharing a value by key".
enum ReadmeSharingTour {
  struct User: Codable, Sendable {
    var name: String
    var age: Int
  }
  struct Settings: Codable, Sendable { var theme = "light" }

  func sharingTour(settingsURL: URL) async throws {
    @Shared(.inMemory("counter")) var counter = 0  // the default is used only if the key has no value yet
    $counter.withLock { $0 += 1 }  // the only way to write
    let now: Int = counter  // a synchronous read of the shared value
    let handle: Shared<Int> = $counter  // Sendable, cheap to copy, the same value
    let token = $counter.observe { value in print(value) }
    token.cancel()

    let local = Shared(value: 0)  // a value with no key, shared by its copies
    @Shared(.inMemory("user")) var user = User(name: "Ada", age: 36)
    let name: Shared<String> = $user.name  // derived from the user: a member, by key path
    name.withLock { $0 = "Grace" }  // writes the user; every holder sees it
    let reader = SharedReader($counter)  // read-only
    @Shared(.inMemory("profile")) var profile: User? = nil
    let unwrapped: Shared<User>? = Shared($profile)  // derived: the wrapped value, nil while nil

    @Shared(.fileStorage(settingsURL)) var settings = Settings()  // JSON file, saved after changes
    $settings.withLock { $0.theme = "dark" }
    try await $settings.save()  // written now, not just scheduled
    if let error = $settings.loadError { print("settings file unreadable:", error) }

    _ = (now, handle, local, reader, unwrapped)
  }
}

/// README.md, "Keys that load asynchronously".
enum ReadmeRemoteKeyTour {
  struct Profile: Codable, Sendable { var name = "" }

  protocol ProfileAPI: Sendable {
    func profile(_ userID: Int) async throws -> Profile
    func update(_ profile: Profile, for userID: Int) async throws
  }

  struct RemoteProfileKey: SharedKey {
    let userID: Int
    let api: any ProfileAPI
    var id: Int { userID }

    func load(context: SharedKeyContext<Profile>, continuation: SharedLoadContinuation<Profile>) {
      Task {  // resumed later: holders see isLoading until then
        do {
          continuation.resume(returning: try await api.profile(userID))
        } catch {
          continuation.resume(throwing: error)
        }
      }
    }

    func save(_ value: Profile, context: SharedKeyContext<Profile>) async throws {
      try await api.update(value, for: userID)
    }
  }

  func profileTour(api: any ProfileAPI) async throws {
    @Shared(RemoteProfileKey(userID: 42, api: api)) var profile = Profile()
    if $profile.isLoading { print("loading…") }  // the default until the server answers
    try await $profile.load()  // load again, and wait for it
    if let error = $profile.loadError { print("profile unavailable:", error) }
    $profile.withLock { $0.name = "Ada" }  // saved through the key
  }
}

/// README.md, "Operations".
enum ReadmeOperationTour {
  struct Post: Sendable, Equatable {
    var id: Int
    var title: String
  }

  struct Logging: OperationModifier {  // your own behaviour around every attempt
    func run<Success: Sendable>(
      context: OperationContext<Success>,
      next: (OperationContext<Success>) async throws -> Success
    ) async throws -> Success {
      print("attempt", context.attempt)
      return try await next(context)
    }
  }

  func operationTour(api: @escaping @Sendable (Int) async throws -> Post) async throws {
    @Shared(.inMemory("post")) var post = OperationState<Post>()
    let task = $post.run {  // returns at once; the status is already .pending
      try await api(1)
    } onAttempt: {
      print("started")  // synchronously, before run returns
    } onSuccess: { post in
      print("loaded", post.title)  // then onSuccess or onError (neither if cancelled)
    } onError: { error in
      print("failed", error)
    } onSettled: { result in
      print("settled")  // always last
    }
    _ = try await task.value  // or task.cancel()
    if post.status.isSuccess, let loaded = post.value { print(loaded.title) }

    let again = try await $post.perform(.retry(.exponential(retries: 3)), policy: .dedupe) { try await api(1) }
    $post.run(.modifier(Logging()).timeout(.seconds(10))) { context in
      if let cached = post.value { context.yield(cached) }  // shown now; the run stays pending
      return try await api(context.attempt)
    }
    $post.reset()  // clears the error, status back to idle
    _ = again
  }
}

/// README.md, "Queries: keyed async data, fetched once, shared by all".
enum ReadmeQueryTour {
  struct Post: Sendable, Equatable {
    var id: Int
    var title: String
  }

  func queryTour(api: @escaping @Sendable (Int) async throws -> Post) async throws {
    @Shared(.query(["posts", 42]) { try await api(42) }) var post = OperationState<Post>()
    $post.refetch()  // fetch again now (joins a fetch under way)

    let store = SharedRegistry.current.queries
    store.invalidate(matching: ["posts"])  // every key that starts with ["posts"]
    store.update(["posts", 42], as: OperationState<Post>.self) { $0.value?.title = "Edited" }
    let seven = try await store.fetch(.query(["posts", 7]) { try await api(7) })  // fresh and cached: at once
    _ = seven.title

    @Shared(.mutation("rename-42")) var rename = MutationState<String, Post>(historyLimit: 5)
    $rename.mutate("New title", invalidates: [["posts"]]) { title in try await api(1) }

    let nextPage: @Sendable ([Post], Int) -> Int? = { page, id in page.isEmpty ? nil : id + 1 }
    let feedQuery: Query<PaginatedState<Int, [Post]>> = .paginatedQuery(["feed"], initialPage: 0, nextPage: nextPage) {
      (id: Int) -> [Post] in [try await api(id)]
    }
    let feed = Shared(wrappedValue: PaginatedState<Int, [Post]>(), feedQuery)
    feed.fetchNextPage()
    _ = feed.wrappedValue.hasNextPage
  }
}
