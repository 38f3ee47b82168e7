import Foundation
import SharedState
import Testing

@testable import SharedPostgres

extension ServerTests {
  /// A network partition between an instance and the server (the FreezingProxy leaves its connections half-open:
  /// nothing arrives, nothing fails): every wait ends at its deadline, the instance says so through `saveError` and
  /// `loadError` with the cause, and it converges once the path heals.
  @Suite struct PartitionTests {
    /// A configuration through `proxy`, with deadlines short for a test, yet long enough that nothing but a
    /// partition reaches them on a busy machine.
    static func configuration(
      through proxy: FreezingProxy, statementTimeout: Duration = .seconds(3),
      keepaliveInterval: Duration = .milliseconds(300)
    ) throws -> SharedPostgresDatabase.Configuration {
      var configuration = try TestDatabase.configuration()
      configuration.port = proxy.port
      configuration.connectTimeout = .seconds(3)
      configuration.statementTimeout = statementTimeout
      configuration.keepaliveInterval = keepaliveInterval
      return configuration
    }

    static func isTimedOut(_ error: (any Error)?) -> Bool {
      if case .disconnected(let cause)? = error as? SharedPostgresError { return cause.kind == .timedOut }
      return false
    }

    /// The conflict policies a partition is tried under: the merge's save runs in a transaction, whose COMMIT
    /// postgres-nio never completes on a closed connection; the deadline leaves it behind.
    enum Policy: String, CaseIterable, Sendable {
      case lastWriterWins, merge

      var conflicts: PostgresConflictPolicy<Flags> {
        switch self {
        case .lastWriterWins: return .lastWriterWins
        case .merge:
          return .merge { local, remote in
            Flags(
              beta: local.beta || remote.beta, limit: max(local.limit, remote.limit), note: max(local.note, remote.note)
            )
          }
        }
      }
    }

    @Test(arguments: Policy.allCases)
    func aSaveOnAPartitionedPathReturnsWithTheCauseAndTheInstanceConvergesOnceItHeals(_ policy: Policy) async throws {
      let proxy = try await FreezingProxy(targetPort: try TestDatabase.configuration().port)
      defer { proxy.stop() }
      let partitioned = SharedPostgresDatabase(try Self.configuration(through: proxy))
      try await bounded(.seconds(20)) { try await partitioned.waitUntilListening() }
      let other = try await TestDatabase.instance()
      let key = TestDatabase.uniqueKey()
      let otherKey = TestDatabase.uniqueKey("other")
      let mine = Shared(wrappedValue: Flags(), .postgres(key, in: partitioned, conflicts: policy.conflicts))
      let theirs = Shared(wrappedValue: Flags(), .postgres(key, in: other, conflicts: policy.conflicts))
      let heardLater = Shared(wrappedValue: 0, .postgres(otherKey, in: partitioned))
      let changedMeanwhile = Shared(wrappedValue: 0, .postgres(otherKey, in: other))
      try await mine.load()
      try await theirs.load()
      try await heardLater.load()
      try await changedMeanwhile.load()
      mine.withLock { $0.limit = 1 }
      try await mine.save()
      try await waitForValue(theirs, "the change before the partition") { $0.limit == 1 }

      try await proxy.partition()
      // The save returns, with the partition as its error, instead of waiting for the kernel.
      mine.withLock { $0.limit = 42 }
      let saveError = await #expect(throws: SharedPostgresError.self) {
        try await bounded(.seconds(30)) { try await mine.save() }
      }
      #expect(Self.isTimedOut(saveError))
      #expect(Self.isTimedOut(mine.saveError))
      await #expect(throws: SharedPostgresError.self) { try await bounded(.seconds(30)) { try await mine.load() } }
      try await waitUntil("the partition in loadError") { Self.isTimedOut(mine.loadError) }
      #expect(mine.wrappedValue.limit == 42)
      // Another instance changes a value the partitioned one cannot hear of.
      changedMeanwhile.withLock { $0 = 7 }
      try await changedMeanwhile.save()

      try await proxy.heal()
      try await waitForValue(theirs, "the change made during the partition") { $0.limit == 42 }
      try await waitForValue(heardLater, "the change made elsewhere during the partition") { $0 == 7 }
      try await waitUntil("the errors cleared") { mine.saveError == nil && mine.loadError == nil }
      #expect(try await TestDatabase.row(key)?.json.contains(#""limit":42"#) == true)
      await partitioned.close()
      await other.close()
    }

    /// A checked update across a partition: the update returns at its deadline with the cause, writes nothing the
    /// caller was told of, and once the path heals the next update applies to the newest row, so no acknowledged
    /// increment (this instance's or another's made meanwhile) is lost, and both instances converge.
    @Test func aCheckedUpdateOnAPartitionedPathFailsWithTheCauseAndLosesNothingOnceItHeals() async throws {
      let proxy = try await FreezingProxy(targetPort: try TestDatabase.configuration().port)
      defer { proxy.stop() }
      let partitioned = SharedPostgresDatabase(try Self.configuration(through: proxy))
      try await bounded(.seconds(20)) { try await partitioned.waitUntilListening() }
      let other = try await TestDatabase.instance()
      let key = TestDatabase.uniqueKey()
      let mine = PostgresKey<Visits>(key, in: partitioned)
      let theirs = PostgresKey<Visits>(key, in: other)
      let heldThere = Shared(wrappedValue: Visits(), .postgres(key, in: other))
      try await heldThere.load()
      try await mine.update(ifMissing: Visits()) { $0.count += 1 }
      try await waitForValue(heldThere, "the update before the partition") { $0.count == 1 }

      try await proxy.partition()
      let error = await #expect(throws: SharedPostgresError.self) {
        try await bounded(.seconds(30)) { try await mine.update(ifMissing: Visits()) { $0.count += 1 } }
      }
      #expect(Self.isTimedOut(error))
      // Another instance increments meanwhile.
      try await theirs.update(ifMissing: Visits()) { $0.count += 1 }

      try await proxy.heal()
      let written = try await bounded(.seconds(30)) {
        try await mine.update(ifMissing: Visits()) { $0.count += 1 }
      }
      // Three acknowledged increments; the one that failed at its deadline never reached the server.
      #expect(written.count == 3)
      try await waitForValue(heldThere, "the update after the partition healed") { $0.count == 3 }
      let row = try #require(try await TestDatabase.row(key))
      #expect(try JSONDecoder().decode(Visits.self, from: Data(row.json.utf8)) == Visits(count: 3))
      await partitioned.close()
      await other.close()
    }

    /// Only the read/write connection goes half-open, while it is in use: the save on it fails at the statement
    /// deadline, and is written again on a new connection.
    @Test func aStatementOnAHalfOpenConnectionFailsAtItsDeadlineAndTheSaveIsWrittenAgain() async throws {
      let proxy = try await FreezingProxy(targetPort: try TestDatabase.configuration().port)
      defer { proxy.stop() }
      // No idle check before the save: the save is what finds the connection gone.
      let configuration = try Self.configuration(
        through: proxy, statementTimeout: .seconds(2), keepaliveInterval: .seconds(600))
      let database = SharedPostgresDatabase(configuration)
      try await bounded(.seconds(20)) { try await database.waitUntilListening() }
      let key = TestDatabase.uniqueKey()
      let flags = Shared(wrappedValue: Flags(), .postgres(key, in: database))
      try await flags.load()
      // The listening connection came first; the read/write one is the newest.
      try await proxy.freeze(connection: try await proxy.connectionCount())

      flags.withLock { $0.limit = 42 }
      let error = await #expect(throws: SharedPostgresError.self) {
        try await bounded(.seconds(30)) { try await flags.save() }
      }
      #expect(Self.isTimedOut(error))
      #expect(database.core.connection.droppedForTests >= 1)
      try await waitUntil("the save written again") { flags.saveError == nil }
      #expect(try await TestDatabase.row(key)?.json.contains(#""limit":42"#) == true)
      await database.close()
    }

    /// The read/write connection goes half-open while idle: its keepalive check finds it, so the next save makes a
    /// new connection instead of waiting out its deadline (a minute here) on the dead one.
    @Test func anIdleReadWriteConnectionThatGoesHalfOpenIsFoundAndMadeAgain() async throws {
      let proxy = try await FreezingProxy(targetPort: try TestDatabase.configuration().port)
      defer { proxy.stop() }
      let configuration = try Self.configuration(
        through: proxy, statementTimeout: .seconds(60), keepaliveInterval: .milliseconds(100))
      let database = SharedPostgresDatabase(configuration)
      try await bounded(.seconds(20)) { try await database.waitUntilListening() }
      let key = TestDatabase.uniqueKey()
      let flags = Shared(wrappedValue: Flags(), .postgres(key, in: database))
      try await flags.load()
      try await proxy.freeze(connection: try await proxy.connectionCount())

      try await waitUntil("the idle check to drop the connection") { database.core.connection.droppedForTests > 0 }
      flags.withLock { $0.limit = 8 }
      try await bounded(.seconds(30)) { try await flags.save() }
      #expect(try await TestDatabase.row(key)?.json.contains(#""limit":8"#) == true)
      await database.close()
    }
  }
}
