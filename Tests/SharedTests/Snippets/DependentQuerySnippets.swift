// The snippets of "A query that depends on another" in the DocC article "Queries" (UsingQueries.md), so that they
// compile; DependentQueryRecipeTests runs the held shape.
import SharedState

enum DependentQuerySnippets {
  struct User: Sendable, Identifiable {
    var id: Int
    var name: String
  }

  struct Project: Sendable, Equatable {
    var id: Int
    var owner: Int
  }

  struct API: Sendable {
    var user: @Sendable () async throws -> User
    var projects: @Sendable (Int) async throws -> [Project]
  }

  static func projectsOfTheUser(api: API) async throws -> [Project] {
    let store = SharedRegistry.current.queries
    let user = try await store.fetch(.query(["user"]) { try await api.user() })
    return try await store.fetch(.query(["projects", user.id]) { try await api.projects(user.id) })
  }

  final class ProjectsModel: Sendable {
    let api: API
    let user: Shared<OperationState<User>>
    let projects: QueryHolder<[Project]>

    init(api: API) {
      self.api = api
      user = Shared(wrappedValue: OperationState(), .query(["user"]) { try await api.user() })
      projects = QueryHolder(
        .query(["projects", "none"], options: QueryOptions(enabled: false)) { [] }, placeholder: [])
    }

    /// Moves the projects to each new user id, for as long as the task that calls it runs.
    func follow() async {
      var shownID: User.ID?
      for await state in user.values {
        guard let id = state.value?.id, id != shownID else { continue }
        shownID = id
        projects.load(.query(["projects", id]) { [api] in try await api.projects(id) })
      }
    }
  }
}
