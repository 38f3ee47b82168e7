import Foundation
import Logging
import PostgresNIO

/// The SQL of the values' table: one row per key, with its JSON, a version that only grows and the instance that
/// wrote it. Every write announces itself on the channel in the same transaction.
struct ValueTable: Sendable {
  /// The table's name, checked to be a plain SQL name.
  let name: String
  /// The channel's name, checked to be a plain SQL name.
  let channel: String
  /// The instance that writes.
  let writer: String
  let logger: Logger

  /// A row: the value's JSON and its version.
  struct Row: Sendable {
    var json: Data
    var version: Int64
  }

  func create(on connection: PostgresConnection) async throws {
    // Two instances creating the table at once may collide in the catalog; the loser finds the table made.
    do {
      try await connection.query(createStatement, logger: logger)
    } catch {
      try await connection.query(createStatement, logger: logger)
    }
  }

  private var createStatement: PostgresQuery {
    """
    CREATE TABLE IF NOT EXISTS \(unescaped: name) (
      id text PRIMARY KEY,
      value text NOT NULL,
      version bigint NOT NULL,
      writer text NOT NULL,
      updated_at timestamptz NOT NULL DEFAULT now()
    )
    """
  }

  func read(_ key: String, on connection: PostgresConnection, forUpdate: Bool = false) async throws -> Row? {
    let lock = forUpdate ? " FOR UPDATE" : ""
    let rows = try await connection.query(
      "SELECT value, version FROM \(unescaped: name) WHERE id = \(key)\(unescaped: lock)", logger: logger)
    for try await (value, version) in rows.decode((String, Int64).self) {
      return Row(json: Data(value.utf8), version: version)
    }
    return nil
  }

  /// Writes `json` as the key's new version and announces it; with `expected`, only if the row's version is still
  /// that (0: no row). Returns the version written, or `nil` when the row moved on.
  func write(_ key: String, json: Data, expected: Int64?, on connection: PostgresConnection) async throws -> Int64? {
    let value = String(decoding: json, as: UTF8.self)
    let written: PostgresQuery
    switch expected {
    case nil:
      written = """
        INSERT INTO \(unescaped: name) AS stored (id, value, version, writer) VALUES (\(key), \(value), 1, \(writer))
        ON CONFLICT (id) DO UPDATE SET value = EXCLUDED.value, version = stored.version + 1,
          writer = EXCLUDED.writer, updated_at = now()
        RETURNING id, value, version, writer
        """
    case 0?:
      written = """
        INSERT INTO \(unescaped: name) (id, value, version, writer) VALUES (\(key), \(value), 1, \(writer))
        ON CONFLICT (id) DO NOTHING
        RETURNING id, value, version, writer
        """
    case let version?:
      written = """
        UPDATE \(unescaped: name) SET value = \(value), version = version + 1, writer = \(writer), updated_at = now()
        WHERE id = \(key) AND version = \(version)
        RETURNING id, value, version, writer
        """
    }
    // The notification carries the value when it fits in PostgreSQL's 8000-byte payload; otherwise listeners read
    // the row. It is sent when the write commits.
    var query = written
    query.sql = """
      WITH written AS (\(written.sql)), message AS (
        SELECT version,
          json_build_object('key', id, 'version', version, 'writer', writer, 'value', value)::text AS full_payload,
          json_build_object('key', id, 'version', version, 'writer', writer)::text AS short_payload
        FROM written
      )
      SELECT version, pg_notify($\(written.binds.count + 1),
        CASE WHEN octet_length(full_payload) < 8000 THEN full_payload ELSE short_payload END)::text
      FROM message
      """
    query.binds.append(channel)
    let rows = try await connection.query(query, logger: logger)
    var version: Int64?
    for try await (writtenVersion, _) in rows.decode((Int64, String?).self) { version = writtenVersion }
    return version
  }
}
