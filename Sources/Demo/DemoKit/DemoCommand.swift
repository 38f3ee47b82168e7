import Foundation
import SharedState

/// The demo's command line: `swift run Demo [scenario] [options]`.
public enum DemoCommand {
  /// Runs the demo for `arguments` (the command line without the program's name), narrating to the terminal, and
  /// returns the exit code: 0, or 64 for arguments it cannot use. The demo's `main.swift` is this one call.
  ///
  /// - Parameter arguments: A scenario and options, as `swift run Demo --help` lists them.
  /// - Returns: The process's exit code.
  @MainActor
  public static func run(_ arguments: [String]) async -> Int32 {
    await run(arguments, clock: ContinuousClock(), executable: Bundle.main.executableURL) { options in
      Console.terminal(noColor: options.noColor)
    }
  }

  /// Runs the demo with the console `makeConsole` makes for the options, waiting on `clock`.
  @MainActor
  static func run(
    _ arguments: [String],
    errors: (String) -> Void = { FileHandle.standardError.write(Data($0.utf8)) },
    clock: any Clock<Duration>,
    executable: URL? = nil,
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
    let environment = DemoEnvironment(options: options, console: console, clock: clock)
    // A registry of its own: the demo starts from nothing each time, as an app does at launch.
    return await SharedRegistry.$current.withValue(SharedRegistry()) {
      await DemoEnvironment.$current.withValue(environment) {
        await tour(options, executable: executable)
        return 0
      }
    }
  }

  @MainActor
  static func tour(_ options: DemoOptions, executable: URL? = nil) async {
    let console = DemoEnvironment.current.console
    if options.scenario == .watch {
      console.line(await runWatch(duration: options.duration))
      return
    }
    if options.scenario == .offline {
      if let phase = options.offlinePhase, let folder = options.offlineFolder {
        await OfflineScenario.runPhase(phase, in: URL(fileURLWithPath: folder))
      } else {
        console.line(await OfflineScenario.run(options, executable: executable))
      }
      return
    }
    console.line("SharedState demo: screens share state by key; nothing keeps its own loading or error flag.", .heading)
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
      case .all, .watch, .offline: break
      }
    }
    summary.append(await runSettingsScenario(scenario: options.scenario.rawValue))
    await saveBeforeExit()
    console.heading("Summary")
    for line in summary { console.line("- " + line) }
  }
}
