extension SharedPostgresDatabase {
  /// Where the database is and how to reach it: server, credentials, the table that holds the values and the
  /// channel their changes are announced on.
  ///
  /// ```swift
  /// let configuration = SharedPostgresDatabase.Configuration(
  ///   host: "db.internal", username: "app", password: secret, database: "app")
  /// let database = SharedPostgresDatabase(configuration)
  /// ```
  ///
  /// Its description, and its reflection (`dump`, `Mirror`), name the server, user, database, table and channel,
  /// never the password.
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
    /// The table that holds one row per key (created if missing): lower-case letters, digits and underscores (a
    /// keyword such as `user` works too: the name is quoted).
    public var tableName: String
    /// The channel changes are announced on: lower-case letters, digits and underscores. Like ``tableName``, it is
    /// checked here and again by ``SharedPostgresDatabase/init(_:)``, which stops the program on a name that is not
    /// plain.
    public var channel: String
    /// The first wait before connecting again after the server was lost; each failed attempt doubles it.
    public var reconnectDelay: Duration
    /// The longest wait between two attempts to connect again.
    public var maximumReconnectDelay: Duration
    /// How often the listening connection is checked with a cheap query (`SELECT 1`): one that gets no answer
    /// before the next check means the connection is gone without the network saying so (a half-open connection,
    /// after a network partition or a server host lost), and it is closed and made again.
    public var keepaliveInterval: Duration

    /// Creates a configuration.
    ///
    /// ```swift
    /// let configuration = SharedPostgresDatabase.Configuration(
    ///   host: "127.0.0.1", port: 5432, username: "app", password: "secret", database: "app",
    ///   tableName: "feature_values", channel: "feature_values")
    /// ```
    ///
    /// - Parameters:
    ///   - host: The server's host name or address.
    ///   - port: The server's port.
    ///   - username: The user to connect as.
    ///   - password: The user's password, or `nil` for a server that asks for none.
    ///   - database: The database to connect to.
    ///   - tableName: The table of values, created if missing.
    ///   - channel: The channel changes are announced on; every instance that shares the values uses the same.
    ///   - reconnectDelay: The first wait before connecting again after the server was lost.
    ///   - maximumReconnectDelay: The longest wait between two attempts.
    ///   - keepaliveInterval: How often the listening connection is checked; a check not answered by the next one
    ///     closes it, and it is made again.
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
      keepaliveInterval: Duration = .seconds(10)
    ) {
      precondition(Self.isPlainName(tableName), "A table name is lower-case letters, digits and _: \(tableName)")
      precondition(Self.isPlainName(channel), "A channel name is lower-case letters, digits and _: \(channel)")
      precondition(reconnectDelay > .zero && maximumReconnectDelay >= reconnectDelay, "Invalid reconnect delays")
      precondition(keepaliveInterval > .zero, "Invalid keepalive interval")
      self.host = host
      self.port = port
      self.username = username
      self.password = password
      self.database = database
      self.tableName = tableName
      self.channel = channel
      self.reconnectDelay = reconnectDelay
      self.maximumReconnectDelay = maximumReconnectDelay
      self.keepaliveInterval = keepaliveInterval
    }

    /// The server, user, database, table and channel; the password is left out.
    public var description: String {
      "postgres://\(username)@\(host):\(port)/\(database) (table \(tableName), channel \(channel))"
    }

    /// Every setting but the password, for `dump` and debuggers.
    ///
    /// ```swift
    /// dump(configuration)  // host, port, username, database, tableName, ... (no password)
    /// ```
    public var customMirror: Mirror {
      Mirror(
        self,
        children: [
          "host": host, "port": port, "username": username, "database": database, "tableName": tableName,
          "channel": channel, "reconnectDelay": reconnectDelay, "maximumReconnectDelay": maximumReconnectDelay,
          "keepaliveInterval": keepaliveInterval,
        ], displayStyle: .struct)
    }

    /// Whether `name` can be used in SQL: lower-case ASCII letters, digits and `_`, not starting with a
    /// digit, at most 63 bytes.
    static func isPlainName(_ name: String) -> Bool {
      guard let first = name.utf8.first, name.utf8.count <= 63, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first)
      else { return false }
      return name.utf8.allSatisfy { byte in
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
          || byte == UInt8(ascii: "_")
      }
    }
  }
}
