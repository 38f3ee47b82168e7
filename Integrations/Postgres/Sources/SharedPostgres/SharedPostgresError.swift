/// Why a value backed by PostgreSQL could not be read or saved.
///
/// Exposed as `loadError` or `saveError` of the shared value:
///
/// ```swift
/// if case .undecodable(let key, _) = $flags.loadError as? SharedPostgresError {
///   print("the row of \(key) holds something else")
/// }
/// ```
public enum SharedPostgresError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The row of `key` does not hold a JSON document of the value's type; it is left untouched until the value is
  /// written.
  case undecodable(key: String, reason: String)
  /// The value of `key` could not be encoded as JSON.
  case unencodable(key: String, reason: String)
  /// The connection that hears other instances' changes is lost; the database connects again on its own, then
  /// reloads every held value and saves the changes made meanwhile.
  case disconnected(reason: String)
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
    case .disconnected(let reason):
      return "The connection to PostgreSQL is lost (connecting again): \(reason)"
    case .closed:
      return "The PostgreSQL database was closed"
    case .undecodableRow(let key, let version):
      return
        "Not written: the row of \(key) (version \(version)) does not decode as this type; overwrite or migrate it"
    case .notWrittenBeforeClose(let key):
      return "The change of \(key) was not written before the database closed"
    }
  }
}
