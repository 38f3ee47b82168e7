import Logging
import NIOCore
import PostgresNIO

/// What making a connection takes: postgres-nio's configuration (or the configuration's problem, when it names a
/// table, a channel or TLS settings that cannot be used), the deadlines and the logger.
struct ConnectionSettings: Sendable {
  /// postgres-nio's configuration, or why there is none: then nothing connects.
  let postgres: Result<PostgresConnection.Configuration, SharedPostgresError>
  let connectTimeout: Duration
  let statementTimeout: Duration
  let keepaliveInterval: Duration
  let logger: Logger

  init(_ configuration: SharedPostgresDatabase.Configuration) {
    self.connectTimeout = configuration.connectTimeout
    self.statementTimeout = configuration.statementTimeout
    self.keepaliveInterval = configuration.keepaliveInterval
    self.logger = configuration.logger
    self.postgres = Result { () throws(SharedPostgresError) in
      _ = try SQLName.quotedTable(configuration.tableName)
      try SQLName.checkChannel(configuration.channel)
      let tls: PostgresConnection.Configuration.TLS
      switch (configuration.tls.mode, try configuration.tls.makeContext()) {
      case (.prefer, let context?): tls = .prefer(context)
      case (.require, let context?): tls = .require(context)
      default: tls = .disable
      }
      var postgres = PostgresConnection.Configuration(
        host: configuration.host, port: configuration.port, username: configuration.username,
        password: configuration.password, database: configuration.database, tls: tls)
      // postgres-nio's deadline covers TCP, the TLS handshake and the login.
      postgres.options.connectTimeout = TimeAmount(configuration.connectTimeout)
      return postgres
    }
  }

  /// The configuration's problem, if it has one.
  var problem: SharedPostgresError? {
    if case .failure(let problem) = postgres { return problem }
    return nil
  }

  /// Connects, within the connect deadline.
  ///
  /// - Throws: The configuration's problem, or ``SharedPostgresError/disconnected(_:)`` with the cause.
  func connect(id: Int) async throws -> PostgresConnection {
    let configuration = try postgres.get()
    do {
      return try await PostgresConnection.connect(configuration: configuration, id: id, logger: logger)
    } catch {
      throw SharedPostgresError.wrapping(error, whileConnecting: true)
    }
  }
}
