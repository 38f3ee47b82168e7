import Foundation
import Synchronization
import TestSupport
import Testing

@testable import SharedState

/// Options for tests: a manual clock, a one-minute gcTime, no retries.
func queryStoreOptions(_ clock: ManualClock, staleTime: Duration = .seconds(600)) -> QueryOptions {
  QueryOptions(staleTime: staleTime, gcTime: .seconds(60), operation: .retry(.none).clock(clock))
}

/// A backend that counts its fetches and can be held at a gate: its values are "fetch 1", "fetch 2", ...
final class GatedFetcher: Sendable {
  let fetches = Counter()
  private let gate = Lock<Gate?>(nil)

  /// Holds the fetches that start from now on until the returned gate opens, so that a test reads a fetch under
  /// way before it ends.
  func hold() -> Gate {
    let held = Gate()
    gate.withLock { $0 = held }
    return held
  }

  func fetch() async -> String {
    let number = fetches.increment()
    if let gate = gate.withLock({ $0 }) { await gate.wait() }
    return "fetch \(number)"
  }
}
