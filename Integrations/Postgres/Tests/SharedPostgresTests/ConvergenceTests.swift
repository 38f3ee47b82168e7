import Foundation
import PostgresNIO
import SharedState
import Synchronization
import Testing

@testable import SharedPostgres

extension ServerTests {
  /// An instance ends where the row is, whatever order its own saves and other instances' changes reach it in.
  @Suite struct ConvergenceTests {
    /// Under a merge that is idempotent but not commutative (each instance keeps its own theme and unions the
    /// tags), two instances make one change each and then stay idle. Each writes its own change, and a version
    /// another instance wrote replaces a memory that holds no change of its own: no instance writes a merged value
    /// back for a change it did not make. So the row stops after a few versions (it grew by thousands when each
    /// instance answered the other's version with its own theme), and both end on the row's value.
    @Test func twoIdleInstancesWithAMergeThatIsNotCommutativeStopWritingAndConverge() async throws {
      let key = TestDatabase.uniqueKey()
      let markerKey = TestDatabase.uniqueKey("marker")
      let first = try await TestDatabase.instance()
      let second = try await TestDatabase.instance()
      let keepMyTheme: PostgresConflictPolicy<Preferences> = .merge { local, remote in
        Preferences(theme: local.theme, tags: local.tags.union(remote.tags))
      }
      let one = Shared(wrappedValue: Preferences(), .postgres(key, in: first, conflicts: keepMyTheme))
      let two = Shared(wrappedValue: Preferences(), .postgres(key, in: second, conflicts: keepMyTheme))
      let markerOne = Shared(wrappedValue: 0, .postgres(markerKey, in: first))
      let markerTwo = Shared(wrappedValue: 0, .postgres(markerKey, in: second))
      try await one.load()
      try await two.load()
      try await markerOne.load()
      try await markerTwo.load()

      one.withLock { $0 = Preferences(theme: "dark", tags: ["one"]) }
      two.withLock { $0 = Preferences(theme: "light", tags: ["two"]) }
      async let savedOne: Void = one.save()
      async let savedTwo: Void = two.save()
      _ = try await (savedOne, savedTwo)
      // Both idle: wait until they show one value, or until they wrote far more versions than two changes need.
      let converged = try await bounded(.seconds(20), "both instances to show one value") {
        while true {
          if one.wrappedValue == two.wrappedValue { return true }
          if try await TestDatabase.row(key)?.version ?? 0 > 20 { return false }
          try await Task.sleep(for: .milliseconds(10))
        }
      }
      let settled = try await TestDatabase.row(key)
      // Announcements arrive in the order of their commits: once a change made after `settled` landed in both
      // instances, every version up to it has landed too, and any version written in answer to one is in the row.
      try await TestDatabase.writeAsAnotherInstance(markerKey, 1, version: 1)
      try await waitForValue(markerOne, "the marker in the first instance") { $0 == 1 }
      try await waitForValue(markerTwo, "the marker in the second instance") { $0 == 1 }
      let row = try await TestDatabase.row(key)
      await first.close()
      await second.close()

      #expect(converged)
      let stored = try #require(row)
      #expect(stored.version == settled?.version)
      #expect(stored.version <= 4)
      let value = try JSONDecoder().decode(Preferences.self, from: Data(stored.json.utf8))
      #expect(value.tags == ["one", "two"])
      #expect(one.wrappedValue == value)
      #expect(two.wrappedValue == value)
    }

    /// Under a merge that keeps this instance's theme, another instance wrote a newer version this instance has not
    /// heard of yet, and the program saves a value that holds no change of its own (a `withLock` that changed
    /// nothing): the save writes nothing and memory takes the row's value, instead of writing this instance's older
    /// theme over the other instance's newer one.
    @Test func aSaveOfAValueWithNoChangeOfItsOwnWritesNoMergeOverANewerRow() async throws {
      let key = TestDatabase.uniqueKey()
      let database = try await TestDatabase.instance()
      try await TestDatabase.writeAsAnotherInstance(key, Preferences(theme: "dark", tags: ["one"]), version: 1)
      let keepMyTheme: PostgresConflictPolicy<Preferences> = .merge { local, remote in
        Preferences(theme: local.theme, tags: local.tags.union(remote.tags))
      }
      let preferences = Shared(wrappedValue: Preferences(), .postgres(key, in: database, conflicts: keepMyTheme))
      try await preferences.load()
      #expect(preferences.wrappedValue == Preferences(theme: "dark", tags: ["one"]))
      let newer = Preferences(theme: "light", tags: ["one", "two"])
      try await TestDatabase.writeSilentlyAsAnotherInstance(key, newer, version: 2)

      preferences.withLock { $0.theme = "dark" }
      try await preferences.save()
      let row = try #require(try await TestDatabase.row(key))
      #expect(row.version == 2)
      #expect(try JSONDecoder().decode(Preferences.self, from: Data(row.json.utf8)) == newer)
      #expect(preferences.wrappedValue == newer)
      await database.close()
    }

    /// Under last writer wins, another instance's change is decided to go to memory, then held back (as a database
    /// round trip would) while this instance saves a newer change: when it lands, it does not replace the newer
    /// value, so memory and row agree. The program's change also makes the framework refuse the landing, so this
    /// pins the outcome end to end; the landing's own version check is pinned by
    /// `KeyVersionStateMachineTests.everyOrderingLandsOnlyVersionsNewerThanMemory`.
    @Test func anotherInstancesChangeLandingAfterANewerSaveDoesNotReplaceIt() async throws {
      let key = TestDatabase.uniqueKey()
      let markerKey = TestDatabase.uniqueKey("marker")
      let database = try await TestDatabase.instance()
      let flags = Shared(wrappedValue: Flags(), .postgres(key, in: database))
      let marker = Shared(wrappedValue: 0, .postgres(markerKey, in: database))
      try await flags.load()
      try await marker.load()
      let gate = Gate()
      database.core.testHooks.withLock { $0.beforeLanding = { await gate.pass() } }
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
      database.core.testHooks.withLock {
        $0.afterWriteCommitted = {
          guard step.withLock({ $0 == 0 }) else { return }
          try? await TestDatabase.writeAsAnotherInstance(key, Flags(limit: 2), version: 2)
          try? await TestDatabase.writeAsAnotherInstance(markerKey, 1, version: 1)
          try? await waitForValue(marker, "the first marker") { $0 == 1 }
          step.withLock { $0 = 1 }
        }
      }
      // The write returned (the held change is heard again now); before the save returns to the framework, wait
      // until that has been decided: the next marker lands after it.
      database.core.testHooks.withLock {
        $0.afterWriteReturned = {
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

    /// The framework starts a load; another instance's change (version 6) is heard before the load reads the row,
    /// which by then holds version 7, announced only after the load. Had version 6 landed during the load, the
    /// framework would drop the load's value (memory changed after the load began) while version 7 counted as
    /// known already, so its announcement was ignored: memory on 6, the row on 7. Changes heard during a load wait
    /// for it, so memory ends on 7.
    @Test func aLoadThatReadsANewerVersionThanALandingEndsOnTheNewerVersion() async throws {
      let key = TestDatabase.uniqueKey()
      let markerKey = TestDatabase.uniqueKey("marker")
      let database = try await TestDatabase.instance()
      let flags = Shared(wrappedValue: Flags(), .postgres(key, in: database))
      let marker = Shared(wrappedValue: 0, .postgres(markerKey, in: database))
      try await flags.load()
      try await marker.load()
      try await database.waitUntilListening()
      try await TestDatabase.writeAsAnotherInstance(key, Flags(limit: 5), version: 5)
      try await waitForValue(flags, "version 5") { $0.limit == 5 }

      let readGate = Gate()
      database.core.testHooks.withLock { $0.beforeLoadRead = { await readGate.pass() } }
      let loading = Task { try await flags.load() }
      try await waitUntil("the load to begin") { readGate.reached }
      try await TestDatabase.writeAsAnotherInstance(key, Flags(limit: 6), version: 6)
      // Changes are heard one after another: once the marker's landed, version 6 was heard.
      try await TestDatabase.writeAsAnotherInstance(markerKey, 1, version: 1)
      try await waitForValue(marker, "the first marker") { $0 == 1 }
      try await TestDatabase.writeSilentlyAsAnotherInstance(key, Flags(limit: 7), version: 7)
      readGate.open()
      try await loading.value
      try await TestDatabase.announceAsAnotherInstance(key, Flags(limit: 7), version: 7)
      try await TestDatabase.writeAsAnotherInstance(markerKey, 2, version: 2)
      try await waitForValue(marker, "the second marker") { $0 == 2 }

      #expect(flags.wrappedValue.limit == 7)
      #expect(try await TestDatabase.row(key)?.version == 7)
      await database.close()
    }

    /// Under last writer wins, the program changes the value after another instance's change was decided to go to
    /// memory and before it landed (a database round trip for a large value, say), and the change's save has not
    /// started yet: the landing does not replace the program's change, which is then saved over the other version.
    @Test func aChangeMadeAfterAnotherInstancesChangeWasHeardIsKept() async throws {
      let key = TestDatabase.uniqueKey()
      let markerKey = TestDatabase.uniqueKey("marker")
      let database = try await TestDatabase.instance()
      let flags = Shared(wrappedValue: Flags(), .postgres(key, in: database))
      let marker = Shared(wrappedValue: 0, .postgres(markerKey, in: database))
      try await flags.load()
      try await marker.load()
      try await database.waitUntilListening()
      let saveGate = Gate()
      database.core.testHooks.withLock { $0.beforeSaveStarted = { await saveGate.pass() } }
      let landingGate = Gate()
      database.core.testHooks.withLock { $0.beforeLanding = { await landingGate.pass() } }
      try await TestDatabase.writeAsAnotherInstance(key, Flags(limit: 5), version: 5)
      try await waitUntil("version 5 to be decided") { landingGate.reached }
      flags.withLock { $0.limit = 9 }
      landingGate.open()
      // Changes land one after another: once the marker's has, version 5 landed or was dropped.
      try await TestDatabase.writeAsAnotherInstance(markerKey, 1, version: 1)
      try await waitForValue(marker, "the marker") { $0 == 1 }
      #expect(flags.wrappedValue.limit == 9)

      saveGate.open()
      try await flags.save()
      #expect(flags.wrappedValue.limit == 9)
      let row = try #require(try await TestDatabase.row(key))
      #expect(try JSONDecoder().decode(Flags.self, from: Data(row.json.utf8)).limit == 9)
      #expect(row.version == 6)
      await database.close()
    }

    /// A row deleted by hand and made again at version 1 by another instance, while this instance knew version 3
    /// and an announcement of the old row (version 5) still waited to be applied: once a load found the row made
    /// again and forgot the versions above 1, that announcement does not land the old row's value.
    @Test func anAnnouncementOfTheOldRowHeardBeforeItWasFoundMadeAgainDoesNotLand() async throws {
      let key = TestDatabase.uniqueKey()
      let markerKey = TestDatabase.uniqueKey("marker")
      let database = try await TestDatabase.instance()
      let flags = Shared(wrappedValue: Flags(), .postgres(key, in: database))
      let marker = Shared(wrappedValue: 0, .postgres(markerKey, in: database))
      try await flags.load()
      try await marker.load()
      try await database.waitUntilListening()
      try await TestDatabase.writeAsAnotherInstance(key, Flags(limit: 3), version: 3)
      try await waitForValue(flags, "version 3") { $0.limit == 3 }

      // The applying loop waits on the marker's change while the old row's version 5 is announced behind it.
      let landingGate = Gate()
      database.core.testHooks.withLock { $0.beforeLanding = { await landingGate.pass() } }
      try await TestDatabase.writeAsAnotherInstance(markerKey, 1, version: 1)
      try await waitUntil("the marker to be decided") { landingGate.reached }
      try await TestDatabase.announceAsAnotherInstance(key, Flags(limit: 50), version: 5)
      try await TestDatabase.deleteRow(key)
      try await TestDatabase.writeSilentlyAsAnotherInstance(key, Flags(limit: 10), version: 1)
      let readGate = Gate()
      database.core.testHooks.withLock { $0.afterLoadRead = { await readGate.pass() } }
      let loading = Task { try await flags.load() }
      try await waitUntil("the load to find the row made again") { readGate.reached }
      readGate.open()
      landingGate.open()
      try await loading.value
      try await TestDatabase.writeAsAnotherInstance(markerKey, 2, version: 2)
      try await waitForValue(marker, "the second marker") { $0 == 2 }

      #expect(flags.wrappedValue.limit == 10)
      #expect(try await TestDatabase.row(key)?.version == 1)
      await database.close()
    }
  }
}

/// Settings each instance keeps a part of: its own theme, and the tags of all.
struct Preferences: Codable, Sendable, Equatable {
  var theme = "system"
  var tags: Set<String> = []
}
