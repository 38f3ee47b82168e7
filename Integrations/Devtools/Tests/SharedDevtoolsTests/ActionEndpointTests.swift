import Foundation
import NIOHTTP1
import SharedDevtools
import SharedState
import Testing

@Suite struct ActionEndpointTests {
  @Test func invalidateRefetchesTheHeldQuery() async throws {
    let registry = SharedRegistry()
    let counter = FetchCounter()
    let todos = holdQuery(["todos"], in: registry, options: QueryOptions(staleTime: .seconds(3600))) {
      counter.fetch()
    }
    var fetches = counter.fetches.makeAsyncIterator()
    #expect(await fetches.next() == 1)
    _ = try await todos.fetchValue()

    let answer = try await withServer(registry: registry) { running in
      try await act(running, key: #"query:["todos"]"#, action: "invalidate")
    }

    #expect(answer.status == 200)
    #expect(try answer.json["performed"] as? Bool == true)
    #expect(await fetches.next() == 2)
    _ = todos
  }

  @Test func forceErrorShowsInTheSnapshotAndRestorePutsItBack() async throws {
    let registry = SharedRegistry()
    let todos = holdQuery(["todos"], in: registry, options: QueryOptions(staleTime: .seconds(3600))) { 3 }
    _ = try await todos.fetchValue()
    let id = #"query:["todos"]"#

    let (forced, whileForced, restored, afterRestore) = try await withServer(registry: registry) { running in
      let forced = try await act(running, key: id, action: "forceError", message: "The server is down")
      let whileForced = try keysByID(await request(running, "/api/snapshot").json)[id]
      let restored = try await act(running, key: id, action: "restore")
      let afterRestore = try keysByID(await request(running, "/api/snapshot").json)[id]
      return (forced, whileForced, restored, afterRestore)
    }

    #expect(forced.status == 200)
    #expect(whileForced?["status"] as? String == "error")
    let operation = whileForced?["operation"] as? [String: Any]
    #expect((operation?["error"] as? String)?.contains("The server is down") == true)
    #expect((whileForced?["query"] as? [String: Any])?["isForced"] as? Bool == true)
    #expect(restored.status == 200)
    #expect(afterRestore?["status"] as? String == "success")
    #expect((afterRestore?["query"] as? [String: Any])?["isForced"] as? Bool == false)
    #expect(todos.wrappedValue.value == 3)
  }

  @Test func forceLoadingShowsTheQueryPending() async throws {
    let registry = SharedRegistry()
    let todos = holdQuery(["todos"], in: registry, options: QueryOptions(staleTime: .seconds(3600))) { 3 }
    _ = try await todos.fetchValue()
    let id = #"query:["todos"]"#

    let key = try await withServer(registry: registry) { running in
      #expect(try await act(running, key: id, action: "forceLoading").status == 200)
      return try keysByID(await request(running, "/api/snapshot").json)[id]
    }

    #expect(key?["status"] as? String == "pending")
    #expect((key?["operation"] as? [String: Any])?["isFetching"] as? Bool == true)
  }

  @Test func anUnknownKeyIsA404() async throws {
    let answer = try await withServer(registry: SharedRegistry()) { running in
      try await act(running, key: #"query:["nothing"]"#, action: "invalidate")
    }
    #expect(answer.status == 404)
    #expect(try answer.json["error"] as? String == "unknownKey")
    #expect(try (answer.json["message"] as? String)?.contains(#"query:["nothing"]"#) == true)
  }

  @Test func anUnknownActionIsA400ThatListsTheActions() async throws {
    let registry = SharedRegistry()
    let todos = holdQuery(["todos"], in: registry) { 1 }
    let answer = try await withServer(registry: registry) { running in
      try await act(running, key: #"query:["todos"]"#, action: "explode")
    }
    #expect(answer.status == 400)
    #expect(try answer.json["error"] as? String == "unknownAction")
    #expect(try (answer.json["message"] as? String)?.contains("forceError") == true)
    _ = todos
  }

  @Test func aKeyThatIsNotAQueryTakesNoAction() async throws {
    let registry = SharedRegistry()
    let counter = holdValue("counter", in: registry, initial: 0)
    let answer = try await withServer(registry: registry) { running in
      try await act(running, key: "inMemory:counter", action: "invalidate")
    }
    #expect(answer.status == 400)
    #expect(try answer.json["error"] as? String == "notAQuery")
    _ = counter
  }

  @Test func restoreWithoutAForceIsAConflict() async throws {
    let registry = SharedRegistry()
    let todos = holdQuery(["todos"], in: registry) { 1 }
    _ = try await todos.fetchValue()
    let answer = try await withServer(registry: registry) { running in
      try await act(running, key: #"query:["todos"]"#, action: "restore")
    }
    #expect(answer.status == 409)
    #expect(try answer.json["error"] as? String == "nothingToRestore")
  }

  @Test func anActionIsAJSONBody() async throws {
    let (plain, malformed) = try await withServer(registry: SharedRegistry()) { running in
      let plain = try await request(
        running, "/api/actions", method: .POST, headers: [("Content-Type", "text/plain")],
        body: #"{"key": "query:[\"todos\"]", "action": "invalidate"}"#)
      let malformed = try await request(
        running, "/api/actions", method: .POST, headers: [("Content-Type", "application/json")], body: "{")
      return (plain, malformed)
    }
    #expect(plain.status == 400)
    #expect(try plain.json["error"] as? String == "badRequest")
    #expect(malformed.status == 400)
    #expect(try malformed.json["error"] as? String == "badRequest")
  }

  @Test func anActionPublishesItsEvent() async throws {
    let registry = SharedRegistry()
    let todos = holdQuery(["todos"], in: registry, options: QueryOptions(staleTime: .seconds(3600))) { 1 }
    _ = try await todos.fetchValue()
    let forced = try await withServer(registry: registry) { running in
      var stream = try await EventStreamReader(running)
      _ = try await stream.next { $0.name == "snapshot" }
      _ = try await act(running, key: #"query:["todos"]"#, action: "forceError", message: "Offline")
      return try await stream.next { frame in
        try frame.name == "inspection" && frame.json["kind"] as? String == "forced"
      }.match
    }
    let event = try #require(try forced?.json)
    #expect(event["action"] as? String == "forceError")
    #expect(event["message"] as? String == "Offline")
    #expect(event["key"] as? String == #"query:["todos"]"#)
  }
}
