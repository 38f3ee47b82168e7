import Foundation
import NIOCore
import SharedState
import Testing

@testable import SharedDevtools

/// The event streams' bounds: the bytes a page that does not read costs, the number of streams, and one snapshot
/// encoded for all of them.
@Suite struct EventStreamHubTests {
  /// A page that never reads while a large value keeps changing: the server keeps at most
  /// `DevtoolsServer.maximumBufferedBytesPerStream` waiting for it (the README's "Memory" names this test).
  @Test func aPageThatNeverReadsHoldsAtMostTheBound() async throws {
    let registry = SharedRegistry()
    // About 300 KB of snapshot: 64 values of 4 000 characters each.
    let values = (0..<64).map { index in
      holdValue("large-\(index)", in: registry, initial: String(repeating: "x", count: 4_000))
    }
    var limits = StreamLimits()
    limits.timing.tick = .milliseconds(2)
    limits.timing.snapshotInterval = .milliseconds(2)
    let (highest, buffered, drops, sent) = try await withServer(registry: registry, limits: limits) { running in
      let client = try await StalledClient(port: running.port)
      await waitUntil("the stalled stream is open") { running.hub.openStreams == 1 }
      // Changes until the stream fell behind three times: the connection's buffers are full, and the server has
      // dropped its backlog for the latest snapshot three times.
      var change = 0
      while running.hub.drops < 3 {
        change += 1
        let sent = running.pumpCounters.sentSnapshots
        values[change % values.count].withLock { $0 = String(repeating: "y", count: 4_000) + String(change) }
        await waitUntil("the change was sent") { running.pumpCounters.sentSnapshots > sent }
        if change > 10_000 { break }  // A guard only: the drops come long before.
      }
      let measured = (
        running.hub.highestBufferedBytes, running.hub.bufferedBytes, running.hub.drops,
        running.pumpCounters.sentSnapshots
      )
      await client.close()
      return measured
    }
    #expect(drops >= 3)
    #expect(sent > 10)
    #expect(highest <= DevtoolsServer.maximumBufferedBytesPerStream)
    #expect(buffered <= DevtoolsServer.maximumBufferedBytesPerStream)
    withExtendedLifetime(values) {}
  }

  /// A page that never reads while values keep changing falls behind again and again: after
  /// `maximumDropsWithoutReading` drops in a row its stream is closed, and its place goes to the next page (the
  /// README's "Memory" names this test).
  @Test func aPageThatNeverReadsLosesItsStreamAndItsPlaceGoesToTheNext() async throws {
    let registry = SharedRegistry()
    // About 300 KB of snapshot: 64 values of 4 000 characters each.
    let values = (0..<64).map { index in
      holdValue("large-\(index)", in: registry, initial: String(repeating: "x", count: 4_000))
    }
    var limits = StreamLimits()
    limits.maximumStreams = 1
    limits.maximumBytesPerStream = 64 * 1024
    limits.maximumDropsWithoutReading = 3
    limits.timing.tick = .milliseconds(2)
    limits.timing.snapshotInterval = .milliseconds(2)
    let (closed, refusedWhileOpen, next) = try await withServer(registry: registry, limits: limits) { running in
      let client = try await StalledClient(port: running.port)
      await waitUntil("the stalled stream is open") { running.hub.openStreams == 1 }
      let refusedWhileOpen = try await request(running, "/api/events").status
      var change = 0
      while running.hub.openStreams == 1 {
        change += 1
        let sent = running.pumpCounters.sentSnapshots
        values[change % values.count].withLock { $0 = String(repeating: "y", count: 4_000) + String(change) }
        await waitUntil("the change was sent, or the stream closed") {
          running.pumpCounters.sentSnapshots > sent || running.hub.openStreams == 0
        }
        if change > 10_000 { break }  // A guard only: the stream closes long before.
      }
      let closed = running.hub.streamsClosedForStalling
      var reader = try await EventStreamReader(running)
      let next = (reader.status, try await reader.next()?.name)
      await client.close()
      return (closed, refusedWhileOpen, next)
    }
    #expect(refusedWhileOpen == 503)
    #expect(closed == 1)
    #expect(next.0 == 200 && next.1 == "snapshot")
    withExtendedLifetime(values) {}
  }

  @Test func pastTheMaximumStreamsAStreamIsRefusedWithAReason() async throws {
    var limits = StreamLimits()
    limits.maximumStreams = 2
    let (refused, afterOneLeft) = try await withServer(registry: SharedRegistry(), limits: limits) { running in
      var first = try await EventStreamReader(running)
      var second = try await EventStreamReader(running)
      _ = try await first.next()
      _ = try await second.next()
      let refused = try await request(running, "/api/events")
      return (refused, running.hub.openStreams)
    }
    #expect(refused.status == 503)
    #expect(try refused.json["error"] as? String == "tooManyStreams")
    #expect(afterOneLeft == 2)
  }

  @Test func oneSnapshotIsEncodedForEveryStream() async throws {
    let registry = SharedRegistry()
    let counter = holdValue("counter", in: registry, initial: 1)
    let (running, seen) = try await withServer(registry: registry) { running in
      var readers: [EventStreamReader] = []
      for _ in 0..<3 { readers.append(try await EventStreamReader(running)) }
      for index in readers.indices { _ = try await readers[index].next { $0.name == "snapshot" } }
      counter.withLock { $0 = 2 }
      var seen = 0
      for index in readers.indices {
        let changed = try await readers[index].next { frame in
          guard frame.name == "snapshot" else { return false }
          let key = try keysByID(frame.json)["inMemory:counter"]
          return (key?["value"] as? [String: Any])?["text"] as? String == "2"
        }.match
        if changed != nil { seen += 1 }
      }
      return (running, seen)
    }
    #expect(seen == 3)
    // One encoding per check of the registry, not one per stream (read once the server stopped).
    #expect(running.pumpCounters.encodedSnapshots == running.pumpCounters.checks)
    #expect(running.pumpCounters.checks > 0)
  }
}
