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
    }
  }
}
