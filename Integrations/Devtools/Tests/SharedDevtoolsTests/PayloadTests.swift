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
}
