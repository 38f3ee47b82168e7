import Foundation
import SharedDevtools
import SharedState
import Testing

@Suite struct SnapshotEndpointTests {
  @Test func listsEveryKeyWithItsKindAndStatus() async throws {
    let registry = SharedRegistry()
    let counter = holdValue("counter", in: registry, initial: 41)
    counter.withLock { $0 += 1 }
    let todos = holdQuery(["todos"], in: registry) { ["Write tests"] }
    _ = try await todos.fetchValue()

    let answer = try await withServer(registry: registry) { running in
      try await request(running, "/api/snapshot")
    }

    #expect(answer.status == 200)
    #expect(answer.contentType?.hasPrefix("application/json") == true)
    let keys = try keysByID(answer.json)
    let counterKey = try #require(keys["inMemory:counter"])
    #expect(counterKey["kind"] as? String == "inMemory")
    #expect(counterKey["description"] as? String == "counter")
    #expect((counterKey["value"] as? [String: Any])?["text"] as? String == "42")
    #expect(counterKey["status"] == nil)
    #expect((counterKey["actions"] as? [String])?.isEmpty == true)
    let todosKey = try #require(keys[#"query:["todos"]"#])
    #expect(todosKey["kind"] as? String == "query")
    #expect(todosKey["status"] as? String == "success")
    #expect((todosKey["operation"] as? [String: Any])?["isFetching"] as? Bool == false)
    #expect((todosKey["query"] as? [String: Any])?["isHeld"] as? Bool == true)
    #expect((todosKey["actions"] as? [String])?.contains("invalidate") == true)
    _ = (counter, todos)
  }

  @Test func takenAtIsAnISO8601Date() async throws {
    let registry = SharedRegistry()
    let answer = try await withServer(registry: registry) { running in
      try await request(running, "/api/snapshot")
    }
    let takenAt = try #require(try answer.json["takenAt"] as? String)
    #expect(try Date(takenAt, strategy: .iso8601) <= Date())
    #expect(try answer.json["keys"] as? [Any] != nil)
  }

  @Test func aMutationListsItsRunsWithArgumentsStatusErrorAndDuration() async throws {
    struct Refused: Error, CustomStringConvertible {
      var description: String { "refused" }
    }
    let registry = SharedRegistry()
    let rename = SharedRegistry.$current.withValue(registry) {
      Shared(wrappedValue: MutationState<String, Int>(), .mutation(["rename"]))
    }
    _ = try await rename.mutate("title") { title in title.count }.value
    _ = try? await rename.mutate("other") { _ in throw Refused() }.value
    let answer = try await withServer(registry: registry) { running in
      try await request(running, "/api/snapshot")
    }
    let key = try #require(try keysByID(answer.json)["mutation:rename"])
    let runs = try #require(key["mutationRuns"] as? [[String: Any]])
    #expect(runs.map { ($0["arguments"] as? [String: Any])?["text"] as? String } == [#""title""#, #""other""#])
    #expect(runs.map { $0["status"] as? String } == ["success", "error"])
    #expect(runs[1]["error"] as? String == "refused")
    #expect((runs[0]["result"] as? [String: Any])?["text"] as? String == "5")
    #expect(runs.allSatisfy { ($0["duration"] as? Double).map { $0 >= 0 } == true })
    #expect(runs.allSatisfy { $0["startedAt"] as? String != nil && $0["endedAt"] as? String != nil })
    withExtendedLifetime(rename) {}
  }

  @Test func aQueryAndAMutationRunShowTheirMetaAndAQueryItsDates() async throws {
    struct Down: Error {}
    let registry = SharedRegistry()
    let todos = holdQuery(["todos"], in: registry, options: QueryOptions(meta: ["screen": "todo list"])) { [1] }
    _ = try await todos.fetchValue()
    let failing = holdQuery(
      ["failing"], in: registry, options: QueryOptions(operation: QueryOptions.defaultOperation.retry(.none))
    ) { () async throws -> Int in throw Down() }
    _ = try? await failing.fetchValue()
    let like = SharedRegistry.$current.withValue(registry) {
      Shared(wrappedValue: MutationState<Int, Int>(), .mutation(["like"]))
    }
    _ = try await like.mutate(7, .meta(["source": "like button"])) { id in id }.value
    let answer = try await withServer(registry: registry) { running in
      try await request(running, "/api/snapshot")
    }
    let keys = try keysByID(answer.json)
    let todosKey = try #require(keys[#"query:["todos"]"#])
    #expect((todosKey["query"] as? [String: Any])?["meta"] as? [String: String] == ["screen": "todo list"])
    let todosDates = try #require(todosKey["operation"] as? [String: Any])
    #expect(todosDates["dataUpdatedAt"] as? String != nil && todosDates["updatedAt"] as? String != nil)
    #expect(todosDates["errorUpdatedAt"] == nil)
    let failingDates = try #require(keys[#"query:["failing"]"#]?["operation"] as? [String: Any])
    #expect(failingDates["errorUpdatedAt"] as? String != nil)
    #expect(failingDates["dataUpdatedAt"] == nil)
    let runs = try #require(keys["mutation:like"]?["mutationRuns"] as? [[String: Any]])
    #expect(runs.map { $0["meta"] as? [String: String] } == [["source": "like button"]])
    withExtendedLifetime((todos, failing, like)) {}
  }
}
