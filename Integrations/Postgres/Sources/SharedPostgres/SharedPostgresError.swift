/// Why a value backed by PostgreSQL could not be read or saved.
///
/// Exposed as `loadError` or `saveError` of the shared value:
///
/// ```swift
/// if case .undecodable(let key, _) = $flags.loadError as? SharedPostgresError {
///   print("the row of \(key) holds something else")
/// }
/// ```
///
/// A connection that failed carries its ``Cause``: what kind of failure it was, the server's own message and
/// SQLSTATE code when the server sent one, and the error underneath:
///
/// ```swift
/// if case .disconnected(let cause) = $flags.loadError as? SharedPostgresError, cause.kind == .authenticationFailed {
///   print(cause.serverMessage ?? "")  // password authentication failed for user "app"
/// }
/// ```
public enum SharedPostgresError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The row of `key` does not hold a JSON document of the value's type; it is left untouched until the value is
  /// written.
  case undecodable(key: String, reason: String)
  /// The value of `key` could not be encoded as JSON.
  case unencodable(key: String, reason: String)
  /// The server cannot be reached, refused the login or the TLS handshake, stopped answering within the
  /// configuration's deadlines (a network partition), or closed the connection: ``Cause`` says which. The database
  /// connects again on its own, then reloads every held value and saves the changes made meanwhile.
  case disconnected(Cause)
  /// The server refused a statement on a working connection (a missing privilege on the table, say); ``Cause``
  /// carries its message and SQLSTATE code. Failed saves are written again with the reconnect delays.
  case statementFailed(Cause)
  /// The configuration's table name cannot name a PostgreSQL table: the database connects to nothing. See
  /// ``SharedPostgresDatabase/Configuration/tableName`` for what a name may be.
  case invalidTableName(String, reason: String)
  /// The configuration's channel cannot name a PostgreSQL channel: the database connects to nothing. See
  /// ``SharedPostgresDatabase/Configuration/channel`` for what a name may be.
  case invalidChannel(String, reason: String)
  /// The key cannot be the id of a row (it holds a NUL byte, or is longer than ``PostgresKey/maximumNameBytes``):
  /// nothing is read or written for it.
  case invalidKey(String, reason: String)
  /// The configuration's TLS settings cannot be used (the certificate authority's PEM does not parse, or its file
  /// cannot be read): the database connects to nothing.
  case invalidTLS(reason: String)
  /// The database was closed: nothing is loaded or saved any more.
  case closed
  /// A write was refused: the row of `key` holds, at `version`, JSON that does not decode as the value's type (a
  /// newer schema, or an edit by hand), and no migration of the key converts it. Nothing is written over it until
  /// the program decides: ``PostgresKey/overwrite(with:)``, or a key made with a `migration`.
  case undecodableRow(key: String, version: Int64)
  /// ``SharedPostgresDatabase/close(flushingWithin:)`` reached its deadline before the change of `key` was
  /// written.
  case notWrittenBeforeClose(key: String)

  /// A sentence naming the key and the problem (never a password).
  public var description: String {
    switch self {
    case .undecodable(let key, let reason):
      return "The row of \(key) does not hold a value of this type: \(reason)"
    case .unencodable(let key, let reason):
      return "The value of \(key) cannot be encoded as JSON: \(reason)"
    case .disconnected(let cause):
      return "The connection to PostgreSQL is lost (connecting again): \(cause)"
    case .statementFailed(let cause):
      return "PostgreSQL refused a statement: \(cause)"
    case .invalidTableName(let name, let reason):
      return "The table name \(Self.shown(name)) cannot be used: \(reason)"
    case .invalidChannel(let name, let reason):
      return "The channel name \(Self.shown(name)) cannot be used: \(reason)"
    case .invalidKey(let key, let reason):
      return "The key \(Self.shown(key)) cannot be stored: \(reason)"
    case .invalidTLS(let reason):
      return "The TLS settings cannot be used: \(reason)"
    case .closed:
      return "The PostgreSQL database was closed"
    case .undecodableRow(let key, let version):
      return
        "Not written: the row of \(key) (version \(version)) does not decode as this type; overwrite or migrate it"
    case .notWrittenBeforeClose(let key):
      return "The change of \(key) was not written before the database closed"
    }
  }

  /// The cause of a connection that failed, or of a statement the server refused; `nil` for the other cases.
  ///
  /// ```swift
  /// let serverMessage = ($flags.saveError as? SharedPostgresError)?.cause?.serverMessage
  /// ```
  public var cause: Cause? {
    switch self {
    case .disconnected(let cause), .statementFailed(let cause): return cause
    default: return nil
    }
  }

  /// `name` quoted and escaped for a message, and cut short when long (a key may be kilobytes long).
  private static func shown(_ name: String) -> String {
    let limit = 80
    let head =
      name.unicodeScalars.count > limit ? String(String.UnicodeScalarView(name.unicodeScalars.prefix(limit))) : name
    let escaped = head.debugDescription
    guard head.unicodeScalars.count < name.unicodeScalars.count else { return escaped }
    return "\(escaped)… (\(name.utf8.count) bytes)"
  }
}
