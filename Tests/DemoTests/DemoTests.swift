import Foundation
import Testing

@testable import Demo

/// Runs the demo with no latency and a fixed seed, recording what it prints.
@MainActor
private func runDemo(_ arguments: [String]) async -> (code: Int32, lines: [String]) {
  let settings = FileManager.default.temporaryDirectory
    .appendingPathComponent("demo-tests-\(UUID().uuidString)/settings.json")
  defer { try? FileManager.default.removeItem(at: settings.deletingLastPathComponent()) }
  let console = Console(echoes: false, usesColor: false)
  let code = await DemoCommand.run(
    arguments + ["--latency", "0", "--seed", "7", "--settings", settings.path]
  ) { _ in console }
  return (code, console.lines)
}

@MainActor
@Suite struct DemoScenarioTests {
  @Test func auth() async {
    let (code, lines) = await runDemo(["auth"])
    #expect(code == 0)
    #expect(lines.contains("profile badge: while the login screen signs in, status = pending"))
    #expect(lines.contains { $0.hasPrefix("profile badge: Guest") })
    #expect(lines.contains("profile badge: status = error"))
    #expect(lines.contains("profile badge: ada, authenticated: true"))
    #expect(lines.contains("- auth: signed in as guest and with a code, then out; both screens agreed at every step"))
    #expect(lines.contains("profile badge: signed out; the login screen sees it too"))
  }

  @Test func topics() async {
    let (code, lines) = await runDemo(["topics"])
    #expect(code == 0)
    #expect(lines.contains("feed: before the server answers it already shows 👍, confirmed: false"))
    #expect(lines.contains("feed: latest event 🚀 (confirmed: true), publish status success"))
    #expect(lines.contains("- topics: 3 confirmed, 0 rolled back"))
  }

  @Test func topicsRollBackWhenTheNetworkDrops() async {
    let (code, lines) = await runDemo(["topics", "--failure-rate", "1"])
    #expect(code == 0)
    #expect(lines.contains("- topics: 0 confirmed, 3 rolled back"))
    #expect(lines.contains { $0.contains("rolls back to nothing") })
  }

  @Test func presence() async {
    let (code, lines) = await runDemo(["presence"])
    #expect(code == 0)
    #expect(lines.contains("room: you are typing; the header shows isTyping = true"))
    #expect(lines.contains { $0.hasPrefix("- presence: ") && $0.contains("in the room") })
  }

  @Test func sync() async {
    let (code, lines) = await runDemo(["sync"])
    #expect(code == 0)
    #expect(lines.contains("list: 2 todos added; the counter sees 2 pending, isSyncing = true"))
    #expect(lines.contains("counter: 2 todos, 1 done, pending 0"))
    #expect(lines.contains("- sync: 2 todos synced, 0 pending"))
  }

  @Test func queries() async {
    let (code, lines) = await runDemo(["queries"])
    #expect(code == 0)
    #expect(lines.contains("detail and sidebar: \"Shared state, simply\" (1 fetch for both)"))
    #expect(lines.contains("after the rename: the sidebar refetched \"Renamed: shared state\""))
    #expect(lines.contains("detail: Retrying… (attempt 2 of 3)"))
    #expect(lines.contains("detail: success after 3 attempts"))
    #expect(
      lines.contains("- queries: 1 fetch shared by both screens, refetched after a rename, recovered after 3 attempts"))
  }

  @Test func everythingWithTheSettingsOfThePreviousRun() async {
    let settings = FileManager.default.temporaryDirectory
      .appendingPathComponent("demo-tests-\(UUID().uuidString)/settings.json")
    defer { try? FileManager.default.removeItem(at: settings.deletingLastPathComponent()) }
    var outputs: [[String]] = []
    for _ in 0..<2 {
      let console = Console(echoes: false, usesColor: false)
      let code = await DemoCommand.run(["--latency", "0", "--settings", settings.path]) { _ in console }
      #expect(code == 0)
      outputs.append(console.lines)
    }
    #expect(outputs[0].contains("settings: the previous run was none"))
    #expect(outputs[1].contains("settings: the previous run was number 1 (all)"))
    #expect(outputs[1].contains("== Summary"))
    #expect(outputs[1].filter { $0.hasPrefix("- ") }.count == 6)
  }

  @Test func watchRedrawsForItsDuration() async {
    let (code, lines) = await runDemo(["watch", "--duration", "0.3"])
    #expect(code == 0)
    #expect(lines.last?.hasPrefix("watch: ") == true)
  }
}

/// Every scenario at failure rates 0, 0.5 and 1 (a fixed seed, no latency): each run ends, and every summary line
/// says only what the narration shows happened.
@MainActor
@Suite(.timeLimit(.minutes(1))) struct DemoFailureRateTests {
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
        "- queries: the shared fetch failed, the rename failed, gave up after 3 attempts",
        "- settings: run 1",
      ])
    #expect(!lines.contains { $0.hasPrefix("login screen: welcome") || $0.hasPrefix("list: synced") })
  }
}

@Suite struct DemoOptionsTests {
  @Test func parsesEveryOption() throws {
    let options = try DemoOptions([
      "queries", "--latency", "5", "--failure-rate", "0.25", "--seed", "9", "--no-color", "--duration", "2",
    ])
    #expect(options.scenario == .queries)
    #expect(options.latencyMilliseconds == 5)
    #expect(options.failureRate == 0.25)
    #expect(options.seed == 9)
    #expect(options.noColor)
    #expect(options.duration == 2)
  }

  @Test func badArgumentsAreNamed() {
    #expect(throws: DemoOptions.Problem(description: "unknown argument '--fast'")) { try DemoOptions(["--fast"]) }
    #expect(throws: DemoOptions.Problem(description: "unknown argument 'everything'")) {
      try DemoOptions(["everything"])
    }
    #expect(throws: DemoOptions.Problem(description: "--failure-rate needs a number from 0 to 1, not '2'")) {
      try DemoOptions(["--failure-rate", "2"])
    }
    #expect(throws: DemoOptions.Problem(description: "--latency needs a value")) { try DemoOptions(["--latency"]) }
    #expect(throws: DemoOptions.Problem(description: "give one scenario, not several")) {
      try DemoOptions(["auth", "sync"])
    }
  }

  @MainActor @Test func aBadArgumentExitsWithUsage() async {
    var message = ""
    let console = Console(echoes: false, usesColor: false)
    let code = await DemoCommand.run(["--fast"], errors: { message += $0 }, console: { _ in console })
    #expect(code == 64)
    #expect(message.hasPrefix("error: unknown argument '--fast'"))
    #expect(message.contains("Usage: swift run Demo"))
  }
}
