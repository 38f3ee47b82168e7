// The snippets about coordinating mutations and reading their activity (mutation keys of parts, activity under a
// prefix, mutation scopes, awaiting the refetches a mutation set off), as the documentation comments and the DocC
// article "Queries" (UsingQueries.md) show them, so that they compile. Stand-ins for an app's types come first.
import Foundation
import SharedState

struct MutationCoordinationSnippets {
  struct Todo: Sendable, Equatable {
    var id: Int
    var title: String
  }

  struct API: Sendable {
    var renamePost: @Sendable (Int, String) async throws -> Post
    var editPost: @Sendable (Int, String) async throws -> Post
    var saveDraft: @Sendable (Int, String) async throws -> Post
    var publish: @Sendable (Int) async throws -> Post
    var addTodoCall: @Sendable (String) async throws -> Todo
    func rename(_ id: Int, to title: String) async throws -> Post { try await renamePost(id, title) }
    func edit(_ id: Int, _ text: String) async throws -> Post { try await editPost(id, text) }
    func addTodo(_ title: String) async throws -> Todo { try await addTodoCall(title) }
  }

  func dismiss() {}

  func showSpinner() {}
  func updateSpinner(_ isIdle: Bool) {}

  // MARK: Mutation keys of parts, and activity under a prefix

  // MutationKey, "Naming a mutation after the data it changes"
  enum MutationKeyDocumentation {
    static func renameButton(post: Post, api: API) -> SharedReader<QueryActivity> {
      @Shared(.mutation(["posts", post.id, "rename"])) var rename = MutationState<String, Post>()
      $rename.mutate("New title") { title in try await api.rename(post.id, to: title) }
      return SharedRegistry.current.queries.activity(matching: ["posts", post.id])  // its fetches and this rename
    }
  }

  // MutationKey.key and MutationKey.init(_:) with a key
  func keys() -> QueryKey {
    let key = MutationKey<String, Post>(["posts", 42, "rename"]).key  // ["posts", 42, "rename"]
    return key
  }

  func keyOfParts() -> MutationKey<String, Post> {
    let key = MutationKey<String, Post>(["posts", 42, "rename"])
    return key
  }

  // SharedReaderKey.mutation(_:) with a key
  enum MutationOfPartsDocumentation {
    static func renameButton(post: Post, api: API) {
      @Shared(.mutation(["posts", post.id, "rename"])) var rename = MutationState<String, Post>()
      $rename.mutate("New title") { title in try await api.rename(post.id, to: title) }
    }
  }

  // QueryStore.activity(matching:)
  func postsSpinner() -> ObserverToken {
    let posts = SharedRegistry.current.queries.activity(matching: ["posts"])
    if !posts.wrappedValue.isIdle { showSpinner() }  // a post loading or being saved
    let token = posts.observe { activity in updateSpinner(activity.isIdle) }
    return token
  }

  // UsingQueries.md, "Activity under a prefix"
  func postScreen(post: Post, api: API) -> SharedReader<QueryActivity> {
    @Shared(.mutation(["posts", post.id, "rename"])) var rename = MutationState<String, Post>()
    $rename.mutate("New title") { title in try await api.rename(post.id, to: title) }
    let activity = SharedRegistry.current.queries.activity(matching: ["posts", post.id])
    return activity  // fetching: the post's queries under way; runningMutations: this rename while it runs
  }

  // MARK: Mutation scopes

  // MutationScope
  func saveDraft(_ text: String, post: Post, api: API) {
    @Shared(.mutation(["posts", post.id, "draft"])) var draft = MutationState<String, Post>()
    $draft.mutate(text, scope: "post-\(post.id)") { text in try await api.saveDraft(post.id, text) }
  }

  func publish(post: Post, api: API) {
    @Shared(.mutation(["posts", post.id, "publish"])) var publish = MutationState<Int, Post>()
    $publish.mutate(post.id, scope: "post-\(post.id)") { id in try await api.publish(id) }  // after the draft
  }

  // MutationScope.init(_:) and init(stringLiteral:)
  func scope(post: Post) -> MutationScope {
    let scope = MutationScope("post-\(post.id)")
    return scope
  }

  func draftsScope() -> MutationScope {
    let scope: MutationScope = "drafts"
    return scope
  }

  // UsingQueries.md, "Mutations that wait for each other"
  func editPost(post: Post, title: String, text: String, api: API) {
    @Shared(.mutation(["posts", post.id, "title"])) var rename = MutationState<String, Post>()
    @Shared(.mutation(["posts", post.id, "text"])) var edit = MutationState<String, Post>()
    $rename.mutate(title, scope: "post-\(post.id)") { title in try await api.rename(post.id, to: title) }
    $edit.mutate(text, scope: "post-\(post.id)") { text in try await api.edit(post.id, text) }  // after the rename
  }

  // MARK: Awaiting the refetches a change set off

  // QueryRefetchReport
  enum QueryRefetchReportDocumentation {
    static func refreshPosts() async throws {
      let report = try await SharedRegistry.current.queries.invalidateAndAwaitRefetches(.prefix(["posts"]))
      if !report.allSucceeded { print("not refreshed:", report.failures.keys, report.cancelled) }
    }
  }

  // QueryRefetchReport.allSucceeded
  func dismissIfRefreshed(_ report: QueryRefetchReport) {
    if report.allSucceeded { dismiss() }
  }

  // QueryStore.invalidateAndAwaitRefetches(_:refetching:)
  enum InvalidateAndAwaitDocumentation {
    static func refreshPosts() async throws {
      let store = SharedRegistry.current.queries
      let report = try await store.invalidateAndAwaitRefetches(.prefix(["posts"]))
      print("refreshed \(report.succeeded.count) of \(report.invalidatedCount)")
    }
  }

  // UsingQueries.md, "Waiting for the refetches"
  func refreshPosts() async throws {
    let store = SharedRegistry.current.queries
    let report = try await store.invalidateAndAwaitRefetches(.prefix(["posts"]))
    if !report.allSucceeded { print("not refreshed:", report.failures.keys, report.cancelled) }
  }

  // Shared.mutate(_:_:policy:scope:invalidates:awaitsRefetches:...), "Saved and refreshed"
  func add(_ title: String, api: API) async throws {
    @Shared(.mutation("add-todo")) var addTodo = MutationState<String, Todo>()
    _ = try await $addTodo.mutate(title, invalidates: [["todos"]], awaitsRefetches: true) { title in
      try await api.addTodo(title)
    }.value
    // The held ["todos"] queries were refetched: the list shows the new todo.
  }

  // UsingQueries.md, "Saved and refreshed"
  func addTodo(_ title: String, api: API) async throws {
    @Shared(.mutation("add-todo")) var addTodo = MutationState<String, Todo>()
    let todo = try await $addTodo.mutate(title, invalidates: [["todos"]], awaitsRefetches: true) { title in
      try await api.addTodo(title)
    }.value
    print("saved and refreshed:", todo.title)
  }
}
