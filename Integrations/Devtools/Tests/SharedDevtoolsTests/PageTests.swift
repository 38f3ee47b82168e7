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
      "connection", "status-counts", "filter-key", "filter-status", "sort", "key-list", "detail", "detail-value",
      "detail-history", "mutations", "timeline",
    ] {
      #expect(page.body.contains(#"id="\#(id)""#), "#\(id)")
    }
    #expect(page.body.contains(#"id="connection" data-state="connecting""#))
    for status in ["", "idle", "pending", "success", "error", "fetching"] {
      #expect(page.body.contains(#"<option value="\#(status)">"#), "status \(status)")
    }
    #expect(page.body.contains(#"role="listbox" aria-label="Keys" tabindex="0""#))
    #expect(page.body.contains("disconnected since"))
    for action in ["refetch", "invalidate", "reset", "remove", "forceLoading", "forceError", "restore"] {
      #expect(page.body.contains(#"<button type="button" data-action="\#(action)">"#), "\(action)")
    }
    // What the script sets on rows and timeline items.
    for attribute in [
      "dataset.keyId", "dataset.kind", "dataset.status", "dataset.fetching", "dataset.event", "dataset.since",
      "dataset.countStatus", "aria-selected", "copy-path", "copy-value", "mutation-run",
    ] {
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
