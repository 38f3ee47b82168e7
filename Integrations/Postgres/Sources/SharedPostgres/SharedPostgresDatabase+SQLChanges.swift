import PostgresNIO

extension SharedPostgresDatabase {
  /// The SQL that makes changes made to the values' table in SQL (an operator's `UPDATE`, a migration, another
  /// program) reach every instance, for an operator to run with a role that may create triggers, or to add to the
  /// database's migrations. ``installSQLChangeTrigger()`` runs it.
  ///
  /// ```swift
  /// for statement in try database.sqlChangeTrigger() { print(statement, ";") }
  /// ```
  ///
  /// With the trigger in place, a change made in SQL is announced on the channel, and every instance that holds
  /// its key reads the row:
  ///
  /// - An `UPDATE` that sets `value` (and leaves `version` and `writer` alone) gets the next version and the writer
  ///   `sql`: `UPDATE shared_values SET value = '{"beta":true}' WHERE id = 'feature-flags'`.
  /// - An `INSERT` announces itself when its writer is `sql`:
  ///   `INSERT INTO shared_values (id, value, version, writer) VALUES ('feature-flags', '{}', 1, 'sql')`.
  ///
  /// The instances' own writes are left alone: they already raise the version and announce themselves. The value
  /// must be JSON that decodes as the key's type; a row that does not decode is refused as any other.
  ///
  /// - Returns: The statements, to run in order.
  /// - Throws: ``SharedPostgresError/invalidTableName(_:reason:)`` or ``SharedPostgresError/invalidChannel(_:reason:)``
  ///   for names PostgreSQL does not accept.
  public func sqlChangeTrigger() throws -> [String] {
    try SQLChangeTrigger(tableName: configuration.tableName, channel: configuration.channel).statements
  }

  /// Installs the trigger of ``sqlChangeTrigger()`` on the values' table (made if it is missing), replacing an
  /// earlier one: from then on, changes made to the table in SQL reach every instance. Needs a role that may create
  /// functions in the table's schema and owns the table.
  ///
  /// ```swift
  /// try await database.installSQLChangeTrigger()
  /// ```
  ///
  /// - Throws: The names' errors (see ``sqlChangeTrigger()``), or the server's refusal
  ///   (``SharedPostgresError/statementFailed(_:)``, with the server's message).
  public func installSQLChangeTrigger() async throws {
    let statements = try sqlChangeTrigger()
    let logger = configuration.logger
    try await core.connection.withConnection { session in
      for statement in statements {
        try await session.connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
      }
    }
  }
}
