import Foundation
import SharedDevtools
import SharedState
import Testing

@Suite struct PageTests {
  @Test func thePageHasTheElementsOfItsContract() async throws {
    let page = try await withServer(registry: SharedRegistry()) { running in
      try await request(running, "/")
    }
    #expect(page.status == 200)
    #expect(page.contentType?.hasPrefix("text/html") == true)
    for id in [
      "connection", "filter-prefix", "filter-status", "key-list", "detail", "detail-value", "detail-history",
      "timeline",
    ] {
      #expect(page.body.contains(#"id="\#(id)""#), "#\(id)")
    }
    #expect(page.body.contains(#"id="connection" data-state="connecting""#))
    for status in ["", "idle", "pending", "success", "error"] {
      #expect(page.body.contains(#"<option value="\#(status)">"#), "status \(status)")
    }
    for action in ["refetch", "invalidate", "reset", "remove", "forceLoading", "forceError", "restore"] {
      #expect(page.body.contains(#"<button type="button" data-action="\#(action)">"#), "\(action)")
    }
    // What the script sets on rows and timeline items.
    for attribute in ["dataset.keyId", "dataset.kind", "dataset.status", "dataset.fetching", "dataset.event"] {
      #expect(page.body.contains(attribute), "\(attribute)")
    }
  }

  @Test func thePageLoadsNothingFromElsewhere() async throws {
    let page = try await withServer(registry: SharedRegistry()) { running in
      try await request(running, "/")
    }
    for external in ["src=", "href=", "http://", "https://", "@import"] {
      #expect(!page.body.contains(external), "\(external)")
    }
  }
}
