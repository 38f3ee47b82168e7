import Foundation

/// The fake backends a demo run talks to, reached through a task-local value the way an app injects its clients.
struct DemoEnvironment: Sendable {
  let auth: AuthBackend
  let content: ContentBackend
  let presence: PresenceBackend
  let network: Network
  let console: Console
  let settingsURL: URL

  @TaskLocal static var current = DemoEnvironment(
    options: DemoOptions(), console: Console(echoes: false, usesColor: false))

  init(options: DemoOptions, console: Console) {
    let network = Network(
      latency: .milliseconds(options.latencyMilliseconds), failureRate: options.failureRate,
      random: SeededRandom(seed: options.seed))
    self.network = network
    self.auth = AuthBackend(network: network)
    self.content = ContentBackend(network: network)
    self.presence = PresenceBackend(network: network)
    self.console = console
    self.settingsURL =
      options.settingsPath.map { URL(fileURLWithPath: $0) }
      ?? FileManager.default.temporaryDirectory.appendingPathComponent("reactive-demo/settings.json")
  }
}
