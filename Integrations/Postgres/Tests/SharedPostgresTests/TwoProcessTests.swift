import Foundation
import SharedPostgres
import SharedState
import Testing

extension ServerTests {
  /// Two separate processes share a value through the server: this test process drives two `PostgresProbe`s.
  @Suite struct TwoProcessTests {
    @Test func eachProcessSeesTheOthersChange() async throws {
      _ = try TestDatabase.configuration()
      let key = TestDatabase.uniqueKey()
      let probes = try await ProbePair(key: key, policy: "merge")
      defer { probes.finish() }
      let (first, second) = (probes.first, probes.second)
      try await first.run("count 1", expecting: "counted 1")
      try await second.run("await 1", expecting: "value 1")
      try await second.run("count 2", expecting: "counted 2")
      try await first.run("await 2", expecting: "value 2")
    }

    @Test func tenThousandRapidChangesReachTheOtherEndsFinalValue() async throws {
      _ = try TestDatabase.configuration()
      let key = TestDatabase.uniqueKey()
      let probes = try await ProbePair(key: key, policy: "merge")
      defer { probes.finish() }
      let (writer, reader) = (probes.first, probes.second)
      reader.send("await 10000")
      try await writer.run("count 10000", expecting: "counted 10000")
      try await writer.run("save", expecting: "saved")
      try await reader.expect("value 10000")
      let row = try #require(try await TestDatabase.row(key))
      #expect(row.json.contains(#""counter":10000"#))
    }

    @Test func bothWritingAtOnceConvergeWithNoLostUpdateUnderMerge() async throws {
      _ = try TestDatabase.configuration()
      let key = TestDatabase.uniqueKey()
      let probes = try await ProbePair(key: key, policy: "merge")
      defer { probes.finish() }
      let (first, second) = (probes.first, probes.second)
      // Both insert at once, each its own 500 items, saving as they go.
      first.send("insert a 500")
      second.send("insert b 500")
      try await first.expect("inserted 500")
      try await second.expect("inserted 500")
      try await first.run("save", expecting: "saved")
      try await second.run("save", expecting: "saved")
      try await first.run("items 1000", expecting: "items 1000")
      try await second.run("items 1000", expecting: "items 1000")
      let row = try #require(try await TestDatabase.row(key))
      let stored = try JSONDecoder().decode(StoredItems.self, from: Data(row.json.utf8))
      #expect(stored.items.count == 1_000)
    }

    @Test func aProcessKilledMidWriteLeavesAReadableRow() async throws {
      _ = try TestDatabase.configuration()
      let key = TestDatabase.uniqueKey()
      for _ in 0..<3 {
        let writer = try ProbeProcess(key: key, policy: "merge")
        try await writer.run("ready", expecting: "ready")
        try await writer.run("hammer", expecting: "hammering")
        writer.kill()
        let row = try #require(try await TestDatabase.row(key))
        let stored = try JSONDecoder().decode(StoredItems.self, from: Data(row.json.utf8))
        #expect(stored.counter >= 1)
        #expect(stored.padding.count == 50_000)
      }
      // And another instance loads it.
      let reader = try ProbeProcess(key: key, policy: "merge")
      defer { reader.finish() }
      try await reader.run("ready", expecting: "ready")
    }

    struct StoredItems: Decodable {
      var counter: Int
      var items: Set<String>
      var padding: String
    }
  }
}
