import Foundation
import PostgresNIO
import SharedState
import Synchronization
import Testing

@testable import SharedPostgres

extension ServerTests {
  /// The server goes away and comes back: instances reconnect, reload, expose the outage meanwhile, and save the
  /// changes made during it.
  @Suite struct FaultTests {
    struct MissingCommand: Error, CustomStringConvertible {
      var name: String
      var description: String {
        "\(name) is not set: run the tests with `bash .ci/postgres-tests`, which sets it to control its server"
      }
    }

    struct CommandFailed: Error, CustomStringConvertible {
      var name: String
      var status: Int32
      var description: String { "\(name) exited with \(status)" }
    }

    /// Runs the server command the environment names (`SHARED_POSTGRES_STOP`, `_START` or `_RESTART`).
    static func server(_ name: String) throws {
      guard let command = ProcessInfo.processInfo.environment[name] else { throw MissingCommand(name: name) }
      let process = Process()
      process.executableURL = URL(fileURLWithPath: "/bin/bash")
      // The server the command starts must keep none of this process's files open (a pipe it kept would keep the
      // test runner waiting for its end): every inherited descriptor above 2 is closed first.
      let closeInherited =
        #"for fd in /proc/$$/fd/*; do n=${fd##*/}; if [ "$n" -gt 2 ]; then eval "exec $n>&-"; fi; done 2>/dev/null; "#
      process.arguments = ["-c", closeInherited + "\(command) < /dev/null > /dev/null 2>&1"]
      process.standardInput = FileHandle.nullDevice
      process.standardOutput = FileHandle.nullDevice
      process.standardError = FileHandle.nullDevice
      try process.run()
      process.waitUntilExit()
      guard process.terminationStatus == 0 else {
        throw CommandFailed(name: name, status: process.terminationStatus)
      }
    }

    @Test func anOutageIsExposedAndAChangeMadeDuringItIsSavedOnReconnect() async throws {
      let key = TestDatabase.uniqueKey()
      let first = try await TestDatabase.instance()
      let second = try await TestDatabase.instance()
      let one = Shared(wrappedValue: Flags(), .postgres(key, in: first))
      let two = Shared(wrappedValue: Flags(), .postgres(key, in: second))
      try await one.load()
      try await two.load()
      one.withLock { $0.limit = 1 }
      try await waitForValue(two, "the change before the outage") { $0.limit == 1 }

      try Self.server("SHARED_POSTGRES_STOP")
      do {
        try await waitUntil("the outage in loadError") {
          if case .disconnected? = one.loadError as? SharedPostgresError { return true }
          return false
        }
        one.withLock { $0.limit = 42 }
        await #expect(throws: (any Error).self) { try await one.save() }
        #expect(one.saveError != nil)
        #expect(one.wrappedValue.limit == 42)
      } catch {
        try Self.server("SHARED_POSTGRES_START")
        throw error
      }
      try Self.server("SHARED_POSTGRES_START")

      // Once back, the change made during the outage is saved and reaches the other instance.
      try await waitForValue(two, "the change made during the outage") { $0.limit == 42 }
      try await waitUntil("the errors cleared") { one.saveError == nil && one.loadError == nil }
      #expect(try await TestDatabase.row(key)?.json.contains(#""limit":42"#) == true)
      await first.close()
      await second.close()
    }

    /// Only the connection that reads and writes drops (the server ends it), while the listening one stays up: the
    /// save that failed on it is written again once a new connection works, and its error shows until then. Under
    /// merge the connection drops between the save's read and its write (a save in a transaction then never
    /// returned: the rollback was sent on the closed connection).
    @Test(arguments: ["lww", "merge"])
    func aSaveThatFailedOnTheReadWriteConnectionAloneIsWrittenAgain(policy: String) async throws {
      let key = TestDatabase.uniqueKey()
      let database = try await TestDatabase.instance()
      let conflicts: PostgresConflictPolicy<Flags> =
        policy == "merge" ? .merge { local, remote in local.limit >= remote.limit ? local : remote } : .lastWriterWins
      let flags = Shared(wrappedValue: Flags(), .postgres(key, in: database, conflicts: conflicts))
      try await flags.load()
      flags.withLock { $0.limit = 1 }
      try await flags.save()

      // The read/write connection's server process: the one ended below (not the listening one, whose last query
      // is a keepalive's `SELECT 1` once one ran).
      let readWritePID = try await database.core.connection.withConnection { session in
        let rows = try await session.connection.query("SELECT pg_backend_pid()", logger: Logger(label: "tests"))
        for try await pid in rows.decode(Int32.self) { return pid }
        throw TimedOut(what: "the read/write connection's process id")
      }
      let dropped = Mutex(false)
      database.core.testHooks.withLock {
        $0.beforeWriteStatement = {
          guard
            dropped.withLock({ done in
              defer { done = true }
              return !done
            })
          else { return }
          try? await Self.endConnection(pid: readWritePID)
          // The statement is sent once the client has seen the connection end.
          try? await waitUntil("the client to see the connection end") {
            database.core.connection.isClosedForTests
          }
        }
      }
      flags.withLock { $0.limit = 42 }
      // Under merge, another instance writes first, so the save reads the row and merges before its write.
      if policy == "merge" { try await TestDatabase.writeSilentlyAsAnotherInstance(key, Flags(limit: 2), version: 2) }
      do {
        try await bounded(.seconds(30), "the failed save to return") { try await flags.save() }
        Issue.record("the save succeeded on a connection that was ended")
      } catch let error as TimedOut {
        Issue.record(error)
      } catch {
        #expect(flags.saveError != nil)
      }

      // Nothing else changes, and the listening connection never dropped.
      try await waitUntil("the failed save written again") { flags.saveError == nil }
      #expect(flags.loadError == nil)
      #expect(flags.wrappedValue.limit == 42)
      let row = try #require(try await TestDatabase.row(key))
      #expect(try JSONDecoder().decode(Flags.self, from: Data(row.json.utf8)) == Flags(limit: 42))
      await database.close()
    }

    /// A failed save is written again (`HeldValue.saveAgain()`) while another instance's older change, decided to
    /// go to memory before the new write, still waits to land: memory was not changed since the change was heard
    /// (the program's change was made before the failed save), so only the landing's own check that this instance
    /// knows a newer version keeps the older value out of memory.
    @Test func anOlderChangeLandingAfterAFailedSaveWasWrittenAgainDoesNotReplaceIt() async throws {
      let key = TestDatabase.uniqueKey()
      let markerKey = TestDatabase.uniqueKey("marker")
      let database = try await TestDatabase.instance()
      let flags = Shared(wrappedValue: Flags(), .postgres(key, in: database))
      let marker = Shared(wrappedValue: 0, .postgres(markerKey, in: database))
      try await flags.load()
      try await marker.load()

      let readWritePID = try await database.core.connection.withConnection { session in
        let rows = try await session.connection.query("SELECT pg_backend_pid()", logger: Logger(label: "tests"))
        for try await pid in rows.decode(Int32.self) { return pid }
        throw TimedOut(what: "the read/write connection's process id")
      }
      let landingGate = Gate()
      let savesStarted = Mutex(0)
      let dropped = Mutex(false)
      database.core.testHooks.withLock {
        // The program's save fails: its connection ends before its statement is sent.
        $0.beforeWriteStatement = {
          guard
            dropped.withLock({ done in
              defer { done = true }
              return !done
            })
          else { return }
          try? await Self.endConnection(pid: readWritePID)
          try? await waitUntil("the client to see the connection end") {
            database.core.connection.isClosedForTests
          }
        }
        // The failed save is written again only once the other instance's change waits to land.
        $0.beforeSaveStarted = {
          let first = savesStarted.withLock { count in
            defer { count += 1 }
            return count == 0
          }
          guard !first else { return }
          try? await waitUntil("the other instance's change to be decided") { landingGate.reached }
        }
        $0.beforeLanding = { await landingGate.pass() }
      }
      flags.withLock { $0.limit = 42 }
      await #expect(throws: (any Error).self) { try await flags.save() }

      try await TestDatabase.writeAsAnotherInstance(key, Flags(limit: 5), version: 1)
      try await waitUntil("the failed save written again") { flags.saveError == nil }
      #expect(try await TestDatabase.row(key)?.version == 2)
      landingGate.open()
      // Changes land one after another: once the marker's has, the held-back one has too.
      try await TestDatabase.writeAsAnotherInstance(markerKey, 1, version: 1)
      try await waitForValue(marker, "the marker") { $0 == 1 }

      #expect(flags.wrappedValue.limit == 42)
      let row = try #require(try await TestDatabase.row(key))
      #expect(try JSONDecoder().decode(Flags.self, from: Data(row.json.utf8)) == Flags(limit: 42))
      await database.close()
    }

    /// Ends, on the server, the connection served by the process `pid`.
    static func endConnection(pid: Int32) async throws {
      try await TestDatabase.withConnection { connection in
        try await connection.query("SELECT pg_terminate_backend(\(pid), 5000)::text", logger: Logger(label: "tests"))
      }
    }

    /// The listening connection goes half-open (a partition: nothing arrives, nothing fails): the keepalive check
    /// finds it, the outage shows as `loadError`, and a new connection hears other instances' changes again.
    @Test func aHalfOpenListeningConnectionIsFoundAndMadeAgain() async throws {
      var configuration = try TestDatabase.configuration()
      let proxy = try await FreezingProxy(targetPort: configuration.port)
      defer { proxy.stop() }
      configuration.port = proxy.port
      configuration.keepaliveInterval = .milliseconds(100)
      let database = SharedPostgresDatabase(configuration)
      // The listening connection is the proxy's first; the one that reads and writes comes after, with the load.
      try await bounded(.seconds(20)) { try await database.waitUntilListening() }
      let key = TestDatabase.uniqueKey()
      let flags = Shared(wrappedValue: Flags(), .postgres(key, in: database))
      try await flags.load()

      try await proxy.freezeFirstConnection()
      try await waitUntil("the half-open connection found") {
        if case .disconnected? = flags.loadError as? SharedPostgresError { return true }
        return false
      }
      try await waitUntil("the listening connection made again") { flags.loadError == nil }
      try await bounded(.seconds(20)) { try await database.waitUntilListening() }
      try await TestDatabase.writeAsAnotherInstance(key, Flags(limit: 11), version: 1)
      try await waitForValue(flags, "another instance's change after the partition") { $0.limit == 11 }
      await database.close()
    }

    /// A change saved during an outage is written again on reconnect; the program changes the value while that
    /// write runs: the change is kept, in memory and in the row, and is not undone by the write's result.
    @Test func aChangeMadeWhileAFailedSaveIsWrittenAgainIsKept() async throws {
      let key = TestDatabase.uniqueKey()
      let database = try await TestDatabase.instance()
      let flags = Shared(wrappedValue: Flags(), .postgres(key, in: database))
      try await flags.load()
      flags.withLock { $0.limit = 1 }
      try await flags.save()

      try Self.server("SHARED_POSTGRES_STOP")
      flags.withLock { $0.limit = 42 }
      await #expect(throws: (any Error).self) { try await flags.save() }
      #expect(flags.saveError != nil)
      // On reconnect the failed save is written again; once it committed, the program changes the value.
      let duringWrite = OneShot()
      duringWrite.arm { flags.withLock { $0.note = "program" } }
      database.core.testHooks.withLock { $0.afterWriteCommitted = { duringWrite.run() } }
      try Self.server("SHARED_POSTGRES_START")

      try await waitUntil("the write again") { duringWrite.ran }
      try await waitUntil("the errors cleared") { flags.saveError == nil && flags.loadError == nil }
      try await flags.save()
      let expected = Flags(limit: 42, note: "program")
      #expect(flags.wrappedValue == expected)
      let row = try #require(try await TestDatabase.row(key))
      #expect(try JSONDecoder().decode(Flags.self, from: Data(row.json.utf8)) == expected)
      await database.close()
    }

    /// Under merge, another instance's value arrives while memory holds a change of this instance not written yet
    /// (its save waits), and while the two are combined the program changes the value while the server is away:
    /// the combination cannot be written, nor put in memory (the program's change is newer). Memory then does not
    /// hold the other instance's version, so the save on reconnect still combines the program's changes with the
    /// row instead of writing over it.
    @Test func aMergeThatCouldNotBeWrittenNorAppliedIsCombinedAgainOnReconnect() async throws {
      let key = TestDatabase.uniqueKey()
      let database = try await TestDatabase.instance()
      let duringMerge = OneShot()
      let union: PostgresConflictPolicy<Set<String>> = .merge { local, remote in
        duringMerge.run()
        return local.union(remote)
      }
      let marks = Shared(wrappedValue: Set<String>(), .postgres(key, in: database, conflicts: union))
      try await marks.load()
      marks.withLock { _ = $0.insert("a") }
      try await marks.save()

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
      duringMerge.arm {
        try? Self.server("SHARED_POSTGRES_STOP")
        marks.withLock { _ = $0.insert("program") }
      }
      // Another instance writes version 2 and announces it.
      try await TestDatabase.writeAsAnotherInstance(key, Set(["a", "remote"]), version: 2)
      do {
        try await waitUntil("the merge") { duringMerge.ran }
        saveGate.open()
        try await waitUntil("the failed save") { marks.saveError != nil }
      } catch {
        saveGate.open()
        try Self.server("SHARED_POSTGRES_START")
        throw error
      }
      try Self.server("SHARED_POSTGRES_START")

      let all: Set<String> = ["a", "mine", "program", "remote"]
      try await waitForValue(marks, "the program's change and the other instance's") { $0 == all }
      try await waitUntil("the errors cleared") { marks.saveError == nil && marks.loadError == nil }
      try await marks.save()
      let row = try #require(try await TestDatabase.row(key))
      #expect(try JSONDecoder().decode(Set<String>.self, from: Data(row.json.utf8)) == all)
      await database.close()
    }

    @Test func theServerRestartedMidRunBothProcessesReconnectAndConverge() async throws {
      _ = try TestDatabase.configuration()
      let key = TestDatabase.uniqueKey()
      let probes = try await ProbePair(key: key, policy: "lww")
      defer { probes.finish() }
      let (first, second) = (probes.first, probes.second)
      first.send("hammer")
      try await first.expect("hammering")
      try Self.server("SHARED_POSTGRES_RESTART")
      // The hammering process writes through the restart, then stops and saves what it holds once the server is back.
      let counter = try await first.run("stop", answerStartingWith: "stopped ")
      let row = try #require(try await TestDatabase.row(key))
      let stored = try JSONDecoder().decode(TwoProcessTests.StoredItems.self, from: Data(row.json.utf8))
      #expect(String(stored.counter) == counter)
      // Both processes reconnected: each hears the other's changes after the restart.
      try await second.run("await \(stored.counter)", expecting: "value \(stored.counter)")
      try await second.run("count \(stored.counter + 5)", expecting: "counted \(stored.counter + 5)")
      try await first.run("await \(stored.counter + 5)", expecting: "value \(stored.counter + 5)")
      try await first.run("count \(stored.counter + 9)", expecting: "counted \(stored.counter + 9)")
      try await second.run("await \(stored.counter + 9)", expecting: "value \(stored.counter + 9)")
    }

    /// A fault of the server while saves run.
    enum Fault: String, CaseIterable, Sendable {
      /// `pg_ctl restart -m fast`.
      case restart
      /// Every other backend of the database ended by `pg_terminate_backend`.
      case terminatedBackends
      /// `pg_ctl stop -m fast`, then start.
      case stopAndStart
    }

    /// Brings `fault` about.
    static func bringAbout(_ fault: Fault) async throws {
      switch fault {
      case .restart:
        try server("SHARED_POSTGRES_RESTART")
      case .terminatedBackends:
        try await TestDatabase.withConnection { connection in
          try await connection.query(
            """
            SELECT count(pg_terminate_backend(pid))::text FROM pg_stat_activity
            WHERE datname = current_database() AND pid <> pg_backend_pid()
            """, logger: Logger(label: "tests"))
        }
      case .stopAndStart:
        try server("SHARED_POSTGRES_STOP")
        try server("SHARED_POSTGRES_START")
      }
    }

    /// Two processes save large values in a loop, under merge or with checked updates, while the server restarts,
    /// their backends are ended, or it stops and starts: every save in flight returns (none hangs on a connection
    /// that is gone), each process writes again once the server is back, and both converge. With checked updates,
    /// no acknowledged increment is lost.
    @Test(arguments: ["merge", "update"], Fault.allCases)
    func savesInFlightThroughAFaultReturnAndBothProcessesConverge(policy: String, fault: Fault) async throws {
      _ = try TestDatabase.configuration()
      let key = TestDatabase.uniqueKey()
      let probes = try await ProbePair(key: key, policy: policy)
      defer { probes.finish() }
      let (first, second) = (probes.first, probes.second)
      first.send("hammer")
      second.send("hammer")
      try await first.expect("hammering")
      try await second.expect("hammering")
      try await Self.bringAbout(fault)
      // Each stops hammering (its save in flight must return), then writes until a write succeeds.
      _ = try await first.run("stop", answerStartingWith: "stopped ")
      _ = try await second.run("stop", answerStartingWith: "stopped ")
      let row = try #require(try await TestDatabase.row(key))
      let stored = try JSONDecoder().decode(TwoProcessTests.StoredItems.self, from: Data(row.json.utf8))
      if policy == "update" {
        let firstAcknowledged = try await first.run("acknowledged", answerStartingWith: "acknowledged ")
        let secondAcknowledged = try await second.run("acknowledged", answerStartingWith: "acknowledged ")
        let acknowledged = (Int(firstAcknowledged) ?? 0) + (Int(secondAcknowledged) ?? 0)
        // An update whose answer was lost with its connection may have been written too: at least, never fewer.
        #expect(stored.counter >= acknowledged)
      }
      // Both reconnected: each has the row, and hears the other's changes.
      try await first.run("await \(stored.counter)", expecting: "value \(stored.counter)")
      try await second.run("await \(stored.counter)", expecting: "value \(stored.counter)")
      try await second.run("count \(stored.counter + 5)", expecting: "counted \(stored.counter + 5)")
      try await first.run("await \(stored.counter + 5)", expecting: "value \(stored.counter + 5)")
    }

    /// One of two processes saving large values in a loop, under merge or with checked updates, is ended by SIGKILL
    /// mid-save: the other goes on saving (nothing it waits for hangs on the dead instance), the row stays readable,
    /// no acknowledged increment is lost, and an instance started again in the killed one's place loads the row and
    /// converges with the survivor.
    @Test(arguments: ["merge", "update"])
    func anInstanceKilledMidSaveLosesNoAcknowledgedChangeAndItsReplacementConverges(policy: String) async throws {
      _ = try TestDatabase.configuration()
      let key = TestDatabase.uniqueKey()
      let probes = try await ProbePair(key: key, policy: policy)
      defer { probes.finish() }
      let (killed, survivor) = (probes.first, probes.second)
      killed.send("hammer")
      survivor.send("hammer")
      try await killed.expect("hammering")
      try await survivor.expect("hammering")
      // What the killed instance had acknowledged before it died: a lower bound of what it wrote.
      let killedAcknowledged = Int(try await killed.run("acknowledged", answerStartingWith: "acknowledged ")) ?? 0
      killed.kill()
      _ = try await survivor.run("stop", answerStartingWith: "stopped ")
      let row = try #require(try await TestDatabase.row(key))
      let stored = try JSONDecoder().decode(TwoProcessTests.StoredItems.self, from: Data(row.json.utf8))
      #expect(stored.padding.count == 50_000)
      if policy == "update" {
        let survivorAcknowledged = Int(try await survivor.run("acknowledged", answerStartingWith: "acknowledged ")) ?? 0
        #expect(killedAcknowledged >= 1)
        #expect(stored.counter >= killedAcknowledged + survivorAcknowledged)
      }

      let replacement = try ProbeProcess(key: key, policy: policy)
      defer { replacement.finish() }
      try await replacement.run("ready", expecting: "ready")
      try await replacement.run("await \(stored.counter)", expecting: "value \(stored.counter)")
      try await survivor.run("count \(stored.counter + 5)", expecting: "counted \(stored.counter + 5)")
      try await replacement.run("await \(stored.counter + 5)", expecting: "value \(stored.counter + 5)")
      try await replacement.run("count \(stored.counter + 9)", expecting: "counted \(stored.counter + 9)")
      try await survivor.run("await \(stored.counter + 9)", expecting: "value \(stored.counter + 9)")
    }
  }
}
