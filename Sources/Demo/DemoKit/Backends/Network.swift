/// What every fake backend shares: a latency, a failure rate and seeded randomness.
struct Network: Sendable {
  let latency: Duration
  let failureRate: Double
  let random: SeededRandom
  /// The clock the latency is waited on.
  let clock: any Clock<Duration>

  /// Waits the latency, then fails at the failure rate.
  func roundTrip(_ what: String) async throws {
    if latency > .zero { try await clock.sleep(for: latency) }
    if failureRate > 0 && random.nextUnit() < failureRate { throw DemoError.network(what) }
  }
}

/// Errors the fake backends report.
enum DemoError: Error, Equatable, CustomStringConvertible {
  case network(String)
  case invalidCode
  case notSignedIn
  case refused(String)

  var description: String {
    switch self {
    case .network(let what): return "the network dropped \(what)"
    case .invalidCode: return "that code is not valid"
    case .notSignedIn: return "sign in first"
    case .refused(let what): return "the server refused \(what)"
    }
  }
}
