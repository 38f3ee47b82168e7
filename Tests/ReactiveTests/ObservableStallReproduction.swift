import Foundation
import Observation
import Synchronization
import Testing

@testable import Reactive

/// A minimal reproduction, with nothing but an `@Observable` class, of the window in which an `Observations`
/// consumer with a nonisolated closure misses a change: between the moment its closure reads and the moment
/// Observation installs the tracking of that read, a write is told to nobody. A `ReactiveBox` written in a burst
/// shows the same window; written one value at a time, once every consumer has the previous one, it has none
/// (``ObservationsConsumerTests``), while the `@Observable` class still stalls, since its `willSet` comes before the
/// value is stored.
///
/// These tests are expected to fail, some runs out of ten, which is why they only run on request:
/// `REACTIVE_REPRODUCE_OBSERVATION_STALL=1 swift test --filter ObservableStallReproduction`.
@Suite(
  .serialized,
  .enabled(if: ProcessInfo.processInfo.environment["REACTIVE_REPRODUCE_OBSERVATION_STALL"] != nil)
)
struct ObservableStallReproduction {
  /// An `@Observable` class that is safe to read from any thread: the macro's own registrar and the `access` and
  /// `withMutation` calls it generates, around a value kept under a `Mutex`.
  @Observable final class Model: Sendable {
    @ObservationIgnored let storage = Mutex(0)

    var value: Int {
      get {
        access(keyPath: \.value)
        return storage.withLock { $0 }
      }
      set {
        withMutation(keyPath: \.value) { storage.withLock { $0 = newValue } }
      }
    }
  }

  static let runs = 10

  @Test func observableWrittenOneValueAtATime() async {
    guard #available(macOS 26, iOS 26, tvOS 26, watchOS 26, *) else { return }
    await reproduce(burst: false, makeSubject: Model.subject)
  }

  @Test func observableWrittenInABurst() async {
    guard #available(macOS 26, iOS 26, tvOS 26, watchOS 26, *) else { return }
    await reproduce(burst: true, makeSubject: Model.subject)
  }

  @Test func boxWrittenInABurst() async {
    guard #available(macOS 26, iOS 26, tvOS 26, watchOS 26, *) else { return }
    await reproduce(burst: true) {
      let box = ReactiveBox(0)
      return ({ box.value }, { @MainActor value in box.withLock { $0 = value } })
    }
  }

  @available(macOS 26, iOS 26, tvOS 26, watchOS 26, *)
  func reproduce(
    burst: Bool,
    makeSubject: () -> (read: @Sendable () -> Int, write: @MainActor @Sendable (Int) -> Void)
  ) async {
    var stalledRuns = 0
    for _ in 0..<Self.runs {
      let (read, write) = makeSubject()
      let seen = await runConsumers(
        read: read, write: write, burstOf: burst ? 50 : nil, yieldsBeforeGivingUp: 200_000)
      let latest = burst ? 50 : ObservationsConsumerTests.writes
      if seen.values.contains(where: { $0.last != latest }) { stalledRuns += 1 }
    }
    #expect(stalledRuns == 0, "\(stalledRuns) of \(Self.runs) runs left a consumer short of the latest value")
  }
}

extension ObservableStallReproduction.Model {
  static func subject() -> (read: @Sendable () -> Int, write: @MainActor @Sendable (Int) -> Void) {
    let model = ObservableStallReproduction.Model()
    return ({ model.value }, { @MainActor value in model.value = value })
  }
}
