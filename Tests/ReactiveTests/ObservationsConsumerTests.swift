import Observation
import Synchronization
import TestSupport
import Testing

@testable import Reactive

/// Many consumers of `Observations` at once, with a writer on the main actor: each must end on the latest value.
@Suite struct ObservationsConsumerTests {
  /// How many consumers iterate at once, and how many times the scenario runs.
  static let consumers = 100
  static let runs = 10
  static let writes = 3

  /// 100 consumers iterate `Observations { box.value }` with a nonisolated closure; the main actor writes 1, 2, 3,
  /// each once every consumer has seen the one before. Every consumer must see every value and end on 3.
  @Test func everyConsumerEndsOnTheLatestValue() async {
    guard #available(macOS 26, iOS 26, tvOS 26, watchOS 26, *) else { return }
    for run in 0..<Self.runs {
      let box = ReactiveBox(0)
      let seen = await runConsumers(
        read: { box.value },
        write: { @MainActor value in box.withLock { $0 = value } }
      )
      let stalled = seen.filter { $0.value.last != Self.writes }
      #expect(stalled.isEmpty, "run \(run): consumers \(stalled) did not end on the latest value")
      // Each write comes after every consumer has the value before it, so none is missed or seen twice.
      let unexpected = seen.filter { $0.value != Array(0...Self.writes) }
      #expect(unexpected.isEmpty, "run \(run): consumers \(unexpected) missed or repeated a value")
      if !stalled.isEmpty || !unexpected.isEmpty { break }
    }
  }
}

/// Starts ``ObservationsConsumerTests/consumers`` consumers of `Observations { read() }` (a nonisolated closure),
/// then writes 1 through ``ObservationsConsumerTests/writes`` on the main actor, each once every consumer has seen
/// the value before it; or, given `burstOf`, once every consumer has the first value, writes 1 through `burstOf`
/// at once.
///
/// A consumer that stalls is waited for until ``deadlockGuard`` passes (no outcome depends on how busy the machine
/// is), or, given `yieldsBeforeGivingUp`, for that many yields: the stall reproduction, which expects stalls, runs
/// that way on request.
///
/// - Returns: The values each consumer saw, by consumer; a consumer that stalled did not reach the last one.
@available(macOS 26, iOS 26, tvOS 26, watchOS 26, *)
func runConsumers(
  read: @escaping @Sendable () -> Int,
  write: @escaping @MainActor @Sendable (Int) -> Void,
  burstOf burst: Int? = nil,
  yieldsBeforeGivingUp: Int? = nil
) async -> [Int: [Int]] {
  func waited(_ condition: () -> Bool) async -> Bool {
    guard let yieldsBeforeGivingUp else { return await waitedUntil(condition) }
    for _ in 0..<yieldsBeforeGivingUp where !condition() { await Task.yield() }
    return condition()
  }
  let count = ObservationsConsumerTests.consumers
  let seen = SeenValues(consumers: count)
  let last = burst ?? ObservationsConsumerTests.writes
  return await withTaskGroup(of: Void.self) { group in
    for consumer in 0..<count {
      group.addTask {
        for await value in Observations({ read() }) {
          seen.append(value, for: consumer)
          if value == last { break }
        }
      }
    }
    if burst != nil, await waited({ seen.all.allSatisfy { $0.last == 0 } }) {
      await MainActor.run { for value in 1...last { write(value) } }
      _ = await waited { seen.all.allSatisfy { $0.last == last } }
    }
    for value in 0...last where burst == nil {
      if value > 0 { await write(value) }
      guard await waited({ seen.all.allSatisfy { $0.last == value } }) else { break }
    }
    group.cancelAll()
    return Dictionary(uniqueKeysWithValues: seen.all.enumerated().map { ($0.offset, $0.element) })
  }
}

/// What each consumer has seen, from any thread.
final class SeenValues: Sendable {
  private let values: Lock<[[Int]]>

  init(consumers: Int) {
    values = Lock([[Int]](repeating: [], count: consumers))
  }

  func append(_ value: Int, for consumer: Int) {
    values.withLock { $0[consumer].append(value) }
  }

  var all: [[Int]] { values.withLock { $0 } }
}
