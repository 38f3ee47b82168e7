import Foundation
import SharedState
import Testing

@testable import SharedDevtools

@Suite struct PayloadTests {
  func json(_ event: InspectionEvent) throws -> [String: Any] {
    let data = DevtoolsJSON.encode(EventPayload(event))
    return try #require(JSONSerialization.jsonObject(with: data) as? [String: Any])
  }

  func event(_ kind: InspectionEvent.Kind) -> InspectionEvent {
    InspectionEvent(sequence: 9, date: Date(timeIntervalSince1970: 0), key: #"query:["todos"]"#, kind: kind)
  }

  @Test func everyEventHasItsSequenceDateKeyAndName() throws {
    let payload = try json(event(.invalidated))
    #expect(payload["sequence"] as? Int == 9)
    #expect(payload["date"] as? String == "1970-01-01T00:00:00.000Z")
    #expect(payload["key"] as? String == #"query:["todos"]"#)
    #expect(payload["kind"] as? String == "invalidated")
    #expect(payload.count == 4)
  }

  @Test func anEndCarriesItsDurationAndOutcome() throws {
    let success = try json(
      event(
        .fetchEnded(
          duration: .milliseconds(1500), outcome: .success(ValueSummary(text: "1", isJSON: true, isTruncated: false)))))
    #expect(success["duration"] as? Double == 1.5)
    #expect(success["outcome"] as? String == "success")
    let failure = try json(event(.mutationEnded(duration: .zero, outcome: .failure("offline"))))
    #expect(failure["kind"] as? String == "mutationEnded")
    #expect(failure["outcome"] as? String == "failure")
    #expect(failure["error"] as? String == "offline")
    let cancelled = try json(event(.fetchEnded(duration: .seconds(2), outcome: .cancelled)))
    #expect(cancelled["outcome"] as? String == "cancelled")
  }

  @Test func callbacksForcesAndStoreFailuresCarryTheirDetails() throws {
    #expect(try json(event(.mutationCallback(.onSettled)))["callback"] as? String == "onSettled")
    let forced = try json(event(.forced(.forceError(message: "down"))))
    #expect(forced["action"] as? String == "forceError")
    #expect(forced["message"] as? String == "down")
    #expect(try json(event(.forced(.forceLoading)))["message"] == nil)
    #expect(try json(event(.saveFailed(error: "disk full")))["error"] as? String == "disk full")
    #expect(try json(event(.loadFailed(error: "corrupt")))["error"] as? String == "corrupt")
  }

  @Test func everyActionNameIsUnderstood() {
    for name in ActionRequest.actionNames {
      let action = ActionRequest(key: "query:[]", action: name, message: nil).inspectorAction
      #expect(action?.name == name)
    }
    #expect(ActionRequest(key: "query:[]", action: "Invalidate", message: nil).inspectorAction == nil)
    let forced = ActionRequest(key: "query:[]", action: "forceError", message: "x").inspectorAction
    #expect(forced == .forceError(message: "x"))
  }

  func keyJSON(_ key: InspectedKey) throws -> [String: Any] {
    let data = DevtoolsJSON.encode(KeyPayload(key))
    return try #require(JSONSerialization.jsonObject(with: data) as? [String: Any])
  }

  func key(_ kind: InspectedKey.Kind, _ name: String) -> InspectedKey {
    InspectedKey(
      name: name, kind: kind, valueType: "Int", value: ValueSummary(text: "1", isJSON: true, isTruncated: false))
  }

  @Test func aQueryCarriesItsMetaAndItsThreeDates() throws {
    var query = key(.query, #"["todos"]"#)
    query.queryKey = ["todos"]
    var operation = InspectedOperation(OperationTracking())
    operation.status = .success
    operation.dataUpdatedAt = Date(timeIntervalSince1970: 10)
    operation.errorUpdatedAt = Date(timeIntervalSince1970: 5)
    operation.updatedAt = Date(timeIntervalSince1970: 12)
    query.operation = operation
    query.query = InspectedQuery(
      isStale: true, staleAt: nil, isHeld: true, isEnabled: true, collectedAt: nil, isForced: false,
      meta: ["screen": "feed", "toast": "true"])
    let payload = try keyJSON(query)
    let dates = try #require(payload["operation"] as? [String: Any])
    #expect(dates["dataUpdatedAt"] as? String == "1970-01-01T00:00:10.000Z")
    #expect(dates["errorUpdatedAt"] as? String == "1970-01-01T00:00:05.000Z")
    #expect(dates["updatedAt"] as? String == "1970-01-01T00:00:12.000Z")
    #expect((payload["query"] as? [String: Any])?["meta"] as? [String: String] == ["screen": "feed", "toast": "true"])
    #expect(payload["status"] as? String == "success")
    #expect(payload["actions"] as? [String] == ActionRequest.actionNames)
  }

  @Test func datesNeverSetAreAbsentAndAQueryWithoutMetaHasAnEmptyOne() throws {
    var query = key(.query, #"["todos"]"#)
    query.queryKey = ["todos"]
    query.operation = InspectedOperation(OperationTracking())
    query.query = InspectedQuery(
      isStale: true, staleAt: nil, isHeld: false, isEnabled: true, collectedAt: nil, isForced: false)
    let payload = try keyJSON(query)
    let operation = try #require(payload["operation"] as? [String: Any])
    #expect(operation["dataUpdatedAt"] == nil && operation["errorUpdatedAt"] == nil && operation["updatedAt"] == nil)
    #expect((payload["query"] as? [String: Any])?["meta"] as? [String: String] == [:])
  }

  /// The mutations view reads each run's duration from the server: the time from its start to its end, never
  /// negative, and none while it runs.
  @Test func aMutationRunCarriesItsDurationWhenItEndedAndItsMeta() throws {
    var mutation = key(.mutation, "rename")
    let started = Date(timeIntervalSince1970: 100)
    mutation.mutationRuns = [
      InspectedMutationRun(
        id: 1, arguments: ValueSummary(text: #""a""#, isJSON: true, isTruncated: false), status: .success,
        result: ValueSummary(text: "1", isJSON: true, isTruncated: false), startedAt: started,
        endedAt: started.addingTimeInterval(1.25), meta: ["screen": "post"]),
      // The wall clock stepped back while it ran.
      InspectedMutationRun(
        id: 2, arguments: ValueSummary(text: #""b""#, isJSON: true, isTruncated: false), status: .error,
        error: "refused", startedAt: started, endedAt: started.addingTimeInterval(-3)),
      InspectedMutationRun(
        id: 3, arguments: ValueSummary(text: #""c""#, isJSON: true, isTruncated: false), status: .pending,
        startedAt: started),
    ]
    let payload = try keyJSON(mutation)
    let runs = try #require(payload["mutationRuns"] as? [[String: Any]])
    #expect(runs.map { $0["id"] as? Int } == [1, 2, 3])
    #expect(runs[0]["duration"] as? Double == 1.25)
    #expect(runs[0]["meta"] as? [String: String] == ["screen": "post"])
    #expect((runs[0]["result"] as? [String: Any])?["text"] as? String == "1")
    #expect(runs[1]["duration"] as? Double == 0)
    #expect(runs[1]["error"] as? String == "refused")
    #expect(runs[1]["meta"] as? [String: String] == [:])
    #expect(runs[2]["duration"] == nil && runs[2]["endedAt"] == nil && runs[2]["status"] as? String == "pending")
    #expect(runs[2]["startedAt"] as? String == "1970-01-01T00:01:40.000Z")
    // Only a query takes actions; a key that is no mutation has no runs.
    #expect((payload["actions"] as? [String])?.isEmpty == true)
    #expect(try keyJSON(key(.inMemory, "counter"))["mutationRuns"] == nil)
  }
}
