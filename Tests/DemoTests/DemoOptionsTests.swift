import Foundation
import SharedState
import Testing

@testable import DemoKit

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
    let code = await DemoCommand.run(
      ["--fast"], errors: { message += $0 }, clock: ManualClock(), console: { _ in console })
    #expect(code == 64)
    #expect(message.hasPrefix("error: unknown argument '--fast'"))
    #expect(message.contains("Usage: swift run Demo"))
  }
}
