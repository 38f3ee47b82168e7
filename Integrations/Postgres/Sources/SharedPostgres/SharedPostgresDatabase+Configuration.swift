public import Logging

extension SharedPostgresDatabase {
  /// Where the database is and how to reach it: server, credentials, TLS, the table that holds the values, the
  /// channel their changes are announced on, the deadlines of every wait, and the logger.
  ///
  /// ```swift
  /// let configuration = SharedPostgresDatabase.Configuration(
  ///   host: "db.internal", username: "app", password: secret, database: "app", tls: .require())
  /// let database = try SharedPostgresDatabase(validating: configuration)
  /// ```
  ///
  /// Its description, and its reflection (`dump`, `Mirror`), name the server, user, database, TLS mode, table and
  /// channel, never the password.
  public struct Configuration: Sendable, CustomStringConvertible, CustomReflectable {
    /// The server's host name or address.
    public var host: String
    /// The server's port.
    public var port: Int
    /// The user to connect as.
    public var username: String
    /// The user's password; never logged, never part of ``description``.
    public var password: String?
    /// The database to connect to.
    public var database: String
    /// Whether the connections use TLS, and how the server is verified; ``TLS/disable`` by default.
    public var tls: TLS
    /// The table that holds one row per key (created if missing), as it is written: `shared_values`, `My-Table`,
    /// `shared values`, `ünïcode`, or a table in another schema, `app.shared_values`.
    ///
    /// The name is quoted in every statement, so it names the table exactly as written: upper-case letters, spaces
    /// and keywords (`user`) work, and SQL written by hand must quote such a name too (`"My-Table"`). One dot
    /// separates the schema from the table (the schema must exist); each part is 1 to 63 bytes of UTF-8 without a
    /// NUL byte. ``validate()`` and ``SharedPostgresDatabase/init(validating:)`` throw
    /// ``SharedPostgresError/invalidTableName(_:reason:)`` for a name that is not.
    public var tableName: String
    /// The channel changes are announced on: 1 to 63 bytes of UTF-8, without a NUL byte or a `"`, used exactly as
    /// written (quoted). ``validate()`` throws ``SharedPostgresError/invalidChannel(_:reason:)`` for one that is not.
    public var channel: String
    /// The first wait before connecting again after the server was lost; each failed attempt doubles it.
    public var reconnectDelay: Duration
    /// The longest wait between two attempts to connect again.
    public var maximumReconnectDelay: Duration
    /// How often each connection is checked with a cheap query (`SELECT 1`): the listening one always, the one that
    /// reads and writes when it was idle since the last check. A check that gets no answer before the next one
    /// means the connection is gone without the network saying so (a half-open connection, after a network
    /// partition or a server host lost): it is closed and made again.
    public var keepaliveInterval: Duration
    /// The longest wait for a connection to be made: TCP, TLS and the login. An attempt that takes longer fails
    /// with ``SharedPostgresError/Cause/Kind/timedOut`` and is made again after the reconnect delay.
    public var connectTimeout: Duration
    /// The longest wait for the statements of one read or one save (and for the `LISTEN` that starts listening):
    /// past it the connection is taken as partitioned, closed, and the read or save fails with
    /// ``SharedPostgresError/Cause/Kind/timedOut`` (a failed save is written again once a connection works). A merge
    /// function that a save calls while it holds the connection counts toward it: keep merges quick.
    public var statementTimeout: Duration
    /// Where the database logs what happens to its connections: lost, made again, partitions found, saves that
    /// failed. postgres-nio logs through it too, at `debug` and `trace`. Nothing logged holds the password.
    public var logger: Logger

    /// Creates a configuration.
    ///
    /// ```swift
    /// let configuration = SharedPostgresDatabase.Configuration(
    ///   host: "127.0.0.1", port: 5432, username: "app", password: "secret", database: "app",
    ///   tableName: "feature_values", channel: "feature_values")
    /// ```
    ///
    /// The names are not checked here (both are settable afterwards): ``validate()`` checks them, and so does
    /// ``SharedPostgresDatabase/init(validating:)``.
    ///
    /// - Parameters:
    ///   - host: The server's host name or address.
    ///   - port: The server's port.
    ///   - username: The user to connect as.
    ///   - password: The user's password, or `nil` for a server that asks for none.
    ///   - database: The database to connect to.
    ///   - tableName: The table of values, created if missing; `schema.table` for one in another schema.
    ///   - channel: The channel changes are announced on; every instance that shares the values uses the same.
    ///   - reconnectDelay: The first wait before connecting again after the server was lost.
    ///   - maximumReconnectDelay: The longest wait between two attempts.
    ///   - keepaliveInterval: How often the connections are checked; a check not answered by the next one closes
    ///     the connection, and it is made again.
    ///   - tls: Whether to use TLS, and how to verify the server.
    ///   - connectTimeout: The longest wait for a connection to be made.
    ///   - statementTimeout: The longest wait for the statements of one read or save.
    ///   - logger: Where to log what happens to the connections.
    public init(
      host: String,
      port: Int = 5432,
      username: String,
      password: String?,
      database: String,
      tableName: String = "shared_values",
      channel: String = "shared_values",
      reconnectDelay: Duration = .milliseconds(100),
      maximumReconnectDelay: Duration = .seconds(5),
      keepaliveInterval: Duration = .seconds(10),
      tls: TLS = .disable,
      connectTimeout: Duration = .seconds(10),
      statementTimeout: Duration = .seconds(10),
      logger: Logger = Logger(label: "SharedPostgres")
    ) {
      precondition(reconnectDelay > .zero && maximumReconnectDelay >= reconnectDelay, "Invalid reconnect delays")
      precondition(keepaliveInterval > .zero, "Invalid keepalive interval")
      precondition(connectTimeout > .zero && statementTimeout > .zero, "Invalid timeouts")
      self.host = host
      self.port = port
      self.username = username
      self.password = password
      self.database = database
      self.tls = tls
      self.tableName = tableName
      self.channel = channel
      self.reconnectDelay = reconnectDelay
      self.maximumReconnectDelay = maximumReconnectDelay
      self.keepaliveInterval = keepaliveInterval
      self.connectTimeout = connectTimeout
      self.statementTimeout = statementTimeout
      self.logger = logger
    }

    /// Checks the table's and the channel's names and the TLS settings, as
    /// ``SharedPostgresDatabase/init(validating:)`` does.
    ///
    /// ```swift
    /// var configuration = SharedPostgresDatabase.Configuration(
    ///   host: "db.internal", username: "app", password: secret, database: "app")
    /// configuration.tableName = "app.shared_values"
    /// try configuration.validate()
    /// ```
    ///
    /// - Throws: ``SharedPostgresError/invalidTableName(_:reason:)``,
    ///   ``SharedPostgresError/invalidChannel(_:reason:)`` or ``SharedPostgresError/invalidTLS(reason:)``.
    public func validate() throws {
      _ = try SQLName.quotedTable(tableName)
      try SQLName.checkChannel(channel)
      _ = try tls.makeContext()
    }

    /// The server, user, database, TLS mode, table and channel; the password is left out.
    public var description: String {
      "postgres://\(username)@\(host):\(port)/\(database) (table \(tableName), channel \(channel), TLS \(tls))"
    }

    /// Every setting but the password (and the logger), for `dump` and debuggers.
    ///
    /// ```swift
    /// dump(configuration)  // host, port, username, database, tls, tableName, ... (no password)
    /// ```
    public var customMirror: Mirror {
      Mirror(
        self,
        children: [
          "host": host, "port": port, "username": username, "database": database, "tls": tls.description,
          "tableName": tableName, "channel": channel, "reconnectDelay": reconnectDelay,
          "maximumReconnectDelay": maximumReconnectDelay, "keepaliveInterval": keepaliveInterval,
          "connectTimeout": connectTimeout, "statementTimeout": statementTimeout,
        ], displayStyle: .struct)
    }
  }
}
