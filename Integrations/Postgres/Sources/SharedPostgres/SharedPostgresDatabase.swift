import Foundation

/// A PostgreSQL database that shares values between the instances of a program: the table that holds them, one
/// connection that hears other instances' changes (`LISTEN`), and one that reads and writes.
///
/// Make one per process and server, and hand it to every ``PostgresKey``:
///
/// ```swift
/// let database = SharedPostgresDatabase(
///   .init(host: "db.internal", username: "app", password: secret, database: "app"))
///
/// func enableBeta(database: SharedPostgresDatabase) {
///   @Shared(.postgres("feature-flags", in: database)) var flags = Flags()
///   $flags.withLock { $0.beta = true }   // saved, and every other instance hears it
/// }
/// ```
///
/// It connects on its own, in the background, and connects again with a growing delay when the server is lost;
/// meanwhile holders see ``SharedPostgresError/disconnected(_:)`` as their `loadError` (and failed saves as
/// `saveError`), with the ``SharedPostgresError/Cause`` (the server's message for a refused login), keep their
/// changes, and save them once the server is back, after every held value is reloaded. Every wait on the network
/// has a deadline (the configuration's `connectTimeout`, `statementTimeout` and `keepaliveInterval`), so a network
/// partition shows as an error, and a `save()` returns, instead of hanging. Call ``close(flushingWithin:)`` when done
/// with it: it writes the changes not saved yet first.
public final class SharedPostgresDatabase: Sendable, CustomStringConvertible, CustomReflectable {
  /// Where the database is and how to reach it.
  public let configuration: Configuration
  let core: DatabaseCore

  /// Connects, in the background, to the database that `configuration` names.
  ///
  /// ```swift
  /// let database = SharedPostgresDatabase(
  ///   .init(host: "127.0.0.1", username: "app", password: "secret", database: "app"))
  /// ```
  ///
  /// A configuration that cannot be used (a table or channel name PostgreSQL does not accept, a certificate
  /// authority that does not parse) does not stop the program: the database connects to nothing, logs the problem,
  /// and every load, save and ``waitUntilListening(timeout:)`` fails with it (as `loadError` and `saveError`).
  /// ``init(validating:)`` throws it instead.
  ///
  /// - Parameter configuration: The server, credentials, TLS, table and channel.
  public init(_ configuration: Configuration) {
    self.configuration = configuration
    self.core = DatabaseCore(configuration: configuration)
    core.start()
  }

  /// Checks `configuration` (``Configuration/validate()``) and connects, in the background, to the database it
  /// names.
  ///
  /// ```swift
  /// var configuration = SharedPostgresDatabase.Configuration(
  ///   host: "db.internal", username: "app", password: secret, database: "app")
  /// configuration.tableName = "app.shared_values"
  /// let database = try SharedPostgresDatabase(validating: configuration)
  /// ```
  ///
  /// - Parameter configuration: The server, credentials, TLS, table and channel.
  /// - Throws: ``SharedPostgresError/invalidTableName(_:reason:)``,
  ///   ``SharedPostgresError/invalidChannel(_:reason:)`` or ``SharedPostgresError/invalidTLS(reason:)``; nothing
  ///   connects then.
  public convenience init(validating configuration: Configuration) throws {
    try configuration.validate()
    self.init(configuration)
  }

  deinit {
    core.stop()
  }

  /// This instance's name in the table's `writer` column and in its notifications; its own changes are recognised
  /// by it and never applied twice.
  public var instanceID: String { core.instanceID }

  /// The configuration, without the password.
  public var description: String { "SharedPostgresDatabase(\(configuration))" }

  /// The configuration (without the password) and the instance's name, for `dump` and debuggers; the connections'
  /// settings, which hold the password, are left out.
  ///
  /// ```swift
  /// dump(database)
  /// ```
  public var customMirror: Mirror {
    Mirror(self, children: ["configuration": configuration, "instanceID": instanceID], displayStyle: .class)
  }

  /// Waits until this instance hears other instances' changes: the `LISTEN` connection is up (and the held values
  /// were reloaded on it). Returns at once when it is.
  ///
  /// A program need not call it: values load and save without it. Call it before relying on hearing changes, in a
  /// test say.
  ///
  /// ```swift
  /// try await database.waitUntilListening(timeout: .seconds(10))
  /// ```
  ///
  /// - Parameter timeout: The longest wait; 30 seconds by default.
  /// - Throws: At once, ``SharedPostgresError/disconnected(_:)`` when the server refused the login (a wrong
  ///   password: the cause holds the server's message and its SQLSTATE, `28P01`), the TLS handshake or the
  ///   database, since connecting again cannot fix that by itself, and the configuration's problem for one that
  ///   cannot be used; after `timeout`, ``SharedPostgresError/disconnected(_:)`` with the last failure's cause (the
  ///   server unreachable, say) or a time-out; ``SharedPostgresError/closed`` when the database is closed;
  ///   `CancellationError` when the caller is cancelled.
  public func waitUntilListening(timeout: Duration = .seconds(30)) async throws {
    try await core.waitUntilListening(timeout: timeout)
  }

  /// Writes the changes not saved yet, then stops listening and closes the connections; later loads and saves fail
  /// with ``SharedPostgresError/closed``.
  ///
  /// ```swift
  /// enableBeta(database: database)   // a change, whose save may not have started yet
  /// let unwritten = await database.close()
  /// for change in unwritten { print("not saved:", change.key, change.error) }
  /// ```
  ///
  /// It first waits for the writes in flight, then writes every value in memory that holds a change of the program
  /// not in the row yet (a value whose holders are gone too, while the framework's save of it has not run), each as
  /// its key's save would: replacing the row, or combined with it under merge. It waits at most `deadline` for all
  /// this; whatever could not be written by then, or failed (the server is away, the row does not decode), is
  /// returned, one entry per key, and is lost when the program ends. A value the program never changed is not
  /// written.
  ///
  /// - Parameter deadline: The longest wait for the writes; 5 seconds by default.
  /// - Returns: The changes that were not written, with the reason of each (``SharedPostgresError/notWrittenBeforeClose(key:)``
  ///   for the deadline); empty when every change is in the table.
  @discardableResult
  public func close(flushingWithin deadline: Duration = .seconds(5)) async -> [UnwrittenChange] {
    await core.close(flushingWithin: deadline)
  }
}
