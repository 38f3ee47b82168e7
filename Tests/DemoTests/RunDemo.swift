import Foundation
import SharedState
import Testing

@testable import DemoKit

/// Runs the demo in this process with no latency and a fixed seed, on a clock that never moves, recording what it
/// prints.
@MainActor
func runDemo(_ arguments: [String]) async -> (code: Int32, lines: [String]) {
  let settings = FileManager.default.temporaryDirectory
    .appendingPathComponent("demo-tests-\(UUID().uuidString)/settings.json")
  defer { try? FileManager.default.removeItem(at: settings.deletingLastPathComponent()) }
  let console = Console(echoes: false, usesColor: false)
  let code = await DemoCommand.run(
    arguments + ["--latency", "0", "--seed", "7", "--settings", settings.path], clock: ManualClock()
  ) { _ in console }
  return (code, console.lines)
}
