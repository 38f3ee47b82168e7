import Foundation
import Logging
import PostgresNIO
import SharedState
import Synchronization
import Testing

@testable import SharedPostgres

extension ServerTests {
  /// What a failure says: the underlying error and the server's message stay reachable, every wait has a deadline,
  /// and the logs never hold the password.
  @Suite struct ErrorTests {
    @Test func aWrongPasswordIsThrownAtOnceByWaitUntilListeningWithTheServersMessage() async throws {
      var configuration = try TestDatabase.configuration()
      configuration.password = "not-the-password-4711"
      let database = SharedPostgresDatabase(configuration)
      // The time-out is far longer than the bound: the refused login is thrown, not waited out.
      let error = await #expect(throws: SharedPostgresError.self) {
        try await bounded(.seconds(30)) { try await database.waitUntilListening(timeout: .seconds(600)) }
      }
      let cause = try #require(error?.cause)
      #expect(cause.kind == .authenticationFailed)
      #expect(cause.sqlState == "28P01")
      #expect(cause.serverMessage?.contains("password authentication failed") == true)
      #expect(cause.underlying is PSQLError)
      #expect(String(describing: error).contains("password authentication failed"))
      #expect(!String(describing: error).contains("not-the-password-4711"))

      // A held value says the same as its load error.
      let flags = Shared(wrappedValue: Flags(), .postgres(TestDatabase.uniqueKey(), in: database))
      await #expect(throws: SharedPostgresError.self) { try await flags.load() }
      #expect((flags.loadError as? SharedPostgresError)?.cause?.sqlState == "28P01")
      await database.close()
    }

    @Test func anUnreachableServerIsThrownByWaitUntilListeningAfterItsTimeout() async throws {
      var configuration = try TestDatabase.configuration()
      configuration.port = 1  // Nothing listens there.
      let database = SharedPostgresDatabase(configuration)
      let error = await #expect(throws: SharedPostgresError.self) {
        try await bounded(.seconds(30)) { try await database.waitUntilListening(timeout: .seconds(5)) }
      }
      guard case .disconnected(let cause)? = error else {
        Issue.record("expected a disconnection, got \(String(describing: error))")
        return
      }
      #expect(cause.kind == .unreachable)
      #expect(cause.underlying is PSQLError)
      await database.close()
    }

    /// A statement the server refuses (here the table's creation, by a user without `CREATE` on the schema) is a
    /// statement failure carrying the server's message and code, not a flattened string.
    @Test func aStatementTheServerRefusesCarriesItsMessageAndCode() async throws {
      guard let limitedUser = ProcessInfo.processInfo.environment["SHARED_POSTGRES_LIMITED_USER"] else {
        throw FaultTests.MissingCommand(name: "SHARED_POSTGRES_LIMITED_USER")
      }
      var configuration = try TestDatabase.configuration(tableName: "never_made_\(UInt32.random(in: 0...UInt32.max))")
      configuration.username = limitedUser
      let database = SharedPostgresDatabase(configuration)
      let flags = Shared(wrappedValue: Flags(), .postgres(TestDatabase.uniqueKey(), in: database))
      await #expect(throws: SharedPostgresError.self) { try await flags.load() }
      guard case .statementFailed(let cause)? = flags.loadError as? SharedPostgresError else {
        Issue.record("expected a statement failure, got \(String(describing: flags.loadError))")
        return
      }
      #expect(cause.kind == .serverError)
      #expect(cause.sqlState == "42501")
      #expect(cause.serverMessage?.contains("permission denied") == true)
      await database.close()
    }

    /// Everything the database and postgres-nio log, down to `trace`, for a login that works and one that is
    /// refused: the connections are logged, and neither password ever is.
    @Test func theLoggerHearsTheConnectionsAndNeverThePassword() async throws {
      let logs = CapturedLogs()
      var logger = Logger(label: "tests") { _ in CapturingLogHandler(logs: logs) }
      logger.logLevel = .trace
      var configuration = try TestDatabase.configuration()
      configuration.logger = logger
      let password = try #require(configuration.password)
      let database = SharedPostgresDatabase(configuration)
      try await bounded(.seconds(20)) { try await database.waitUntilListening() }
      let flags = Shared(wrappedValue: Flags(), .postgres(TestDatabase.uniqueKey(), in: database))
      try await flags.load()
      flags.withLock { $0.limit = 3 }
      try await flags.save()
      await database.close()

      configuration.password = "wrong-secret-0815"
      let refused = SharedPostgresDatabase(configuration)
      await #expect(throws: SharedPostgresError.self) {
        try await bounded(.seconds(30)) { try await refused.waitUntilListening(timeout: .seconds(600)) }
      }
      await refused.close()

      let entries = logs.entries
      #expect(entries.contains { $0.level == .info && $0.text.contains("listening") })
      #expect(entries.contains { $0.level == .warning && $0.text.contains("28P01") })
      #expect(!entries.contains { $0.text.contains(password) })
      #expect(!entries.contains { $0.text.contains("wrong-secret-0815") })
    }
  }
}

/// The entries a ``CapturingLogHandler`` received: each message with its metadata, as text.
final class CapturedLogs: Sendable {
  struct Entry: Sendable {
    var level: Logger.Level
    var text: String
  }

  private let storage = Mutex<[Entry]>([])

  func append(_ entry: Entry) { storage.withLock { $0.append(entry) } }

  var entries: [Entry] { storage.withLock { $0 } }
}

/// A log handler that keeps every entry, message and metadata, for the tests to read.
struct CapturingLogHandler: LogHandler {
  let logs: CapturedLogs
  var metadata: Logger.Metadata = [:]
  var metadataProvider: Logger.MetadataProvider?
  var logLevel: Logger.Level = .trace

  subscript(metadataKey key: String) -> Logger.Metadata.Value? {
    get { metadata[key] }
    set { metadata[key] = newValue }
  }

  func log(event: LogEvent) {
    let all = metadata.merging(event.metadata ?? [:]) { $1 }
    let text = "\(event.message) \(all.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: " "))"
    logs.append(.init(level: event.level, text: text))
  }
}
