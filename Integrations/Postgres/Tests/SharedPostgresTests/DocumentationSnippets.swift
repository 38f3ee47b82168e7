// The snippets of the integration's README and DocC catalog, as they show them, so they are known to compile.
import Foundation
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

  struct Visits: Codable, Sendable, Equatable {
    var count = 0
  }

  func countVisit(database: SharedPostgresDatabase) async throws -> Int {
    let visits = PostgresKey<Visits>("visits", in: database)
    let written = try await visits.update(ifMissing: Visits()) { $0.count += 1 }
    return written.count
  }

  func shutDown(database: SharedPostgresDatabase) async {
    for change in await database.close(flushingWithin: .seconds(10)) {
      print("not saved: \(change.key): \(change.error)")
    }
  }

  struct FlagsV1: Codable, Sendable, Equatable {
    var beta = false
  }

  struct FlagsV2: Codable, Sendable, Equatable {
    var beta = false
    var rolloutPercent = 0
  }

  func flagsKey(database: SharedPostgresDatabase) -> PostgresKey<FlagsV2> {
    .postgres(
      "feature-flags", in: database,
      migration: { json in
        let old = try JSONDecoder().decode(FlagsV1.self, from: json)
        return FlagsV2(beta: old.beta, rolloutPercent: old.beta ? 100 : 0)
      })
  }

  func replaceUnreadableFlags(database: SharedPostgresDatabase) async throws {
    let key = flagsKey(database: database)
    @Shared(key) var flags = FlagsV2()
    if case .undecodableRow? = $flags.saveError as? SharedPostgresError {
      try await key.overwrite(with: flags)
      try await $flags.save()  // clears saveError
    }
  }

  /// A checked update called from the main actor: the change runs there, and need not be `Sendable`.
  @MainActor
  func countVisitOnTheMainActor(database: SharedPostgresDatabase, settings: CounterSettings) async throws {
    let visits = PostgresKey<Visits>("visits", in: database)
    try await visits.update(ifMissing: Visits()) { $0.count += settings.step }
  }

  /// A class that is not `Sendable`, read by a change.
  final class CounterSettings {
    var step = 1
  }
}
