import Foundation
import PostgresNIO
import SharedState
import Testing

@testable import SharedPostgres

/// The server the tests run against, named by the environment `.ci/postgres-tests` sets.
enum TestDatabase {
  /// How to get a server, shown when the environment does not name one.
  static let missingServer = """
    The PostgreSQL integration's tests need a real server. Run them with `bash .ci/postgres-tests` (from the \
    repository's root: it starts a throwaway cluster on 127.0.0.1 and sets the environment), or set \
    SHARED_POSTGRES_HOST, SHARED_POSTGRES_PORT, SHARED_POSTGRES_USER, SHARED_POSTGRES_PASSWORD and \
    SHARED_POSTGRES_DATABASE to a server of your own (`bash .ci/postgres-tests --serve` prints them for a server it \
    keeps running).
    """

  struct MissingServer: Error, CustomStringConvertible {
    var description: String { TestDatabase.missingServer }
  }

  /// The configuration the environment names; throws ``MissingServer`` (the test fails with how to start one).
  static func configuration(tableName: String = "shared_values") throws -> SharedPostgresDatabase.Configuration {
    let environment = ProcessInfo.processInfo.environment
    guard let host = environment["SHARED_POSTGRES_HOST"], let user = environment["SHARED_POSTGRES_USER"],
      let database = environment["SHARED_POSTGRES_DATABASE"]
    else { throw MissingServer() }
    return SharedPostgresDatabase.Configuration(
      host: host, port: Int(environment["SHARED_POSTGRES_PORT"] ?? "") ?? 5432, username: user,
      password: environment["SHARED_POSTGRES_PASSWORD"], database: database, tableName: tableName,
      reconnectDelay: .milliseconds(50), maximumReconnectDelay: .milliseconds(500))
  }

  /// A database object (an "instance") that listens already.
  static func instance(tableName: String = "shared_values") async throws -> SharedPostgresDatabase {
    let database = SharedPostgresDatabase(try configuration(tableName: tableName))
    try await bounded(.seconds(20)) { try await database.waitUntilListening() }
    return database
  }

  /// A key name no other test uses.
  static func uniqueKey(_ prefix: String = #function) -> String {
    "\(prefix.prefix { $0 != "(" })-\(UUID().uuidString)"
  }

  /// A plain connection, for the tests to look at rows and send notifications of their own.
  @discardableResult
  static func withConnection<Result: Sendable>(
    _ body: (PostgresConnection) async throws -> Result
  ) async throws -> Result {
    let configuration = try configuration()
    let connection = try await PostgresConnection.connect(
      configuration: .init(
        host: configuration.host, port: configuration.port, username: configuration.username,
        password: configuration.password, database: configuration.database, tls: .disable),
      id: 99, logger: Logger(label: "tests"))
    do {
      let result = try await body(connection)
      try await connection.close()
      return result
    } catch {
      try? await connection.close()
      throw error
    }
  }

  /// Writes `value` as version `version` of `key` and announces it, as another instance would.
  static func writeAsAnotherInstance(_ key: String, _ value: some Encodable, version: Int64) async throws {
    try await writeSilentlyAsAnotherInstance(key, value, version: version)
    try await announceAsAnotherInstance(key, value, version: version)
  }

  /// Writes `value` as version `version` of `key` without announcing it, as another instance whose notification is
  /// still on its way would (``announceAsAnotherInstance(_:_:version:)`` announces it later).
  static func writeSilentlyAsAnotherInstance(_ key: String, _ value: some Encodable, version: Int64) async throws {
    let json = String(decoding: try JSONEncoder().encode(value), as: UTF8.self)
    try await withConnection { connection in
      try await connection.query(
        """
        INSERT INTO shared_values (id, value, version, writer) VALUES (\(key), \(json), \(version), 'elsewhere')
        ON CONFLICT (id) DO UPDATE SET value = EXCLUDED.value, version = EXCLUDED.version, writer = EXCLUDED.writer
        """, logger: Logger(label: "tests"))
    }
  }

  /// Announces `value` as version `version` of `key`, as another instance would.
  static func announceAsAnotherInstance(_ key: String, _ value: some Encodable, version: Int64) async throws {
    let json = try JSONEncoder().encode(value)
    let payload = "\(version)" + ChangeAnnouncement.suffix(key: key, writer: "elsewhere", json: json)
    try await withConnection { connection in
      try await connection.query("SELECT pg_notify('shared_values', \(payload))::text", logger: Logger(label: "tests"))
    }
  }

  /// Deletes the row of `key`, as someone working on the table by hand would.
  static func deleteRow(_ key: String) async throws {
    try await withConnection { connection in
      try await connection.query("DELETE FROM shared_values WHERE id = \(key)", logger: Logger(label: "tests"))
    }
  }

  /// The stored JSON and version of `key`, or `nil`.
  static func row(_ key: String, table: String = "shared_values") async throws -> (json: String, version: Int64)? {
    try await withConnection { connection in
      let rows = try await connection.query(
        "SELECT value, version FROM \(unescaped: table) WHERE id = \(key)", logger: Logger(label: "tests"))
      for try await (json, version) in rows.decode((String, Int64).self) { return (json, version) }
      return nil
    }
  }
}

struct TimedOut: Error, CustomStringConvertible {
  var what: String
  var description: String { "timed out waiting for \(what)" }
}

/// Runs `body`, failing with ``TimedOut`` if it takes longer than `limit` (a bound on a failure, never a wait that
/// makes a test pass).
func bounded<Result: Sendable>(
  _ limit: Duration, _ what: String = "the operation",
  _ body: @escaping @Sendable () async throws -> Result
) async throws -> Result {
  try await withThrowingTaskGroup(of: Result?.self) { group in
    group.addTask { try await body() }
    group.addTask {
      try? await Task.sleep(for: limit)
      return nil
    }
    defer { group.cancelAll() }
    guard let first = try await group.next(), let result = first else { throw TimedOut(what: what) }
    return result
  }
}

/// Waits until `shared` holds a value for which `predicate` is true, observed through its values; fails after
/// `limit`.
func waitForValue<Value: Sendable>(
  _ shared: Shared<Value>, limit: Duration = .seconds(20), _ what: String = "the value",
  where predicate: @escaping @Sendable (Value) -> Bool
) async throws {
  try await bounded(limit, what) {
    for await value in shared.values where predicate(value) { return }
  }
}

/// Waits until `condition` holds, checking after each of the value's changes and at most every 10 ms (for states
/// that do not change the value, such as errors); fails after `limit`.
func waitUntil(
  limit: Duration = .seconds(20), _ what: String, _ condition: @escaping @Sendable () -> Bool
) async throws {
  try await bounded(limit, what) {
    while !condition() { try await Task.sleep(for: .milliseconds(10)) }
  }
}
