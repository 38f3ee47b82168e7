import Foundation
import Logging
import PostgresNIO
import SharedState
import Testing

@testable import SharedPostgres

extension ServerTests {
  /// Names as PostgreSQL takes them: any table name it accepts (quoted, or qualified by its schema) holds values,
  /// and a key that cannot be a row's id is refused at the call.
  @Suite struct NameTests {
    static let acceptedTableNames = [
      "My-Table", "shared values", "ünïcode", "app.shared_values", "App.My Table", #"values"; DROP TABLE users; --"#,
      String(repeating: "t", count: 63),
    ]

    /// The name quoted as the table's SQL must write it.
    static func quoted(_ tableName: String) -> String {
      tableName.split(separator: ".").map { "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
        .joined(separator: ".")
    }

    @Test(arguments: acceptedTableNames)
    func aTableNamePostgreSQLAcceptsHoldsValues(_ tableName: String) async throws {
      try await TestDatabase.withConnection { connection in
        try await connection.query(#"CREATE SCHEMA IF NOT EXISTS app"#, logger: Logger(label: "tests"))
        try await connection.query(#"CREATE SCHEMA IF NOT EXISTS "App""#, logger: Logger(label: "tests"))
      }
      var configuration = try TestDatabase.configuration(tableName: tableName)
      configuration.channel = "Changes of ünïcode tables"
      let first = try SharedPostgresDatabase(validating: configuration)
      let second = try SharedPostgresDatabase(validating: configuration)
      try await bounded(.seconds(20)) { try await first.waitUntilListening() }
      try await bounded(.seconds(20)) { try await second.waitUntilListening() }
      let key = TestDatabase.uniqueKey()
      let one = Shared(wrappedValue: Flags(), .postgres(key, in: first))
      let two = Shared(wrappedValue: Flags(), .postgres(key, in: second))
      try await one.load()
      try await two.load()
      one.withLock { $0.limit = 9 }
      try await one.save()
      try await waitForValue(two, "the change through the table \(tableName)") { $0.limit == 9 }
      #expect(try await TestDatabase.row(key, table: Self.quoted(tableName))?.version == 1)
      await first.close()
      await second.close()
    }

    /// Keys that cannot be a row's id, named so the test's output stays short.
    enum RefusedKey: String, CaseIterable, Sendable {
      case sevenThousandNineHundredBytes, holdingANulByte, oneCharacterOverTheLimit

      var name: String {
        switch self {
        case .sevenThousandNineHundredBytes: return String(repeating: "k", count: 7_900)
        case .holdingANulByte: return "with\u{0}nul"
        // 1,025 two-byte characters: 2,050 bytes.
        case .oneCharacterOverTheLimit: return String(repeating: "é", count: 1_025)
        }
      }
    }

    /// A key of about 7,900 bytes, one holding a NUL byte, and one just over the limit: refused by the validating
    /// initializer, and otherwise by their load and every save, at once, with nothing written and nothing tried
    /// again.
    @Test(arguments: RefusedKey.allCases)
    func aKeyThatCannotBeARowsIdIsRefusedAtTheCall(_ refusedKey: RefusedKey) async throws {
      let name = refusedKey.name
      let database = try await TestDatabase.instance()
      let refused = #expect(throws: SharedPostgresError.self) { try PostgresKey<Flags>(validating: name, in: database) }
      guard case .invalidKey(let key, _)? = refused else {
        Issue.record("expected invalidKey, got \(String(describing: refused))")
        return
      }
      #expect(key == name)
      #expect(!String(describing: refused).contains(String(repeating: "k", count: 100)))

      let flags = Shared(wrappedValue: Flags(limit: 1), .postgres(name, in: database))
      await #expect(throws: SharedPostgresError.self) { try await flags.load() }
      #expect(flags.loadError as? SharedPostgresError == refused)
      flags.withLock { $0.limit = 2 }
      await #expect(throws: SharedPostgresError.self) { try await flags.save() }
      #expect(flags.saveError as? SharedPostgresError == refused)
      #expect(flags.wrappedValue.limit == 2)
      if !name.utf8.contains(0) {
        #expect(try await TestDatabase.row(name) == nil)
      }
      await database.close()
    }

    /// A key of the longest name, of characters that do not compress, is stored and announced.
    @Test func aKeyOfTheLongestNameIsStoredAndHeard() async throws {
      let name = String(
        (0..<64).map { _ in UUID().uuidString }.joined().prefix(PostgresKey<Flags>.maximumNameBytes))
      #expect(name.utf8.count == PostgresKey<Flags>.maximumNameBytes)
      let first = try await TestDatabase.instance()
      let second = try await TestDatabase.instance()
      let one = Shared(wrappedValue: Flags(), try PostgresKey(validating: name, in: first))
      let two = Shared(wrappedValue: Flags(), .postgres(name, in: second))
      try await one.load()
      try await two.load()
      one.withLock { $0.limit = 6 }
      try await one.save()
      try await waitForValue(two, "the change of the longest key") { $0.limit == 6 }
      #expect(try await TestDatabase.row(name)?.version == 1)
      await first.close()
      await second.close()
    }
  }
}

/// The configuration's names, checked without a server.
@Suite struct NameValidationTests {
  static func configuration(tableName: String = "shared_values", channel: String = "shared_values")
    -> SharedPostgresDatabase.Configuration
  {
    // Nothing listens on port 1: nothing here needs a server.
    var configuration = SharedPostgresDatabase.Configuration(
      host: "127.0.0.1", port: 1, username: "app", password: nil, database: "app")
    configuration.tableName = tableName
    configuration.channel = channel
    return configuration
  }

  static let refusedTableNames = [
    "", String(repeating: "a", count: 64), "a.b.c", ".shared", "app.", "nul\u{0}",
    String(repeating: "s", count: 64) + ".t",
    "ü" + String(repeating: "a", count: 62),
  ]

  /// A name PostgreSQL does not take is thrown by the validation; without it, the database does not stop the
  /// program: every load and wait fails with the same named error.
  @Test(arguments: refusedTableNames)
  func aTableNamePostgreSQLRefusesIsThrownAtTheCall(_ name: String) async throws {
    let configuration = Self.configuration(tableName: name)
    let error = #expect(throws: SharedPostgresError.self) { try configuration.validate() }
    guard case .invalidTableName(let named, _)? = error else {
      Issue.record("expected invalidTableName, got \(String(describing: error))")
      return
    }
    #expect(named == name)
    #expect(throws: SharedPostgresError.self) { try SharedPostgresDatabase(validating: configuration) }

    let database = SharedPostgresDatabase(configuration)
    let flags = Shared(wrappedValue: Flags(limit: 4), .postgres(TestDatabase.uniqueKey(), in: database))
    await #expect(throws: SharedPostgresError.self) { try await flags.load() }
    #expect(flags.loadError as? SharedPostgresError == error)
    #expect(flags.wrappedValue.limit == 4)
    let waited = await #expect(throws: SharedPostgresError.self) {
      try await bounded(.seconds(20)) { try await database.waitUntilListening() }
    }
    #expect(waited == error)
    await database.close()
  }

  @Test(arguments: [
    "shared_values", "My-Table", "shared values", "ünïcode", "app.shared_values", #"a"b"#, "select",
    String(repeating: "a", count: 63) + "." + String(repeating: "b", count: 63),
  ])
  func aTableNamePostgreSQLAcceptsPassesTheValidation(_ name: String) throws {
    try Self.configuration(tableName: name).validate()
  }

  @Test(arguments: ["", String(repeating: "c", count: 64), #"changes" "#, "nul\u{0}"])
  func aChannelPostgreSQLRefusesIsThrownAtTheCall(_ channel: String) {
    let error = #expect(throws: SharedPostgresError.self) { try Self.configuration(channel: channel).validate() }
    guard case .invalidChannel(let named, _)? = error else {
      Issue.record("expected invalidChannel, got \(String(describing: error))")
      return
    }
    #expect(named == channel)
  }

  @Test func aChannelOfAnyOtherCharactersPassesTheValidation() throws {
    try Self.configuration(channel: "Changes of ünïcode.tables").validate()
  }

  @Test func eachPartOfASchemaQualifiedNameIsQuoted() {
    let table = ValueTable(name: #"app.My"T"#, channel: "changes", writer: "me", logger: Logger(label: "tests"))
    #expect(table.quotedName == #""app"."My""T""#)
  }
}
