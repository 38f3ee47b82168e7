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
/// meanwhile holders see ``SharedPostgresError/disconnected(reason:)`` as their `loadError` (and failed saves as
/// `saveError`), keep their changes, and save them once the server is back, after every held value is reloaded.
/// Call ``close(flushingWithin:)`` when done with it: it writes the changes not saved yet first.
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
  /// > Important: The table's and the channel's names must be plain SQL names (lower-case ASCII letters, digits
  /// > and `_`, not starting with a digit, at most 63 bytes). The configuration's initializer checks them, and so
  /// > does this one, since both are settable afterwards: a name that is not plain stops the program with a message
  /// > naming it.
  ///
  /// - Parameter configuration: The server, credentials, table and channel.
  public init(_ configuration: Configuration) {
    precondition(
      Configuration.isPlainName(configuration.tableName),
      "SharedPostgresDatabase: the table name must be lower-case letters, digits and _ (not starting with a digit, "
        + "at most 63 bytes): \(configuration.tableName)")
    precondition(
      Configuration.isPlainName(configuration.channel),
      "SharedPostgresDatabase: the channel name must be lower-case letters, digits and _ (not starting with a "
        + "digit, at most 63 bytes): \(configuration.channel)")
    self.configuration = configuration
    self.core = DatabaseCore(configuration: configuration)
    core.start()
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
  /// were reloaded on it). Returns at once when it is; throws `CancellationError` if the caller is cancelled.
  ///
  /// A program need not call it: values load and save without it. Call it before relying on hearing changes, in a
  /// test say.
  ///
  /// ```swift
  /// try await database.waitUntilListening()
  /// ```
  public func waitUntilListening() async throws {
    try await core.waitUntilListening()
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
