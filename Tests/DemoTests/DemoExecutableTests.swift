import Foundation
import TestSupport
import Testing

/// The one run of the real executable: `swift run Demo` as a user starts it, end to end. Every other demo test calls
/// the scenarios in this process.
@Suite struct DemoExecutableTests {
  /// The demo executable, built next to this test bundle.
  static func executable() -> URL? {
    let bundle = URL(fileURLWithPath: Bundle.main.executablePath ?? CommandLine.arguments[0])
    let candidate = bundle.deletingLastPathComponent().appendingPathComponent("Demo")
    return FileManager.default.isExecutableFile(atPath: candidate.path) ? candidate : nil
  }

  @Test func theExecutableRunsTheWholeTourAndExitsWithZero() async throws {
    let executable = try #require(Self.executable(), "the Demo executable is built with the tests")
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("demo-run-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: folder) }
    let process = Process()
    process.executableURL = executable
    process.arguments = [
      "--latency", "0", "--no-color", "--settings", folder.appendingPathComponent("settings.json").path,
    ]
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    // Both block their thread: they run on one of their own, never on a thread of the cooperative pool.
    let data = await onThreadOfItsOwn { output.fileHandleForReading.readDataToEndOfFile() }
    await onThreadOfItsOwn { process.waitUntilExit() }
    let lines = String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
    #expect(process.terminationStatus == 0)
    #expect(lines.contains("== Summary"))
    #expect(lines.filter { $0.hasPrefix("- ") }.count == 6)
    #expect(lines.contains("- settings: run 1"))
    #expect(!lines.contains { $0.contains("\u{1B}[") }, "--no-color prints no escape sequences")
  }

  /// The README quotes what `swift run Demo queries --latency 0` prints on a first run: every line, in order.
  @Test func theReadmeQuotesEveryLineTheQueriesScenarioPrints() async throws {
    let executable = try #require(Self.executable(), "the Demo executable is built with the tests")
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("demo-readme-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: folder) }
    let process = Process()
    process.executableURL = executable
    process.arguments = [
      "queries", "--latency", "0", "--no-color", "--settings", folder.appendingPathComponent("settings.json").path,
    ]
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let data = await onThreadOfItsOwn { output.fileHandleForReading.readDataToEndOfFile() }
    await onThreadOfItsOwn { process.waitUntilExit() }
    #expect(process.terminationStatus == 0)
    // The README shows the default folder; this run used its own.
    let printed = String(decoding: data, as: UTF8.self)
      .replacingOccurrences(of: folder.path, with: "/tmp/shared-state-demo")
      .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    let quoted = try Self.readmeQuote(after: "A first run of `swift run Demo queries --latency 0` prints")
    #expect(quoted.count > 20)
    #expect(printed.dropLast(printed.last == "" ? 1 : 0).map { $0 } == quoted)
  }

  /// The lines of the README's first code block after the line that contains `marker`.
  static func readmeQuote(after marker: String) throws -> [String] {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent()
    let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
    let lines = readme.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    let start = try #require(lines.firstIndex { $0.contains(marker) }, "the README introduces the quote")
    let open = try #require(lines[start...].firstIndex { $0.hasPrefix("```") })
    let close = try #require(lines[(open + 1)...].firstIndex { $0.hasPrefix("```") })
    return Array(lines[(open + 1)..<close])
  }

  /// `swift run Demo offline`: each half of the scenario in a process of its own, the second started after the
  /// first ended; the edits reach the server once each, and the news pages loaded in the first show in the second.
  @Test func theOfflineScenarioRunsEachHalfInAProcessOfItsOwn() async throws {
    let executable = try #require(Self.executable(), "the Demo executable is built with the tests")
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("demo-offline-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: folder) }
    let process = Process()
    process.executableURL = executable
    process.arguments = ["offline", "--latency", "0", "--no-color", "--offline-folder", folder.path]
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let data = await onThreadOfItsOwn { output.fileHandleForReading.readDataToEndOfFile() }
    await onThreadOfItsOwn { process.waitUntilExit() }
    let lines = String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
    #expect(process.terminationStatus == 0)
    let processes = lines.filter { $0.hasPrefix("process ") }
    #expect(processes.count == 2)
    #expect(processes.first?.hasSuffix("(edit):") == true)
    #expect(processes.last?.hasSuffix("(resume):") == true)
    #expect(processes.first != processes.last)
    #expect(lines.contains { $0.contains("(from the cache, with 2 queued edits shown again)") })
    // The pages scrolled in the first process show in the second, restored from the cache file.
    #expect(
      lines.contains {
        $0.hasSuffix(
          "started again, offline: the news feed shows 2 pages [\"News 1\", \"News 2\", \"News 3\", \"News 4\"] "
            + "(from the cache)")
      })
    #expect(
      lines.last
        == "offline: 2 edits made offline reached the server after a restart, 2 applied from 2 requests (0 sent again)")
  }
}
