import Foundation
import Synchronization
import TestSupport
import Testing

@testable import SharedState

/// A key whose saves are recorded and can be held at gates, one gate per save in order.
struct GatedKey: SharedKey {
  typealias Value = Int
  let name: String
  let store: Store
  let delay: Duration
  let clock: ManualClock

  final class Store: Sendable {
    let started = Collector<Int>()
    let saved = Collector<Int>()
    let gates = Lock<[Gate]>([])
    let stored = Lock<Int?>(nil)
    let context = Lock<SharedKeyContext<Int>?>(nil)

    func nextGate() -> Gate? { gates.withLock { $0.isEmpty ? nil : $0.removeFirst() } }
  }

  var id: String { name }
  var lifetime: SharedKeyLifetime { .whileHeld }
  var saveSchedule: SharedSaveSchedule { .debounced(delay, clock: clock) }

  func load(context: SharedKeyContext<Int>, continuation: SharedLoadContinuation<Int>) {
    store.context.withLock { $0 = context }
    continuation.resume(returning: store.stored.withLock { $0 })
  }

  func save(_ value: Int, context: SharedKeyContext<Int>) async throws {
    store.started.append(value)
    if let gate = store.nextGate() { await gate.wait() }
    store.stored.withLock { $0 = value }
    store.saved.append(value)
  }
}
