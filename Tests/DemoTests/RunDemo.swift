import Foundation
import Testing

@testable import Demo

/// Runs the demo with no latency and a fixed seed, recording what it prints.
@MainActor
func runDemo(_ arguments: [String]) async -> (code: Int32, lines: [String]) {
  let settings = FileManager.default.temporaryDirectory
    .appendingPathComponent("demo-tests-\(UUID().uuidString)/settings.json")
  defer { try? FileManager.default.removeItem(at: settings.deletingLastPathComponent()) }
  let console = Console(echoes: false, usesColor: false)
  let code = await DemoCommand.run(
    arguments + ["--latency", "0", "--seed", "7", "--settings", settings.path]
  ) { _ in console }
  return (code, console.lines)
}
