import Synchronization
import TestSupport
import Testing

@testable import SharedState

/// The recipe of "A query that depends on another" (UsingQueries.md), run as written: the dependent query waits,
/// turned off, until the first one has a value; it moves when the id changes and only then.
@Suite(.freshRegistry) struct QueryHolderDependentQueryTests {
  typealias Recipe = DependentQuerySnippets

  /// The user the server returns now, and every projects fetch by id.
  final class Server: Sendable {
    let userID = Mutex(1)
    let userFetches = Mutex(0)
    let projectFetches = Mutex<[Int]>([])

    var api: Recipe.API {
      Recipe.API(
        user: { [self] in
          userFetches.withLock { $0 += 1 }
          return Recipe.User(id: userID.withLock { $0 }, name: "Ada")
        },
        projects: { [self] id in
          projectFetches.withLock { $0.append(id) }
          return [Recipe.Project(id: id * 10, owner: id)]
        })
    }
  }

  @Test func theDependentQueryFetchesOncePerUserIdAndNeverBeforeOneIsKnown() async {
    let server = Server()
    let model = Recipe.ProjectsModel(api: server.api)
    // Before any id, the placeholder shows and nothing is fetched for the projects.
    #expect(model.projects.shown.wrappedValue.value == [])
    #expect(model.projects.shown.wrappedValue.isPlaceholder)
    let following = Task { await model.follow() }
    await waitUntil { model.projects.shown.wrappedValue.value == [Recipe.Project(id: 10, owner: 1)] }
    #expect(!model.projects.shown.wrappedValue.isPlaceholder)

    // A refetch of the same user moves nothing.
    #expect(model.user.refetch())
    await waitUntil { server.userFetches.withLock { $0 } == 2 && !model.user.wrappedValue.isFetching }
    server.userID.withLock { $0 = 2 }
    #expect(model.user.refetch())
    await waitUntil { model.projects.shown.wrappedValue.value == [Recipe.Project(id: 20, owner: 2)] }
    #expect(server.projectFetches.withLock { $0 } == [1, 2])
    following.cancel()
    await following.value
  }

  @Test func theAwaitedShapeFetchesTheUserThenTheirProjects() async throws {
    let server = Server()
    server.userID.withLock { $0 = 3 }
    let projects = try await Recipe.projectsOfTheUser(api: server.api)
    #expect(projects == [Recipe.Project(id: 30, owner: 3)])
    #expect(server.projectFetches.withLock { $0 } == [3])
  }
}
