import Foundation
import SharedState

/// Runs the demo for a command line and returns its exit code.
enum DemoCommand {
  @MainActor
  static func run(
    _ arguments: [String],
    errors: (String) -> Void = { FileHandle.standardError.write(Data($0.utf8)) },
    console makeConsole: (DemoOptions) -> Console
  ) async -> Int32 {
    let options: DemoOptions
    do {
      options = try DemoOptions(arguments)
    } catch {
      errors("error: \(error)\n\n\(DemoOptions.usage)\n")
      return 64
    }
    if options.showsHelp {
      print(DemoOptions.usage)
      return 0
    }
    let console = makeConsole(options)
    let environment = DemoEnvironment(options: options, console: console)
    // A registry of its own: the demo starts from nothing each time, as an app does at launch.
    return await SharedRegistry.$current.withValue(SharedRegistry()) {
      await DemoEnvironment.$current.withValue(environment) {
        await tour(options)
        return 0
      }
    }
  }

  @MainActor
  static func tour(_ options: DemoOptions) async {
    let console = DemoEnvironment.current.console
    if options.scenario == .watch {
      console.line(await runWatch(duration: options.duration))
      return
    }
    console.line("Reactive demo: screens share state by key; nothing keeps its own loading or error flag.", .heading)
    var summary: [String] = []
    let scenarios: [DemoOptions.Scenario] =
      options.scenario == .all ? [.auth, .topics, .presence, .sync, .queries] : [options.scenario]
    for scenario in scenarios {
      switch scenario {
      case .auth: summary.append(await runAuthScenario())
      case .topics: summary.append(await runTopicsScenario())
      case .presence: summary.append(await runPresenceScenario())
      case .sync: summary.append(await runSyncScenario())
      case .queries: summary.append(await runQueriesScenario())
      case .all, .watch: break
      }
    }
    summary.append(await runSettingsScenario(scenario: options.scenario.rawValue))
    console.heading("Summary")
    for line in summary { console.line("- " + line) }
  }
}
