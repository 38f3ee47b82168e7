import Foundation
import PostgresNIO
import SharedState
import Synchronization
import Testing

@testable import SharedPostgres

struct Flags: Codable, Sendable, Equatable {
  var beta = false
  var limit = 0
  var note = ""
}

extension ServerTests {
  /// The key against a real server, with two database objects in one process standing for two instances.
  @Suite struct PostgresKeyTests {
    @Test func aMissingRowLoadsAsTheDefaultAfterALoadingPhase() async throws {
      let database = try await TestDatabase.instance()
      let flags = Shared(wrappedValue: Flags(limit: 7), .postgres(TestDatabase.uniqueKey(), in: database))
      #expect(flags.isLoading)
      try await flags.load()
      #expect(!flags.isLoading)
      #expect(flags.wrappedValue == Flags(limit: 7))
      #expect(flags.loadError == nil)
      await database.close()
    }

    @Test func aSaveUpsertsTheRowWithAGrowingVersionAndLoadsInAnotherInstance() async throws {
      let key = TestDatabase.uniqueKey()
      let first = try await TestDatabase.instance()
      let writer = Shared(wrappedValue: Flags(), .postgres(key, in: first))
      try await writer.load()
      writer.withLock { $0.limit = 1 }
      try await writer.save()
      #expect(try await TestDatabase.row(key)?.version == 1)
      writer.withLock { $0.limit = 2 }
      try await writer.save()
      let row = try #require(try await TestDatabase.row(key))
      #expect(row.version == 2)
      #expect(try JSONDecoder().decode(Flags.self, from: Data(row.json.utf8)) == Flags(limit: 2))

      let second = try await TestDatabase.instance()
      let reader = Shared(wrappedValue: Flags(), .postgres(key, in: second))
      try await reader.load()
      #expect(reader.wrappedValue == Flags(limit: 2))
      await first.close()
      await second.close()
    }

    @Test func eachInstanceSeesTheOthersChange() async throws {
      let key = TestDatabase.uniqueKey()
      let first = try await TestDatabase.instance()
      let second = try await TestDatabase.instance()
      let one = Shared(wrappedValue: Flags(), .postgres(key, in: first))
      let two = Shared(wrappedValue: Flags(), .postgres(key, in: second))
      try await one.load()
      try await two.load()
      one.withLock { $0.beta = true }
      try await waitForValue(two, "the first instance's change") { $0.beta }
      two.withLock { $0.limit = 9 }
      try await waitForValue(one, "the second instance's change") { $0 == Flags(beta: true, limit: 9) }
      #expect(try await TestDatabase.row(key)?.version == 2)
      await first.close()
      await second.close()
    }

    @Test func aValueTooLargeForANotificationIsReadFromTheRow() async throws {
      let key = TestDatabase.uniqueKey()
      let first = try await TestDatabase.instance()
      let second = try await TestDatabase.instance()
      let one = Shared(wrappedValue: Flags(), .postgres(key, in: first))
      let two = Shared(wrappedValue: Flags(), .postgres(key, in: second))
      try await one.load()
      try await two.load()
      let large = String(repeating: "x", count: 20_000)
      one.withLock { $0.note = large }
      try await waitForValue(two, "the large value") { $0.note == large }
      await first.close()
      await second.close()
    }

    @Test func anInstanceNeverAppliesItsOwnEchoNorAnOlderVersion() async throws {
      let key = TestDatabase.uniqueKey()
      let database = try await TestDatabase.instance()
      let flags = Shared(wrappedValue: Flags(), .postgres(key, in: database))
      try await flags.load()
      let seen = Recorder<Int>()
      let token = flags.observe { seen.append($0.limit) }
      for limit in 1...50 {
        flags.withLock { $0.limit = limit }
      }
      try await flags.save()
      let version = try #require(try await TestDatabase.row(key)?.version)
      // An announcement of an older version, as a late or replayed notification would be, from another writer.
      try await announce(key: key, version: version - 1, writer: "another", value: Flags(limit: -1))
      // An echo of this instance newer than any version it knows, as when a save committed but its reply was lost:
      // only the writer tells it apart.
      try await announce(key: key, version: version + 1, writer: database.instanceID, value: Flags(limit: -2))
      // Then a newer one: once it is in memory, the older ones were heard before it (one channel, in order).
      try await announce(key: key, version: version + 2, writer: "another", value: Flags(limit: 1_000))
      // Waited for through the observer itself: the observer and the value's sequence are told in either order.
      try await waitUntil("the observer to see the newer announcement") { seen.values.contains(1_000) }
      token.cancel()
      let limits = seen.values
      // Every change of the program reached the observer in order, no echo brought an older one back, and the older
      // announcement was never applied.
      #expect(!limits.contains(-1))
      #expect(!limits.contains(-2))
      #expect(limits.filter { $0 != 1_000 } == limits.filter { $0 != 1_000 }.sorted())
      #expect(limits.last == 1_000)
      #expect(flags.wrappedValue.limit == 1_000)
      await database.close()
    }

    @Test func aRowOfAnotherTypeIsALoadErrorAndIsLeftUntilWritten() async throws {
      let key = TestDatabase.uniqueKey()
      let database = try await TestDatabase.instance()
      for stored in ["not json", #"{"beta": "yes"}"#] {
        try await TestDatabase.withConnection { connection in
          try await connection.query(
            """
            INSERT INTO shared_values (id, value, version, writer) VALUES (\(key), \(stored), 5, 'elsewhere')
            ON CONFLICT (id) DO UPDATE SET value = EXCLUDED.value
            """, logger: Logger(label: "tests"))
        }
        let flags = Shared(wrappedValue: Flags(limit: 3), .postgres(key, in: database))
        await #expect(throws: SharedPostgresError.self) { try await flags.load() }
        #expect(flags.wrappedValue == Flags(limit: 3))
        guard case .undecodable(let name, _)? = flags.loadError as? SharedPostgresError else {
          Issue.record("expected an undecodable row, got \(String(describing: flags.loadError))")
          return
        }
        #expect(name == key)
        #expect(try await TestDatabase.row(key)?.json == stored)
      }
      // A change is not written over the row until the program says so.
      let flags = Shared(wrappedValue: Flags(), .postgres(key, in: database))
      flags.withLock { $0.limit = 4 }
      await #expect(throws: SharedPostgresError.undecodableRow(key: key, version: 5)) { try await flags.save() }
      #expect(try await TestDatabase.row(key)?.json == #"{"beta": "yes"}"#)
      try await PostgresKey<Flags>(key, in: database).overwrite(with: flags.wrappedValue)
      #expect(try await TestDatabase.row(key)?.version == 6)
      try await flags.save()
      #expect(flags.saveError == nil)
      #expect(flags.wrappedValue == Flags(limit: 4))
      await database.close()
    }

    /// Under merge, memory holds a change of this instance not written yet (its save waits) when a newer value
    /// from another instance is combined with it, and the program changes the value while the merge is computed:
    /// every change is kept, combined with the other instance's, in memory and in the row.
    @Test func aChangeMadeWhileAMergeIsComputedIsKept() async throws {
      let key = TestDatabase.uniqueKey()
      let database = try await TestDatabase.instance()
      let duringMerge = OneShot()
      let union: PostgresConflictPolicy<Set<String>> = .merge { local, remote in
        duringMerge.run()
        return local.union(remote)
      }
      let marks = Shared(wrappedValue: Set<String>(), .postgres(key, in: database, conflicts: union))
      try await marks.load()
      try await database.waitUntilListening()
      marks.withLock { _ = $0.insert("a") }
      try await marks.save()
      #expect(try await TestDatabase.row(key)?.version == 1)

      // The save of the next change waits before it starts writing: memory holds a change not written yet (only a
      // change of this instance is ever combined with another instance's value).
      let saveGate = Gate()
      let firstSave = Mutex(true)
      database.core.testHooks.withLock {
        $0.beforeSaveStarted = {
          let first = firstSave.withLock { first in
            defer { first = false }
            return first
          }
          if first { await saveGate.pass() }
        }
      }
      marks.withLock { _ = $0.insert("mine") }
      try await waitUntil("the save to wait") { saveGate.reached }
      duringMerge.arm { marks.withLock { _ = $0.insert("program") } }
      // Another instance writes version 2 and announces it.
      try await TestDatabase.writeAsAnotherInstance(key, Set(["a", "remote"]), version: 2)
      try await waitUntil("the merge") { duringMerge.ran }
      saveGate.open()

      let all: Set<String> = ["a", "mine", "program", "remote"]
      try await waitForValue(marks, "the program's changes and the other instance's") { $0 == all }
      try await marks.save()
      #expect(marks.wrappedValue == all)
      let row = try #require(try await TestDatabase.row(key))
      #expect(try JSONDecoder().decode(Set<String>.self, from: Data(row.json.utf8)) == all)
      await database.close()
    }

    /// Under merge, a new holder changes the value while its load runs (the README's `withLock` right after
    /// creating it): the loaded row does not reach memory, so the save that follows combines the change with the
    /// row instead of writing over another instance's value.
    @Test func aChangeMadeWhileTheValueLoadsIsCombinedWithTheRow() async throws {
      let key = TestDatabase.uniqueKey()
      let database = try await TestDatabase.instance()
      // The table exists once a value was read.
      try await Shared(wrappedValue: 0, .postgres(TestDatabase.uniqueKey(), in: database)).load()
      let others = String(decoding: try JSONEncoder().encode(Set(["others"])), as: UTF8.self)
      try await TestDatabase.withConnection { connection in
        try await connection.query(
          "INSERT INTO shared_values (id, value, version, writer) VALUES (\(key), \(others), 5, 'elsewhere')",
          logger: Logger(label: "tests"))
      }
      let gate = Gate()
      database.core.testHooks.withLock { $0.afterLoadRead = { await gate.pass() } }
      let union: PostgresConflictPolicy<Set<String>> = .merge { $0.union($1) }
      let online = Shared(wrappedValue: Set<String>(), .postgres(key, in: database, conflicts: union))
      // The load has read version 5 and waits; the program changes the value before the load applies it.
      try await waitUntil("the load to read the row") { gate.reached }
      online.withLock { _ = $0.insert("me") }
      gate.open()
      try await waitUntil("the load to end") { !online.isLoading }
      try await online.save()
      let row = try #require(try await TestDatabase.row(key))
      #expect(try JSONDecoder().decode(Set<String>.self, from: Data(row.json.utf8)) == ["me", "others"])
      #expect(row.version == 6)
      #expect(online.wrappedValue == ["me", "others"])
      await database.close()
    }

    @Test func theConfigurationNeverDescribesThePassword() throws {
      let configuration = SharedPostgresDatabase.Configuration(
        host: "db.example", username: "app", password: "hunter2-secret", database: "app")
      #expect(!String(describing: configuration).contains("hunter2"))
      #expect(!String(reflecting: configuration).contains("hunter2"))
      let database = SharedPostgresDatabase(configuration)
      #expect(!String(describing: database).contains("hunter2"))
      #expect(String(describing: configuration).contains("db.example"))
    }

    @Test func noReflectionOfTheConfigurationOrDatabaseShowsThePassword() {
      let configuration = SharedPostgresDatabase.Configuration(
        host: "db.example", username: "app", password: "hunter2-secret", database: "app")
      var dumped = ""
      dump(configuration, to: &dumped)
      #expect(!dumped.contains("hunter2"))
      #expect(dumped.contains("db.example"))
      #expect(!Mirror(reflecting: configuration).children.contains { String(describing: $0.value).contains("hunter2") })
      let database = SharedPostgresDatabase(configuration)
      var dumpedDatabase = ""
      dump(database, to: &dumpedDatabase)
      #expect(!dumpedDatabase.contains("hunter2"))
      #expect(dumpedDatabase.contains("db.example"))
    }

    @Test func aQuoteInTheTableNameIsDoubledWhenQuoted() {
      let table = ValueTable(name: #"a"b"#, channel: "changes", writer: "me", logger: Logger(label: "tests"))
      #expect(table.quotedName == #""a""b""#)
    }

    /// A user that may read and write the table but not create tables in its schema (the table made by another
    /// user beforehand) loads and saves values: the table is created only when it is missing.
    @Test func aUserWithoutCreateOnTheSchemaUsesATableMadeBefore() async throws {
      guard let limitedUser = ProcessInfo.processInfo.environment["SHARED_POSTGRES_LIMITED_USER"] else {
        throw FaultTests.MissingCommand(name: "SHARED_POSTGRES_LIMITED_USER")
      }
      let key = TestDatabase.uniqueKey()
      // The table exists once a value was read by its owner.
      let owner = try await TestDatabase.instance()
      try await Shared(wrappedValue: 0, .postgres(TestDatabase.uniqueKey(), in: owner)).load()
      await owner.close()
      try await TestDatabase.withConnection { connection in
        try await connection.query(
          "GRANT SELECT, INSERT, UPDATE ON shared_values TO \(unescaped: limitedUser)", logger: Logger(label: "tests"))
      }
      var configuration = try TestDatabase.configuration()
      configuration.username = limitedUser
      let database = SharedPostgresDatabase(configuration)
      try await bounded(.seconds(20)) { try await database.waitUntilListening() }
      let flags = Shared(wrappedValue: Flags(), .postgres(key, in: database))
      try await flags.load()
      flags.withLock { $0.limit = 8 }
      try await flags.save()
      #expect(try await TestDatabase.row(key)?.json.contains(#""limit":8"#) == true)
      await database.close()
    }

    /// A row deleted by hand and made again by an instance that never knew its old versions starts lower than an
    /// instance that held the value knows: that instance's next read of the row (`load()`, or the reload after a
    /// reconnect) finds the older version, forgets the versions above it, and hears the new row's changes again.
    @Test func anInstanceThatKnewHigherVersionsHearsARowMadeAgainAfterItReadsIt() async throws {
      let key = TestDatabase.uniqueKey()
      let first = try await TestDatabase.instance()
      let one = Shared(wrappedValue: Flags(), .postgres(key, in: first))
      try await one.load()
      for limit in 1...3 {
        one.withLock { $0.limit = limit }
        try await one.save()
      }
      try await TestDatabase.deleteRow(key)
      // An instance that never knew the old versions makes the row again at version 1.
      let second = try await TestDatabase.instance()
      let two = Shared(wrappedValue: Flags(), .postgres(key, in: second))
      try await two.load()
      two.withLock { $0.limit = 10 }
      try await two.save()
      #expect(try await TestDatabase.row(key)?.version == 1)

      try await one.load()
      #expect(one.wrappedValue.limit == 10)
      two.withLock { $0.limit = 11 }
      try await two.save()
      try await waitForValue(one, "the new row's next change") { $0.limit == 11 }
      await first.close()
      await second.close()
    }

    /// The same, with no read of the instance that knew higher versions: the new row's first announcement, older
    /// than what that instance knows, makes it read the row, which it finds made again (it stayed on the old value,
    /// with no error, until a `load()` before).
    @Test func anInstanceThatKnewHigherVersionsHearsARowMadeAgainWithoutReadingIt() async throws {
      let key = TestDatabase.uniqueKey()
      let first = try await TestDatabase.instance()
      let one = Shared(wrappedValue: Flags(), .postgres(key, in: first))
      try await one.load()
      for limit in 1...3 {
        one.withLock { $0.limit = limit }
        try await one.save()
      }
      try await TestDatabase.deleteRow(key)
      let second = try await TestDatabase.instance()
      let two = Shared(wrappedValue: Flags(), .postgres(key, in: second))
      try await two.load()
      two.withLock { $0.limit = 10 }
      try await two.save()
      #expect(try await TestDatabase.row(key)?.version == 1)
      try await waitForValue(one, "the row made again") { $0.limit == 10 }
      two.withLock { $0.limit = 11 }
      try await two.save()
      try await waitForValue(one, "the new row's next change") { $0.limit == 11 }
      await first.close()
      await second.close()
    }

    /// Table and channel names that are SQL keywords work: the table's name is quoted in every statement.
    @Test func aTableNamedAfterAKeywordHoldsValues() async throws {
      var configuration = try TestDatabase.configuration(tableName: "select")
      configuration.channel = "table"
      let first = SharedPostgresDatabase(configuration)
      let second = SharedPostgresDatabase(configuration)
      try await bounded(.seconds(20)) { try await first.waitUntilListening() }
      try await bounded(.seconds(20)) { try await second.waitUntilListening() }
      let key = TestDatabase.uniqueKey()
      let one = Shared(wrappedValue: Flags(), .postgres(key, in: first))
      let two = Shared(wrappedValue: Flags(), .postgres(key, in: second))
      try await one.load()
      try await two.load()
      one.withLock { $0.limit = 3 }
      try await one.save()
      try await waitForValue(two, "the change through the keyword-named table") { $0.limit == 3 }
      #expect(try await TestDatabase.row(key, table: #""select""#)?.version == 1)
      await first.close()
      await second.close()
    }

    /// A row deleted by hand is made again by the next save, at a version above the ones the saving instance knew,
    /// so other instances that knew as much apply it.
    @Test func aRowDeletedByHandIsMadeAgainAboveTheKnownVersions() async throws {
      let key = TestDatabase.uniqueKey()
      let first = try await TestDatabase.instance()
      let second = try await TestDatabase.instance()
      let one = Shared(wrappedValue: Flags(), .postgres(key, in: first))
      let two = Shared(wrappedValue: Flags(), .postgres(key, in: second))
      try await one.load()
      try await two.load()
      for limit in 1...3 {
        one.withLock { $0.limit = limit }
        try await one.save()
      }
      try await waitForValue(two, "the third version") { $0.limit == 3 }
      try await TestDatabase.deleteRow(key)
      one.withLock { $0.limit = 4 }
      try await one.save()
      #expect(try await TestDatabase.row(key)?.version == 4)
      try await waitForValue(two, "the change after the row was deleted") { $0.limit == 4 }
      await first.close()
      await second.close()
    }

    @Test func aServerThatCannotBeReachedIsALoadErrorNotAHang() async throws {
      var configuration = try TestDatabase.configuration()
      configuration.port = 1  // Nothing listens there.
      let database = SharedPostgresDatabase(configuration)
      let flags = Shared(wrappedValue: Flags(limit: 2), .postgres(TestDatabase.uniqueKey(), in: database))
      await #expect(throws: (any Error).self) { try await flags.load() }
      #expect(flags.wrappedValue == Flags(limit: 2))
      #expect(!String(describing: flags.loadError as Any).contains(configuration.password ?? "-"))
      await database.close()
    }

    /// Sends an announcement on the channel as another instance would.
    private func announce(key: String, version: Int64, writer: String, value: Flags) async throws {
      let json = try JSONEncoder().encode(value)
      let payload = "\(version)" + ChangeAnnouncement.suffix(key: key, writer: writer, json: json)
      try await TestDatabase.withConnection { connection in
        try await connection.query(
          "SELECT pg_notify('shared_values', \(payload))::text", logger: Logger(label: "tests"))
      }
    }
  }
}

/// Runs an action once, the first time it is asked to after being armed.
final class OneShot: Sendable {
  private let action = Mutex<(@Sendable () -> Void)?>(nil)
  private let done = Mutex(false)
  func arm(_ body: @escaping @Sendable () -> Void) { action.withLock { $0 = body } }
  func run() {
    guard let body = action.withLock({ $0.take() }) else { return }
    body()
    done.withLock { $0 = true }
  }
  var ran: Bool { done.withLock { $0 } }
}

/// Collects values from an observer, under a lock.
final class Recorder<Element: Sendable>: Sendable {
  private let storage = Mutex<[Element]>([])
  func append(_ element: Element) { storage.withLock { $0.append(element) } }
  var values: [Element] { storage.withLock { $0 } }
}

/// Holds whoever passes it until it is opened.
final class Gate: Sendable {
  private struct State {
    var open = false
    var reached = false
    var waiters: [CheckedContinuation<Void, Never>] = []
  }
  private let state = Mutex(State())

  /// Waits until the gate is open (at once if it is).
  func pass() async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let resume = state.withLock { state -> Bool in
        state.reached = true
        if state.open { return true }
        state.waiters.append(continuation)
        return false
      }
      if resume { continuation.resume() }
    }
  }

  /// Whether someone reached the gate.
  var reached: Bool { state.withLock { $0.reached } }

  /// Lets everyone through, now and later.
  func open() {
    let waiters = state.withLock { state in
      state.open = true
      defer { state.waiters = [] }
      return state.waiters
    }
    for waiter in waiters { waiter.resume() }
  }
}
