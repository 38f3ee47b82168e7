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
  do {
    try await $settings.save()
    console.line("settings: saved run \(settings.runs) to \(environment.settingsURL.path)", .success)
  } catch {
    console.line("settings: could not save: \(error)", .failure)
  }
  return "settings: run \(settings.runs)"
}
