import Foundation

/// The fake backends a demo run talks to, reached through a task-local value the way an app injects its clients.
struct DemoEnvironment: Sendable {
  let auth: AuthBackend
  let content: ContentBackend
  let presence: PresenceBackend
  let network: Network
  let console: Console
  let settingsURL: URL
  /// The clock every wait of the demo runs on: the network's latency, retry delays, a query's staleness and the
  /// live view's frames. A terminal run uses `ContinuousClock`; tests move a `ManualClock` themselves.
  let clock: any Clock<Duration>

  @TaskLocal static var current = DemoEnvironment(
    options: DemoOptions(), console: Console(echoes: false, usesColor: false), clock: ContinuousClock())

  init(options: DemoOptions, console: Console, clock: any Clock<Duration>) {
    let network = Network(
      latency: .milliseconds(options.latencyMilliseconds), failureRate: options.failureRate,
      random: SeededRandom(seed: options.seed), clock: clock)
    self.clock = clock
    self.network = network
    self.auth = AuthBackend(network: network)
    self.content = ContentBackend(network: network)
    self.presence = PresenceBackend(network: network)
    self.console = console
    self.settingsURL =
      options.settingsPath.map { URL(fileURLWithPath: $0) }
      ?? FileManager.default.temporaryDirectory.appendingPathComponent("shared-state-demo/settings.json")
  }
}
