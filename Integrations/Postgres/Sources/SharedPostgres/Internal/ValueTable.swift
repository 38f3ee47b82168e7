import Foundation
import Logging
import PostgresNIO

/// The SQL of the values' table: one row per key, with its JSON, a version that only grows and the instance that
/// wrote it. Every write announces itself on the channel in the same transaction.
struct ValueTable: Sendable {
  /// The table's name, as the configuration gives it (`table` or `schema.table`).
  let name: String
  /// The channel's name.
  let channel: String
  /// The instance that writes.
  let writer: String
  let logger: Logger
  /// The table's name quoted for SQL (each part of `schema.table`), so any name PostgreSQL accepts works as written:
  /// a keyword (`select`, `user`), upper-case letters, spaces; a `"` in it is doubled, as SQL quoting asks. A name
  /// PostgreSQL does not accept is quoted whole, and never used: the database connects to nothing then.
  let quotedName: String
  /// The upsert of a value, the statement of every save under last writer wins (prepared once per connection, and
  /// found again by its SQL): binds the key, the JSON, the writer, the channel, the announcement's suffix and the
  /// version of a new row (as text).
  private let upsertStatement: String
  /// The write checked against the row's version (every save under merge, every checked update, once the row
  /// exists), prepared once per connection like the upsert: binds the key, the JSON, the writer, the version
  /// expected (as text), the channel and the announcement's suffix. Returns the version written; when the row moved
  /// on, its version and value as the statement's snapshot shows them instead (no lock is taken), so the next
  /// attempt needs no read of its own unless the write waited for another writer (the snapshot then shows the row
  /// before that writer's version).
  private let checkedUpdateStatement: String

  init(name: String, channel: String, writer: String, logger: Logger) {
    self.name = name
    self.channel = channel
    self.writer = writer
    self.logger = logger
    let quotedName = (try? SQLName.quotedTable(name)) ?? SQLName.quote(name)
    self.quotedName = quotedName
    self.upsertStatement = """
      WITH written AS (
        INSERT INTO \(quotedName) AS stored (id, value, version, writer) VALUES ($1, $2, $6::text::bigint, $3)
        ON CONFLICT (id) DO UPDATE SET value = EXCLUDED.value, version = stored.version + 1,
          writer = EXCLUDED.writer, updated_at = now()
        RETURNING version
      )
      SELECT version::text, pg_notify($4, version::text || $5)::text FROM written
      """
    self.checkedUpdateStatement = """
      WITH written AS (
        UPDATE \(quotedName) SET value = $2, version = version + 1, writer = $3, updated_at = now()
        WHERE id = $1 AND version = $4::text::bigint
        RETURNING version
      )
      SELECT version::text, pg_notify($5, version::text || $6)::text, NULL::text FROM written
      UNION ALL
      SELECT version::text, NULL::text, value FROM \(quotedName) WHERE id = $1 AND NOT EXISTS (SELECT FROM written)
      """
  }

  /// A row: the value's JSON and its version.
  struct Row: Sendable, Equatable {
    var json: Data
    var version: Int64
  }

  /// Creates the table if it is missing. `CREATE TABLE IF NOT EXISTS` needs CREATE on the schema even when the table
  /// exists, so the table is looked up first: a user that may only read and write an existing table can use it.
  func create(on connection: PostgresConnection) async throws {
    if try await exists(on: connection) { return }
    // Two instances creating the table at once may collide in the catalog; the loser finds the table made.
    do {
      try await connection.query(createStatement, logger: logger)
    } catch {
      try await connection.query(createStatement, logger: logger)
    }
  }

  private func exists(on connection: PostgresConnection) async throws -> Bool {
    let rows = try await connection.query("SELECT to_regclass(\(quotedName)) IS NOT NULL", logger: logger)
    for try await found in rows.decode(Bool.self) { return found }
    return false
  }

  private var createStatement: PostgresQuery {
    """
    CREATE TABLE IF NOT EXISTS \(unescaped: quotedName) (
      id text PRIMARY KEY,
      value text NOT NULL,
      version bigint NOT NULL,
      writer text NOT NULL,
      updated_at timestamptz NOT NULL DEFAULT now()
    )
    """
  }

  func read(_ key: String, on connection: PostgresConnection) async throws -> Row? {
    let rows = try await connection.query(
      "SELECT value, version FROM \(unescaped: quotedName) WHERE id = \(key)", logger: logger)
    for try await (value, version) in rows.decode((String, Int64).self) {
      return Row(json: Data(value.utf8), version: version)
    }
    return nil
  }

  /// Writes `json` as the key's new version and announces it, whatever the row holds (every save under last
  /// writer wins), as a statement prepared once per connection. Returns the version written.
  ///
  /// A row that is missing (never written, or deleted by hand) is made at `insertVersion`: one above the newest
  /// version this instance knows, so instances that knew as much take the new row's changes as newer.
  ///
  /// The notification carries the value when it fits in PostgreSQL's 8000-byte payload; otherwise listeners read
  /// the row. It is sent when the write commits.
  func write(
    _ key: String, json: Data, insertVersion: Int64, on session: SerialConnection.Session
  ) async throws -> Int64? {
    try session.checkOpen()
    let value = String(decoding: json, as: UTF8.self)
    let suffix = ChangeAnnouncement.suffix(key: key, writer: writer, json: json)
    let statement = try await session.prepared(upsertStatement)
    let binds = [key, value, writer, channel, suffix, String(insertVersion)].map { PostgresData(string: $0) }
    let rows = try await statement.execute(binds).get()
    // The version comes as text: this API describes the result as text but receives it in binary, and text reads
    // the same in both.
    return try rows.first.flatMap { Int64(try $0.decode(String.self)) }
  }

  /// What a write checked against the row's version did.
  enum CheckedWrite: Sendable, Equatable {
    /// It wrote this version.
    case written(Int64)
    /// The row had moved on: nothing was written. With the row's version and value as the write found
    /// them (`nil`: not known, or the row is missing).
    case conflict(newest: Row?)
  }

  /// Writes `json` as the key's new version and announces it, only if the row's version is still `expected` (0: no
  /// row, then made at `insertVersion`, as ``write(_:json:insertVersion:on:)`` does).
  func writeChecked(
    _ key: String, json: Data, expected: Int64, insertVersion: Int64, on session: SerialConnection.Session
  ) async throws -> CheckedWrite {
    try session.checkOpen()
    let value = String(decoding: json, as: UTF8.self)
    let suffix = ChangeAnnouncement.suffix(key: key, writer: writer, json: json)
    guard expected != 0 else {
      let written = try await version(
        of: """
          INSERT INTO \(unescaped: quotedName) (id, value, version, writer)
          VALUES (\(key), \(value), \(insertVersion), \(writer))
          ON CONFLICT (id) DO NOTHING
          RETURNING version
          """, suffix: suffix, on: session.connection)
      return written.map { .written($0) } ?? .conflict(newest: nil)
    }
    let statement = try await session.prepared(checkedUpdateStatement)
    let binds = [key, value, writer, String(expected), channel, suffix].map { PostgresData(string: $0) }
    let rows = try await statement.execute(binds).get()
    guard let row = rows.first else { return .conflict(newest: nil) }
    let (version, announced, newestValue) = try row.decode((String, String?, String?).self)
    guard let version = Int64(version) else { return .conflict(newest: nil) }
    if announced != nil { return .written(version) }
    // The row as the statement's snapshot shows it: still at the version expected when the write waited for another
    // writer's lock (that writer committed after the snapshot), and then of no use.
    guard version != expected else { return .conflict(newest: nil) }
    return .conflict(newest: newestValue.map { Row(json: Data($0.utf8), version: version) })
  }

  /// Runs `written` (a statement returning the version it wrote) and announces what it wrote.
  private func version(of written: PostgresQuery, suffix: String, on connection: PostgresConnection) async throws
    -> Int64?
  {
    var query = written
    query.sql = """
      WITH written AS (\(written.sql))
      SELECT version, pg_notify($\(written.binds.count + 1), version::text || $\(written.binds.count + 2))::text
      FROM written
      """
    query.binds.append(channel)
    query.binds.append(suffix)
    let rows = try await connection.query(query, logger: logger)
    var version: Int64?
    for try await (writtenVersion, _) in rows.decode((Int64, String?).self) { version = writtenVersion }
    return version
  }
}
