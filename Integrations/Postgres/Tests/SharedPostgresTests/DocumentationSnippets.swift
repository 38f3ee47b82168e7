// The snippets of the integration's README and DocC catalog, as they show them, so they are known to compile.
import SharedPostgres
import SharedState

enum DocumentationSnippets {
  struct Flags: Codable, Sendable, Equatable {
    var beta = false
  }

  func enableBeta(database: SharedPostgresDatabase) {
    @Shared(.postgres("feature-flags", in: database)) var flags = Flags()
    $flags.withLock { $0.beta = true }  // saved, and every other instance hears it
  }

  func join(database: SharedPostgresDatabase, user: String) {
    let union: PostgresConflictPolicy<Set<String>> = .merge { local, remote in local.union(remote) }
    @Shared(.postgres("online", in: database, conflicts: union)) var online = Set<String>()
    $online.withLock { _ = $0.insert(user) }
  }

  func connect(secret: String) async {
    let database = SharedPostgresDatabase(
      .init(host: "db.internal", username: "app", password: secret, database: "app"))
    enableBeta(database: database)
    await database.close()
  }
}
