import Foundation

/// The identity of a ``PostgresKey``: the database it lives in, and its key in that database's table.
public struct PostgresKeyID: Hashable, Sendable {
  /// The instance of the database object the key belongs to.
  let database: UUID
  /// The key's row in the table.
  let name: String
}
