import Foundation
import SharedState

/// Settings kept in a file: the count of runs survives from one run of the demo to the next.
@MainActor
func runSettingsScenario(scenario: String) async -> String {
  let environment = DemoEnvironment.current
  let console = environment.console
  console.heading("Settings: kept in a file between runs")
  @Shared(.fileStorage(environment.settingsURL, clock: environment.clock)) var settings = DemoSettings()
  if let error = $settings.loadError { console.line("settings: \(error); starting over", .failure) }
  console.line(
    "settings: the previous run was \(settings.runs == 0 ? "none" : "number \(settings.runs) (\(settings.lastScenario))")"
  )
  $settings.withLock { settings in
    settings.runs += 1
    settings.lastScenario = scenario
  }
  // No save here: the change is written within its save delay, or by the flush as the demo ends.
  console.line(
    "settings: run \(settings.runs) recorded; written after the save delay, or by the flush as the demo ends")
  return "settings: run \(settings.runs)"
}

/// The demo's end, as an app's: every change still waiting for its save delay is written before the process exits,
/// and what the settings file now holds is read back from the disk.
func saveBeforeExit() async {
  let environment = DemoEnvironment.current
  let console = environment.console
  console.heading("Before exiting: every pending save is written")
  do {
    try await SharedRegistry.current.flush()
  } catch {
    console.line("before exiting: \(error)", .failure)
    return
  }
  let path = environment.settingsURL.path
  guard let data = FileManager.default.contents(atPath: path),
    let saved = try? JSONDecoder().decode(DemoSettings.self, from: data)
  else {
    return console.line("settings: \(path) holds no settings", .failure)
  }
  console.line("settings: saved run \(saved.runs) to \(path)", .success)
}
