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

  func explain(_ error: (any Error)?) -> String? {
    guard let cause = (error as? SharedPostgresError)?.cause else { return nil }
    return "\(cause.kind): \(cause.serverMessage ?? cause.description)"
  }

  func connectOverTLS(secret: String) throws -> SharedPostgresDatabase {
    let configuration = SharedPostgresDatabase.Configuration(
      host: "db.internal", username: "app", password: secret, database: "app",
      tls: .require(certificateAuthority: .file("/etc/ssl/db-ca.pem")))
    return try SharedPostgresDatabase(validating: configuration)
  }

  func validateNames(secret: String) throws -> SharedPostgresDatabase {
    var configuration = SharedPostgresDatabase.Configuration(
      host: "db.internal", username: "app", password: secret, database: "app")
    configuration.tableName = "app.shared_values"
    try configuration.validate()
    return try SharedPostgresDatabase(validating: configuration)
  }

  func flags(named name: String, database: SharedPostgresDatabase) throws -> Shared<Flags> {
    Shared(wrappedValue: Flags(), try PostgresKey(validating: name, in: database))
  }

  func installTrigger(database: SharedPostgresDatabase) async throws {
    try await database.installSQLChangeTrigger()
  }

  func printTrigger(database: SharedPostgresDatabase) throws {
    for statement in try database.sqlChangeTrigger() { print(statement, ";") }
  }
}
