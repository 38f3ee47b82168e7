import Foundation
import SharedState
import Testing

@testable import DemoKit

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
    #expect(
      lines.contains(
        "while it refetches: the sidebar still shows \"Shared state, simply\" (status success, isFetching = true)"))
    #expect(lines.contains("after the rename: the sidebar refetched \"Renamed: shared state\""))
    #expect(lines.contains("awaiting post 1: \"Renamed: shared state\" at once, from the cache (no fetch)"))
    #expect(
      lines.contains("3 callers await post 2 at once: \"Queries without the boilerplate\" (1 fetch for the three)"))
    #expect(lines.contains("detail: Retrying… (attempt 2 of 3)"))
    #expect(lines.contains("detail: success after 3 attempts"))
    #expect(
      lines.contains(
        "feed: before the server answers, \"Shared state in a feed\" shows at the top: [Shared state in a feed, "
          + "Feed post 5, Feed post 4, Feed post 3], more below"))
    #expect(
      lines.contains(
        "feed: the server has it; after the refetch, [Shared state in a feed, Feed post 5, Feed post 4], more below"))
    #expect(
      lines.contains(
        "publish: the server refused a post without a title; the feed rolls back to 3 posts on its first page "
          + "(3 before)"))
    #expect(
      lines.contains(
        "- queries: 1 fetch shared by both screens, refetched after a rename, recovered after 3 attempts; "
          + "1 post published to the feed, 1 rolled back"))
  }

  /// The offline scenario's two halves, here each in a registry of its own in this process: the edits made
  /// offline show at once and wait, show again from the cache and the queue after the "restart" (and so do the
  /// news feed's pages), and reach the server once each.
  @Test func offlineEditsSurviveARestartAndReachTheServerOnceEach() async {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("demo-offline-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: folder) }
    let (code, lines) = await runDemo(["offline", "--offline-folder", folder.path])
    #expect(code == 0)
    #expect(lines.contains { $0.contains("2 edits wait for the network") })
    #expect(
      lines.contains {
        $0.hasPrefix(
          "started again, offline: the feed shows [\"Water the plants\", \"Buy stamps\", \"Call the plumber\"]")
          && $0.contains("(from the cache, with 2 queued edits shown again)")
      })
    // The two pages of news scrolled online show after the restart, from the persisted cache.
    #expect(
      lines.contains(
        "online: the news feed shows 2 pages [\"News 1\", \"News 2\", \"News 3\", \"News 4\"] from the server"))
    #expect(
      lines.contains(
        "started again, offline: the news feed shows 2 pages [\"News 1\", \"News 2\", \"News 3\", \"News 4\"] "
          + "(from the cache)"))
    #expect(
      lines.last
        == "offline: 2 edits made offline reached the server after a restart, 2 applied from 2 requests (0 sent again)")
    let server = try? JSONDecoder().decode(
      NotesBackend.Contents.self, from: Data(contentsOf: folder.appendingPathComponent("server.json")))
    #expect(server?.notes == ["Water the plants", "Buy stamps", "Call the plumber"])
    #expect(server?.requests.count == 2)
  }

  @Test func everythingWithTheSettingsOfThePreviousRun() async {
    let settings = FileManager.default.temporaryDirectory
      .appendingPathComponent("demo-tests-\(UUID().uuidString)/settings.json")
    defer { try? FileManager.default.removeItem(at: settings.deletingLastPathComponent()) }
    var outputs: [[String]] = []
    for _ in 0..<2 {
      let console = Console(echoes: false, usesColor: false)
      let code = await DemoCommand.run(["--latency", "0", "--settings", settings.path], clock: ManualClock()) {
        _ in console
      }
      #expect(code == 0)
      outputs.append(console.lines)
    }
    #expect(outputs[0].contains("settings: the previous run was none"))
    // The clock never moves, so only the flush at the end can have written the file.
    #expect(outputs[0].contains("settings: saved run 1 to \(settings.path)"))
    #expect(outputs[1].contains("settings: saved run 2 to \(settings.path)"))
    #expect(outputs[1].contains("settings: the previous run was number 1 (all)"))
    #expect(outputs[1].contains("== Summary"))
    #expect(outputs[1].filter { $0.hasPrefix("- ") }.count == 6)
  }

  /// The live view draws a frame per 100 ms of its clock: three for 0.3 s, however long the machine takes.
  @Test func watchDrawsAFrameForEachTenthOfASecondOfItsClock() async throws {
    let clock = ManualClock()
    let console = Console(echoes: false, usesColor: false)
    let run = Task { @MainActor in
      await DemoCommand.run(["watch", "--duration", "0.3", "--latency", "0"], clock: clock) { _ in console }
    }
    for _ in 0..<3 {
      // The frame loop and the three background writers (counter, room, job) all wait for the clock.
      await clock.waitForSleepers(4)
      clock.advance(by: .milliseconds(100))
    }
    #expect(await run.value == 0)
    let last = try #require(console.lines.last)
    #expect(last.hasPrefix("watch: 3 frames, counter at "))
    // The counter's writer adds one at the start and one for each 100 ms; the last may land after the final read.
    let counter = try #require(Int(last.split(separator: " ").last ?? ""))
    #expect((3...4).contains(counter))
  }
}
