import Foundation
import PostgresNIO
import SharedState
import Synchronization
import Testing

@testable import SharedPostgres

extension ServerTests {
  /// An instance ends where the row is, whatever order its own saves and other instances' changes reach it in.
  @Suite struct ConvergenceTests {
    /// Under last writer wins, another instance's change is decided to go to memory, then held back (as a database
    /// round trip would) while this instance saves a newer change: when it lands, it does not replace the newer
    /// value, so memory and row agree.
    @Test func anotherInstancesChangeLandingAfterANewerSaveDoesNotReplaceIt() async throws {
      let key = TestDatabase.uniqueKey()
      let markerKey = TestDatabase.uniqueKey("marker")
      let database = try await TestDatabase.instance()
      let flags = Shared(wrappedValue: Flags(), .postgres(key, in: database))
      let marker = Shared(wrappedValue: 0, .postgres(markerKey, in: database))
      try await flags.load()
      try await marker.load()
      let gate = Gate()
      database.core.beforeLanding.withLock { $0 = { await gate.pass() } }
      try await TestDatabase.writeAsAnotherInstance(key, Flags(limit: 5), version: 1)
      try await waitUntil("the other instance's change to be decided") { gate.reached }

      flags.withLock { $0.limit = 6 }
      try await flags.save()
      #expect(try await TestDatabase.row(key)?.version == 2)
      gate.open()
      // Changes land one after another: once the marker's has, the held-back one has too.
      try await TestDatabase.writeAsAnotherInstance(markerKey, 1, version: 1)
      try await waitForValue(marker, "the marker") { $0 == 1 }

      #expect(flags.wrappedValue.limit == 6)
      let row = try #require(try await TestDatabase.row(key))
      #expect(try JSONDecoder().decode(Flags.self, from: Data(row.json.utf8)) == Flags(limit: 6))
      await database.close()
    }

    /// Another instance's newer change, heard while a save of this instance runs, is held and heard again once the
    /// write has its version, while the framework may still be closing the save: it lands then (a ping-pong between
    /// two instances, each answering the other's change, stalled for good when it did not).
    @Test func aChangeHeardDuringASaveLandsWhileTheSaveIsStillClosing() async throws {
      let key = TestDatabase.uniqueKey()
      let database = try await TestDatabase.instance()
      let flags = Shared(wrappedValue: Flags(), .postgres(key, in: database))
      let markerKey = TestDatabase.uniqueKey("marker")
      let marker = Shared(wrappedValue: 0, .postgres(markerKey, in: database))
      try await flags.load()
      try await marker.load()
      let step = Mutex(0)
      // Once this instance's write committed (version 1), another instance writes version 2; the marker's change
      // landing after it shows it was heard (and held: the save runs).
      database.core.afterWriteCommitted.withLock {
        $0 = {
          guard step.withLock({ $0 == 0 }) else { return }
          try? await TestDatabase.writeAsAnotherInstance(key, Flags(limit: 2), version: 2)
          try? await TestDatabase.writeAsAnotherInstance(markerKey, 1, version: 1)
          try? await waitForValue(marker, "the first marker") { $0 == 1 }
          step.withLock { $0 = 1 }
        }
      }
      // The write returned (the held change is heard again now); before the save returns to the framework, wait
      // until that has been decided: the next marker lands after it.
      database.core.afterWriteReturned.withLock {
        $0 = {
          guard step.withLock({ $0 == 1 }) else { return }
          try? await TestDatabase.writeAsAnotherInstance(markerKey, 2, version: 2)
          try? await waitForValue(marker, "the second marker") { $0 == 2 }
          step.withLock { $0 = 2 }
        }
      }
      flags.withLock { $0.limit = 1 }
      try await flags.save()
      #expect(step.withLock { $0 } == 2)
      try await waitForValue(flags, "the other instance's newer change") { $0.limit == 2 }
      await database.close()
    }
  }
}
