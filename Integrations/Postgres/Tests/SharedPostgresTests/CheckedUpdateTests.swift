import Foundation
import PostgresNIO
import SharedState
import Synchronization
import Testing

@testable import SharedPostgres

struct Visits: Codable, Sendable, Equatable {
  var count = 0
}

extension ServerTests {
  /// `PostgresKey.update`: a change applied to the newest stored value, checked against the row's version and
  /// applied again on conflict.
  @Suite struct CheckedUpdateTests {
    /// 3 and 6 processes each add 1 to one counter 500 times at once: every increment is kept.
    @Test(arguments: [3, 6])
    func incrementsFromSeveralProcessesAreAllKept(processes: Int) async throws {
      _ = try TestDatabase.configuration()
      let key = TestDatabase.uniqueKey()
      var probes: [ProbeProcess] = []
      defer { for probe in probes { probe.finish() } }
      for _ in 0..<processes { probes.append(try ProbeProcess(key: key, policy: "update")) }
      for probe in probes { try await probe.run("ready", expecting: "ready") }
      for probe in probes { probe.send("increment 500") }
      for probe in probes { try await probe.expect("incremented 500", limit: .seconds(300)) }
      let row = try #require(try await TestDatabase.row(key))
      let stored = try JSONDecoder().decode(TwoProcessTests.StoredItems.self, from: Data(row.json.utf8))
      #expect(stored.counter == 500 * processes)
      // Every process ends on the row's value.
      for probe in probes { try await probe.run("await \(500 * processes)", expecting: "value \(500 * processes)") }
    }

    /// Another instance writes between the update's read and its write: the write is refused by the version check,
    /// and the change is applied again to the other instance's value, so both count.
    @Test func aChangeIsAppliedAgainToANewerValueWrittenMeanwhile() async throws {
      let key = TestDatabase.uniqueKey()
      let database = try await TestDatabase.instance()
      let visits = PostgresKey<Visits>(key, in: database)
      try await visits.update(ifMissing: Visits()) { $0.count += 1 }
      let interfered = Mutex(false)
      database.core.testHooks.withLock {
        // Once, between the update's read and its write: another instance writes version 2.
        $0.beforeWriteStatement = {
          let first = interfered.withLock { done in
            defer { done = true }
            return !done
          }
          guard first else { return }
          try? await TestDatabase.writeAsAnotherInstance(key, Visits(count: 10), version: 2)
        }
      }
      let attempts = Mutex(0)
      let written = try await visits.update(ifMissing: Visits()) { visits in
        attempts.withLock { $0 += 1 }
        visits.count += 1
      }
      #expect(written == Visits(count: 11))
      #expect(attempts.withLock { $0 } == 2)
      let row = try #require(try await TestDatabase.row(key))
      #expect(row.version == 3)
      #expect(try JSONDecoder().decode(Visits.self, from: Data(row.json.utf8)) == Visits(count: 11))
      await database.close()
    }

    /// The value an update wrote is in the memory of this instance's holders when it returns, and reaches another
    /// instance's holders.
    @Test func theValueWrittenIsInMemoryWhenTheUpdateReturnsAndReachesOtherInstances() async throws {
      let key = TestDatabase.uniqueKey()
      let first = try await TestDatabase.instance()
      let second = try await TestDatabase.instance()
      let here = Shared(wrappedValue: Visits(), .postgres(key, in: first))
      let there = Shared(wrappedValue: Visits(), .postgres(key, in: second))
      try await here.load()
      try await there.load()
      let written = try await PostgresKey<Visits>(key, in: first).update(ifMissing: Visits()) { $0.count += 5 }
      #expect(written.count == 5)
      #expect(here.wrappedValue.count == 5)
      try await waitForValue(there, "the update in the other instance") { $0.count == 5 }
      try await PostgresKey<Visits>(key, in: second).update(ifMissing: Visits()) { $0.count += 1 }
      #expect(there.wrappedValue.count == 6)
      try await waitForValue(here, "the other instance's update") { $0.count == 6 }
      await first.close()
      await second.close()
    }

    /// Another instance writes between the update's first attempt and its write: the refused write brings back the
    /// row's version and value as it found them, and the next attempt starts from them without reading the row;
    /// whether or not this instance holds the key.
    @Test(arguments: [true, false])
    func aConflictStartsAgainFromTheNewestRowWithoutReadingIt(held: Bool) async throws {
      let key = TestDatabase.uniqueKey()
      let database = try await TestDatabase.instance()
      let holder = held ? Shared(wrappedValue: Visits(), .postgres(key, in: database)) : nil
      try await holder?.load()
      let visits = PostgresKey<Visits>(key, in: database)
      try await visits.update(ifMissing: Visits()) { $0.count += 1 }
      let interfered = Mutex(false)
      let reads = Mutex(0)
      database.core.testHooks.withLock {
        $0.beforeRowRead = { reads.withLock { $0 += 1 } }
        // Once, before the first attempt's write: another instance writes version 2.
        $0.beforeWriteStatement = {
          let first = interfered.withLock { done in
            defer { done = true }
            return !done
          }
          guard first else { return }
          try? await TestDatabase.writeAsAnotherInstance(key, Visits(count: 10), version: 2)
        }
      }
      let attempts = Mutex(0)
      let written = try await visits.update(ifMissing: Visits()) { visits in
        attempts.withLock { $0 += 1 }
        visits.count += 1
      }
      #expect(written == Visits(count: 11))
      #expect(attempts.withLock { $0 } == 2)
      #expect(reads.withLock { $0 } == 0)
      #expect(try await TestDatabase.row(key)?.version == 3)
      withExtendedLifetime(holder) {}
      await database.close()
    }

    /// Without a value of the key held, another instance's announcement still tells this instance the row's newest
    /// version and value: the next update starts from them, and its first attempt is written.
    @Test func anUpdateOfAKeyNotHeldStartsFromTheNewestRowAnnounced() async throws {
      let key = TestDatabase.uniqueKey()
      let database = try await TestDatabase.instance()
      let visits = PostgresKey<Visits>(key, in: database)
      try await visits.update(ifMissing: Visits()) { $0.count += 1 }
      try await TestDatabase.writeAsAnotherInstance(key, Visits(count: 10), version: 2)
      try await waitUntil("the other instance's version heard") { database.core.lastRowSeen(key)?.version == 2 }
      let attempts = Mutex(0)
      let written = try await visits.update(ifMissing: Visits()) { visits in
        attempts.withLock { $0 += 1 }
        visits.count += 1
      }
      #expect(written == Visits(count: 11))
      #expect(attempts.withLock { $0 } == 1)
      await database.close()
    }

    /// A change that throws writes nothing, and the error reaches the caller.
    @Test func aChangeThatThrowsWritesNothing() async throws {
      struct Refused: Error {}
      let key = TestDatabase.uniqueKey()
      let database = try await TestDatabase.instance()
      let visits = PostgresKey<Visits>(key, in: database)
      try await visits.update(ifMissing: Visits()) { $0.count = 1 }
      await #expect(throws: Refused.self) {
        try await visits.update(ifMissing: Visits()) { _ in throw Refused() }
      }
      #expect(try await TestDatabase.row(key)?.version == 1)
      await database.close()
    }
  }
}
