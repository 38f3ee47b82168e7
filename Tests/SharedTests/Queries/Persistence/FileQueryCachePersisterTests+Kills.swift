import Foundation
import TestSupport
import Testing

@testable import SharedState

/// A process that persists its query cache to a file and is killed with SIGKILL at a moment no one chooses, again
/// and again, each run starting from what the last one left: every restore is a state some write produced, no
/// acknowledged write is lost, and the appended log goes on after a cut end and through whole writes.
@Suite(.timeLimit(.minutes(20))) struct FileQueryCachePersisterKillTests {
  /// The values the probe's write number `n` leaves: `["n"]` is n, and `["k", j]` the last m <= n with m % 50 == j.
  private static func expectedValues(after n: Int) -> [String: Int] {
    var values = [QueryKey(["n"]).description: n]
    for m in max(0, n - 49)...n { values[QueryKey(["k", m % 50]).description] = m }
    return values
  }

  @Test func killedAtAnyMomentTheFileRestoresTheLastAcknowledgedWriteOrALaterOne() async throws {
    let executable = try #require(exitProbeExecutable(), "the ExitProbe helper is built with the tests")
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let url = folder.file("queries.cache")
    var next = 0
    for round in 0..<24 {
      let process = Process()
      process.executableURL = executable
      process.arguments = ["cache-churn", url.path, String(next)]
      let output = Pipe()
      process.standardOutput = output
      try process.run()
      let ended = Task { await onThreadOfItsOwn { process.waitUntilExit() } }
      // Let it acknowledge a varying number of writes, then kill it wherever it is.
      let target = next + 40 + (round * 97) % 300
      let reader = output.fileHandleForReading
      let acknowledged = await onThreadOfItsOwn { () -> Int? in
        var pending = Data()
        var last: Int?
        while last.map({ $0 < target }) ?? true {
          let more = reader.availableData
          if more.isEmpty { break }
          pending.append(more)
          while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
            last = Int(String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)) ?? last
            pending = Data(pending[(newline + 1)...])
          }
        }
        return last
      }
      kill(process.processIdentifier, SIGKILL)
      await ended.value
      let acknowledgedWrite = try #require(acknowledged, "round \(round): the probe acknowledged no write")
      #expect(acknowledgedWrite >= target)

      let contents = try QueryCacheFormat.decode(Data(contentsOf: url))
      var values: [String: Int] = [:]
      for entry in contents.entries {
        values[entry.key.description] = try JSONDecoder().decode(Int.self, from: entry.value)
      }
      let restored = try #require(values[QueryKey(["n"]).description], "round \(round): no write restored")
      #expect(restored >= acknowledgedWrite, "round \(round): an acknowledged write was lost")
      #expect(values == Self.expectedValues(after: restored), "round \(round): not the state of one write")
      next = restored + 1
    }
    // Thousands of acknowledged writes of about 90 bytes each, yet the file stays within the size at which a log
    // is written whole again: the log was compacted on the way, between kills.
    #expect(next > 4_000)
    let size = try #require(try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int)
    #expect(size <= QueryCacheLog.minimumCompactionBytes + 1_024)
  }
}
