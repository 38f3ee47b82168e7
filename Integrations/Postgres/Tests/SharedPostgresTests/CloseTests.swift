import Foundation
import SharedState
import Synchronization
import Testing

@testable import SharedPostgres

extension ServerTests {
  /// `close()` writes the changes not saved yet, within a deadline, and reports what it could not write.
  @Suite struct CloseTests {
    /// The README's `enableBeta`, on a key of the test's own.
    static func enableBeta(database: SharedPostgresDatabase, key: String) {
      @Shared(.postgres(key, in: database)) var flags = Flags()
      $flags.withLock { $0.beta = true }
    }

    /// The README's example: a change, its holder gone, then `await database.close()`: the row is written.
    @Test func theReadmesExampleWritesTheRowBeforeClosing() async throws {
      let key = TestDatabase.uniqueKey()
      let database = try await TestDatabase.instance()
      Self.enableBeta(database: database, key: key)
      let unwritten = await database.close()
      #expect(unwritten.isEmpty)
      let row = try #require(try await TestDatabase.row(key))
      #expect(try JSONDecoder().decode(Flags.self, from: Data(row.json.utf8)) == Flags(beta: true))
    }

    /// A change whose save is held back is written by `close()`; a value the program never changed is not.
    @Test func aChangeWhoseSaveHasNotRunIsWrittenAndAnUnchangedValueIsNot() async throws {
      let changedKey = TestDatabase.uniqueKey("changed")
      let untouchedKey = TestDatabase.uniqueKey("untouched")
      let database = try await TestDatabase.instance()
      let changed = Shared(wrappedValue: Flags(), .postgres(changedKey, in: database))
      let untouched = Shared(wrappedValue: Flags(limit: 1), .postgres(untouchedKey, in: database))
      try await changed.load()
      try await untouched.load()
      // The framework's save waits at its start until the database is closed.
      let gate = Gate()
      database.core.testHooks.withLock { $0.beforeSaveStarted = { await gate.pass() } }
      changed.withLock { $0.limit = 7 }
      try await waitUntil("the framework's save to start") { gate.reached }
      database.core.testHooks.withLock { $0.beforeSaveStarted = nil }
      let unwritten = await database.close()
      gate.open()
      #expect(unwritten.isEmpty)
      let row = try #require(try await TestDatabase.row(changedKey))
      #expect(try JSONDecoder().decode(Flags.self, from: Data(row.json.utf8)) == Flags(limit: 7))
      #expect(try await TestDatabase.row(untouchedKey) == nil)
    }

    /// The server is away: `close()` returns the change it could not write, with the reason.
    @Test func whatCouldNotBeWrittenIsReported() async throws {
      let key = TestDatabase.uniqueKey()
      let database = try await TestDatabase.instance()
      let flags = Shared(wrappedValue: Flags(), .postgres(key, in: database))
      try await flags.load()
      try FaultTests.server("SHARED_POSTGRES_STOP")
      flags.withLock { $0.limit = 3 }
      let unwritten = await database.close(flushingWithin: .seconds(20))
      try FaultTests.server("SHARED_POSTGRES_START")
      #expect(unwritten.map(\.key) == [key])
      #expect(try await TestDatabase.row(key) == nil)
    }

    /// A write that does not end before the deadline is reported as not written, and `close()` returns.
    @Test func aWriteStillRunningAtTheDeadlineIsReported() async throws {
      let key = TestDatabase.uniqueKey()
      let database = try await TestDatabase.instance()
      let flags = Shared(wrappedValue: Flags(), .postgres(key, in: database))
      try await flags.load()
      let gate = Gate()
      database.core.testHooks.withLock { $0.beforeWriteStatement = { await gate.pass() } }
      flags.withLock { $0.limit = 3 }
      try await waitUntil("the save's write") { gate.reached }
      let unwritten = await database.close(flushingWithin: .milliseconds(200))
      gate.open()
      #expect(unwritten.map(\.key) == [key])
      #expect(unwritten.first?.error as? SharedPostgresError == .notWrittenBeforeClose(key: key))
    }
  }
}
