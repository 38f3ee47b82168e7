import Foundation

/// The names this integration puts into SQL: the table (optionally qualified by its schema) and the channel, checked
/// against what PostgreSQL accepts and quoted, so any name PostgreSQL supports works as it is written.
enum SQLName {
  /// PostgreSQL keeps the first 63 bytes of a longer name (`NAMEDATALEN` - 1), so two long names could meet.
  static let maximumBytes = 63

  /// The table's name quoted for SQL: `"table"`, or `"schema"."table"` for a name with one dot.
  ///
  /// - Throws: ``SharedPostgresError/invalidTableName(_:reason:)`` for an empty part, more than one dot, a NUL byte
  ///   or a part longer than 63 bytes.
  static func quotedTable(_ name: String) throws(SharedPostgresError) -> String {
    let parts = name.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count <= 2 else {
      throw .invalidTableName(
        name, reason: "a table name is `table` or `schema.table`: it has more than one dot")
    }
    for part in parts {
      if let problem = problem(
        with: part, what: parts.count == 2 && part == parts[0] ? "the schema's name" : "the name")
      {
        throw .invalidTableName(name, reason: problem)
      }
    }
    return parts.map { quote($0) }.joined(separator: ".")
  }

  /// Checks the channel's name.
  ///
  /// - Throws: ``SharedPostgresError/invalidChannel(_:reason:)`` for an empty name, a NUL byte, a `"` or more than
  ///   63 bytes.
  static func checkChannel(_ name: String) throws(SharedPostgresError) {
    if let problem = problem(with: Substring(name), what: "the name") {
      throw .invalidChannel(name, reason: problem)
    }
    // postgres-nio writes `LISTEN "channel"` without doubling a quote in it.
    if name.contains("\"") {
      throw .invalidChannel(name, reason: "a channel's name cannot hold a double quote (\")")
    }
  }

  /// What makes `part` unusable as a quoted PostgreSQL name, or `nil`.
  private static func problem(with part: Substring, what: String) -> String? {
    if part.isEmpty { return "\(what) is empty" }
    if part.utf8.contains(0) { return "\(what) holds a NUL byte, which no PostgreSQL name can" }
    if part.utf8.count > maximumBytes {
      return "\(what) is \(part.utf8.count) bytes long; PostgreSQL names are at most \(maximumBytes) bytes "
        + "(it cuts longer ones short)"
    }
    return nil
  }

  /// `part` between double quotes, with a `"` in it doubled, as SQL quoting asks.
  static func quote(_ part: some StringProtocol) -> String {
    "\"" + part.replacingOccurrences(of: "\"", with: "\"\"") + "\""
  }
}
