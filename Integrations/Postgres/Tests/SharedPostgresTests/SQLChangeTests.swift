import Foundation
import Logging
import PostgresNIO
import SharedState
import Testing

@testable import SharedPostgres

extension ServerTests {
  /// Changes made to the table in SQL reach the instances once the trigger is installed.
  @Suite struct SQLChangeTests {
    /// A table and channel of their own: the trigger changes how plain SQL writes behave, which the other tests'
    /// hand-made rows rely on.
    private static let table = "sql_change_values"

    private func database() async throws -> SharedPostgresDatabase {
      var configuration = try TestDatabase.configuration(tableName: Self.table)
      configuration.channel = Self.table
      let database = SharedPostgresDatabase(configuration)
      try await bounded(.seconds(20)) { try await database.waitUntilListening() }
      try await database.installSQLChangeTrigger()
      return database
    }

    private func run(_ sql: String) async throws {
      try await TestDatabase.withConnection { connection in
        try await connection.query(PostgresQuery(unsafeSQL: sql), logger: Logger(label: "tests"))
      }
    }

    @Test func anUpdateMadeInSQLReachesTheInstanceAndItsOwnSavesGoOn() async throws {
      let key = TestDatabase.uniqueKey()
      let database = try await database()
      let flags = Shared(wrappedValue: Flags(), .postgres(key, in: database))
      try await flags.load()
      flags.withLock { $0.beta = true }
      try await flags.save()
      #expect(try await TestDatabase.row(key, table: Self.table)?.version == 1)

      // An operator's edit, leaving the version and the writer to the trigger.
      try await run("UPDATE \(Self.table) SET value = '{\"beta\":false,\"limit\":0,\"note\":\"\"}' WHERE id = '\(key)'")
      try await waitForValue(flags, "the change made in SQL") { !$0.beta }
      #expect(try await TestDatabase.row(key, table: Self.table)?.version == 2)

      // The instance's own change is saved over it, as the newest version.
      flags.withLock { $0.beta = true }
      try await flags.save()
      let row = try #require(try await TestDatabase.row(key, table: Self.table))
      #expect(row.version == 3)
      #expect(row.json.contains("true"))
      await database.close()
    }

    @Test func aRowInsertedInSQLReachesTheInstanceThatHoldsItsKey() async throws {
      let key = TestDatabase.uniqueKey()
      let database = try await database()
      let flags = Shared(wrappedValue: Flags(), .postgres(key, in: database))
      try await flags.load()  // No row yet: the default.
      try await run(
        "INSERT INTO \(Self.table) (id, value, version, writer) VALUES ('\(key)', '{\"beta\":true,\"limit\":0,\"note\":\"\"}', 1, 'sql')"
      )
      try await waitForValue(flags, "the row inserted in SQL") { $0.beta }
      await database.close()
    }
  }
}

/// The trigger's SQL, without a server.
@Suite struct SQLChangeTriggerTests {
  @Test func theTriggerLivesBesideTheTableAndAnnouncesOnTheChannel() throws {
    let trigger = try SQLChangeTrigger(tableName: "app.Shared values", channel: "it's")
    #expect(trigger.statements[0].contains("FUNCTION \"app\".\"Shared values_sql_changes\"()"))
    #expect(trigger.statements[0].contains("pg_notify('it''s',"))
    #expect(trigger.statements[2].contains("ON \"app\".\"Shared values\""))
  }

  @Test func aNamePostgreSQLRefusesIsRefusedBeforeAnySQLIsMade() {
    #expect(throws: SharedPostgresError.self) { try SQLChangeTrigger(tableName: "a.b.c", channel: "values") }
    #expect(throws: SharedPostgresError.self) { try SQLChangeTrigger(tableName: "values", channel: "") }
  }
}
