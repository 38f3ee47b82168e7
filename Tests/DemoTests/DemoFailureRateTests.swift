import Foundation
import Testing

@testable import DemoKit

/// Every scenario at failure rates 0, 0.5 and 1 (a fixed seed, no latency): each run ends, and every summary line
/// says only what the narration shows happened.
@MainActor
@Suite struct DemoFailureRateTests {
  nonisolated static let scenarios = ["auth", "topics", "presence", "sync", "queries"]

  @Test(arguments: scenarios, ["0", "0.5", "1"])
  func theSummaryTellsWhatHappened(scenario: String, failureRate: String) async throws {
    let (code, lines) = await runDemo([scenario, "--failure-rate", failureRate])
    #expect(code == 0)
    let summary = try #require(lines.first { $0.hasPrefix("- \(scenario): ") }, "no summary line for \(scenario)")
    switch scenario {
    case "auth":
      let asGuest = lines.contains { $0.hasPrefix("login screen: welcome, ") }
      let withCode = lines.contains("login screen: signed in as ada@example.com")
      let signedOut = lines.contains("profile badge: signed out; the login screen sees it too")
      let expected = authSummary(
        signedInAsGuest: asGuest, codeSent: lines.contains { $0.hasPrefix("mail: your code is ") },
        signedInWithCode: withCode, signedOut: signedOut)
      #expect(summary == "- auth: \(expected); both screens agreed at every step")
      #expect(summary.contains("signed in as guest") == asGuest)
      #expect((summary.contains("signed in with a code") || summary.contains("and with a code")) == withCode)
      #expect((summary.contains("signed out") || summary.contains("then out")) == signedOut)
    case "topics":
      let rolledBack = lines.filter { $0.contains("the feed rolls back to") }.count
      #expect(summary == "- topics: \(3 - rolledBack) confirmed, \(rolledBack) rolled back")
    case "presence":
      let joined = lines.filter { $0.hasPrefix("room: ") && $0.contains(" joined (") }.count
      let left = lines.filter { $0.hasPrefix("room: ") && $0.contains(" left (") }.count
      #expect(summary.hasPrefix("- presence: \(joined) joined, \(left) left, \(1 + joined - left) in the room"))
    case "sync":
      let failed = lines.filter { $0.hasPrefix("list: sync failed: ") }.count
      #expect(summary.contains("todos synced") == (failed < 2))
      #expect(summary.hasSuffix(failed == 0 ? "pending" : "\(failed) of 2 syncs failed"))
      if failed == 2 { #expect(summary.hasPrefix("- sync: nothing synced, 2 pending")) }
      if failed == 0 { #expect(summary == "- sync: 2 todos synced, 0 pending") }
    case "queries":
      let loaded = !lines.contains { $0.hasPrefix("detail and sidebar: could not load the post") }
      let refetched = lines.contains("after the rename: the sidebar refetched \"Renamed: shared state\"")
      let recovered = lines.contains("detail: success after 3 attempts")
      #expect(summary.contains("the shared fetch failed") == !loaded)
      #expect(summary.contains("refetched after a rename") == refetched)
      #expect(summary.contains("recovered after 3 attempts") == recovered)
      #expect(summary.contains("gave up") == !recovered)
      // Awaiting a post always says what it got; a fresh post (loaded and not invalidated since, or refetched)
      // needs no fetch.
      let renameFailed = lines.contains { $0.hasPrefix("rename: ") }
      let fresh = refetched || (loaded && renameFailed)
      let awaited = try #require(lines.first { $0.hasPrefix("awaiting post 1: ") })
      #expect(awaited.hasSuffix("at once, from the cache (no fetch)") == fresh)
      #expect(lines.contains { $0.hasPrefix("3 callers await post 2 at once: ") })
      // The feed: each post shown before the server answered is either confirmed by a refetch or rolled back.
      let feedLoaded = !lines.contains { $0.hasPrefix("feed: could not load the first page") }
      let confirmed = lines.filter { $0.hasPrefix("feed: the server has it") }.count
      let rolledBack = lines.filter { $0.hasPrefix("publish: ") && $0.contains("the feed rolls back") }.count
      if feedLoaded {
        #expect(lines.filter { $0.hasPrefix("feed: before the server answers") }.count == 2)
        #expect(confirmed + rolledBack == 2)
        #expect(
          summary.hasSuffix(
            "\(confirmed == 1 ? "1 post" : "\(confirmed) posts") published to the feed, \(rolledBack) rolled back"))
      } else {
        #expect(summary.hasSuffix("the feed did not load"))
      }
    default:
      Issue.record("no check for \(scenario)")
    }
  }

  /// When every request fails, no line claims a success.
  @Test func nothingClaimsSuccessWhenEveryRequestFails() async {
    let (code, lines) = await runDemo(["--failure-rate", "1"])
    #expect(code == 0)
    let summary = lines.filter { $0.hasPrefix("- ") }
    #expect(
      summary == [
        "- auth: nothing succeeded; failed: the guest sign-in, sending the code, the sign-out; both screens agreed at "
          + "every step",
        "- topics: 0 confirmed, 3 rolled back",
        "- presence: 0 joined, 0 left, 1 in the room",
        "- sync: nothing synced, 2 pending, 2 of 2 syncs failed",
        "- queries: the shared fetch failed, the rename failed, gave up after 3 attempts; the feed did not load",
        "- settings: run 1",
      ])
    #expect(!lines.contains { $0.hasPrefix("login screen: welcome") || $0.hasPrefix("list: synced") })
  }
}
