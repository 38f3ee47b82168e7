import Foundation
import PostgresNIO
import SharedState
import Synchronization
import Testing

@testable import SharedPostgres

/// `Flags` as a newer version of the program stores it: a field `Flags` does not have, and `limit` renamed.
struct NewerFlags: Codable, Sendable, Equatable {
  var beta = false
  var maximum = 0
  var note = ""
}

extension ServerTests {
  /// A row that no longer decodes (a newer schema, an edit by hand) is never written over unless the program says
  /// so: an explicit overwrite, or a migration on the key.
  @Suite struct SchemaEvolutionTests {
    /// Writes `json` as the row of `key` at `version`, as another instance or a hand edit would, and announces it.
    static func store(_ json: String, key: String, version: Int64, announce: Bool = false) async throws {
      try await TestDatabase.withConnection { connection in
        try await connection.query(
          """
          INSERT INTO shared_values (id, value, version, writer) VALUES (\(key), \(json), \(version), 'elsewhere')
          ON CONFLICT (id) DO UPDATE SET value = EXCLUDED.value, version = EXCLUDED.version
          """, logger: Logger(label: "tests"))
        if announce {
          let payload = "\(version)" + ChangeAnnouncement.suffix(key: key, writer: "elsewhere", json: Data(json.utf8))
          try await connection.query(
            "SELECT pg_notify('shared_values', \(payload))::text", logger: Logger(label: "tests"))
        }
      }
    }

    static let newer = #"{"beta":true,"maximum":9,"note":"newer"}"#

    @Test(arguments: ["lww", "merge"])
    func aChangeIsNotWrittenOverARowThatDoesNotDecodeUntilItIsOverwritten(policy: String) async throws {
      let key = TestDatabase.uniqueKey()
      let database = try await TestDatabase.instance()
      try await Self.store(Self.newer, key: key, version: 3)
      let conflicts: PostgresConflictPolicy<Flags> =
        policy == "merge" ? .merge { local, remote in local.limit >= remote.limit ? local : remote } : .lastWriterWins
      let key0 = PostgresKey<Flags>(key, in: database, conflicts: conflicts)
      let flags = Shared(wrappedValue: Flags(), key0)
      await #expect(throws: SharedPostgresError.self) { try await flags.load() }
      flags.withLock { $0.limit = 4 }
      await #expect(throws: SharedPostgresError.undecodableRow(key: key, version: 3)) { try await flags.save() }
      #expect(try await TestDatabase.row(key)?.json == Self.newer)
      // Refused again, and not retried behind the program's back.
      await #expect(throws: SharedPostgresError.undecodableRow(key: key, version: 3)) { try await flags.save() }
      #expect(try await TestDatabase.row(key)?.version == 3)

      try await key0.overwrite(with: flags.wrappedValue)
      let row = try #require(try await TestDatabase.row(key))
      #expect(row.version == 4)
      #expect(try JSONDecoder().decode(Flags.self, from: Data(row.json.utf8)) == Flags(limit: 4))
      flags.withLock { $0.limit = 5 }
      try await flags.save()
      #expect(try await TestDatabase.row(key)?.version == 5)
      await database.close()
    }

    /// A save that starts before the load read the row (a change right after the holder is made) reads the row
    /// first, and does not write over one that does not decode.
    @Test func aSaveBeforeTheRowWasReadReadsItFirst() async throws {
      let key = TestDatabase.uniqueKey()
      let database = try await TestDatabase.instance()
      try await Self.store(Self.newer, key: key, version: 7)
      let gate = Gate()
      database.core.testHooks.withLock { $0.beforeLoadRead = { await gate.pass() } }
      let flags = Shared(wrappedValue: Flags(), .postgres(key, in: database))
      flags.withLock { $0.limit = 1 }
      await #expect(throws: SharedPostgresError.undecodableRow(key: key, version: 7)) { try await flags.save() }
      gate.open()
      #expect(try await TestDatabase.row(key)?.json == Self.newer)
      await database.close()
    }

    /// Another instance of a newer version writes a value this one cannot decode: its `loadError` says so, and its
    /// next change is refused rather than written over the newer row.
    @Test func aChangeOfANewerInstanceThatDoesNotDecodeStopsWritesOverIt() async throws {
      let key = TestDatabase.uniqueKey()
      let database = try await TestDatabase.instance()
      let flags = Shared(wrappedValue: Flags(), .postgres(key, in: database))
      try await flags.load()
      flags.withLock { $0.limit = 1 }
      try await flags.save()
      try await Self.store(Self.newer, key: key, version: 2, announce: true)
      try await waitUntil("the newer row heard") {
        if case .undecodable? = flags.loadError as? SharedPostgresError { return true }
        return false
      }
      flags.withLock { $0.limit = 2 }
      await #expect(throws: SharedPostgresError.undecodableRow(key: key, version: 2)) { try await flags.save() }
      #expect(try await TestDatabase.row(key)?.json == Self.newer)
      await database.close()
    }

    /// A key with a migration converts the old row; the converted value is written with the next change.
    @Test func aMigrationConvertsARowOfTheOldSchema() async throws {
      let key = TestDatabase.uniqueKey()
      let database = try await TestDatabase.instance()
      try await Self.store(#"{"beta":true,"limit":3}"#, key: key, version: 2)
      struct OldFlags: Decodable {
        var beta: Bool
        var limit: Int
      }
      let newerFlags = PostgresKey<NewerFlags>(
        key, in: database,
        migration: { json in
          let old = try JSONDecoder().decode(OldFlags.self, from: json)
          return NewerFlags(beta: old.beta, maximum: old.limit, note: "migrated")
        })
      let flags = Shared(wrappedValue: NewerFlags(), newerFlags)
      try await flags.load()
      #expect(flags.wrappedValue == NewerFlags(beta: true, maximum: 3, note: "migrated"))
      #expect(try await TestDatabase.row(key)?.version == 2)
      flags.withLock { $0.maximum = 4 }
      try await flags.save()
      let row = try #require(try await TestDatabase.row(key))
      #expect(try JSONDecoder().decode(NewerFlags.self, from: Data(row.json.utf8)).maximum == 4)
      // A checked update migrates too.
      let written = try await newerFlags.update(ifMissing: NewerFlags()) { $0.maximum += 1 }
      #expect(written.maximum == 5)
      await database.close()
    }

    /// A checked update refuses a row that does not decode, and writes nothing.
    @Test func aCheckedUpdateRefusesARowThatDoesNotDecode() async throws {
      let key = TestDatabase.uniqueKey()
      let database = try await TestDatabase.instance()
      try await Self.store(Self.newer, key: key, version: 4)
      await #expect(throws: SharedPostgresError.undecodableRow(key: key, version: 4)) {
        try await PostgresKey<Flags>(key, in: database).update(ifMissing: Flags()) { $0.limit += 1 }
      }
      #expect(try await TestDatabase.row(key)?.json == Self.newer)
      await database.close()
    }
  }
}
