import Foundation
import SharedDevtools
import SharedState
import Testing

@Suite struct EventStreamTests {
  @Test func firstFrameIsASnapshotOfTheKeys() async throws {
    let registry = SharedRegistry()
    let counter = holdValue("counter", in: registry, initial: 1)
    let first = try await withServer(registry: registry) { running in
      var stream = try await EventStreamReader(running)
      #expect(stream.status == 200)
      return try #require(try await stream.next())
    }
    #expect(first.name == "snapshot")
    #expect(try keysByID(first.json)["inMemory:counter"] != nil)
    _ = counter
  }

  @Test func deliversAnEventPublishedAfterConnecting() async throws {
    let registry = SharedRegistry()
    let (match, before) = try await withServer(registry: registry) { running in
      var stream = try await EventStreamReader(running)
      // The inspector is attached before the first snapshot is sent.
      _ = try await stream.next { $0.name == "snapshot" }
      #expect(registry.inspector.isAttached)
      _ = try await registry.queries.fetch(.query(["late"]) { 7 })
      return try await stream.next { frame in
        guard frame.name == "inspection" else { return false }
        let event = try frame.json
        return event["key"] as? String == #"query:["late"]"# && event["kind"] as? String == "fetchEnded"
      }
    }
    let event = try #require(try match?.json)
    #expect(event["outcome"] as? String == "success")
    #expect((event["duration"] as? Double).map { $0 >= 0 } == true)
    #expect((event["sequence"] as? Int).map { $0 > 0 } == true)
    let started = try before.filter { $0.name == "inspection" }.map { try $0.json["kind"] as? String }
    #expect(started.contains("fetchStarted"))
  }

  @Test func aChangedKeySendsAFreshSnapshot() async throws {
    let registry = SharedRegistry()
    let counter = holdValue("counter", in: registry, initial: 1)
    let changed = try await withServer(registry: registry) { running in
      var stream = try await EventStreamReader(running)
      _ = try await stream.next { $0.name == "snapshot" }
      counter.withLock { $0 = 2 }
      // No event is published for a written value: the next snapshot shows it.
      return try await stream.next { frame in
        guard frame.name == "snapshot" else { return false }
        let key = try keysByID(frame.json)["inMemory:counter"]
        return (key?["value"] as? [String: Any])?["text"] as? String == "2"
      }.match
    }
    #expect(changed != nil)
  }

  @Test func stoppingTheServerEndsOpenStreams() async throws {
    let registry = SharedRegistry()
    let running = try await DevtoolsServer(registry: registry).start()
    var stream = try await EventStreamReader(running)
    _ = try await stream.next { $0.name == "snapshot" }
    #expect(registry.inspector.isAttached)
    await running.stop()
    // The stream ends (cleanly, or with its connection closed) instead of keeping the server from stopping.
    var framesAfterStop = 0
    do {
      while try await stream.next() != nil { framesAfterStop += 1 }
    } catch {}
    #expect(framesAfterStop < 10)
  }
}
