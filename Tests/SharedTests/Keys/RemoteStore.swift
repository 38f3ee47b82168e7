import Observation
import Synchronization
import TestSupport
import Testing

@testable import SharedState

/// A store on another machine: each load waits until the test resumes, fails or drops it.
final class RemoteStore<Value: Sendable>: Sendable {
  private let loads = Lock<[SharedLoadContinuation<Value>]>([])
  let loadCalls = Counter()
  let saves = Collector<Value>()
  let contexts = Collector<SharedKeyContext<Value>>()

  init() {}

  func loadCalled(_ continuation: SharedLoadContinuation<Value>, context: SharedKeyContext<Value>) {
    contexts.append(context)
    loadCalls.increment()
    loads.withLock { $0.append(continuation) }
  }

  /// How many loads wait for the test.
  var waitingLoads: Int { loads.withLock { $0.count } }

  /// The oldest load that waits for the test, once there is one.
  func nextLoad() async -> SharedLoadContinuation<Value>? {
    await waitUntil { waitingLoads > 0 }
    return loads.withLock { $0.isEmpty ? nil : $0.removeFirst() }
  }

  /// Lets go of the oldest waiting load without resuming it.
  func dropNextLoad() async {
    _ = await nextLoad()
  }
}

/// A key that saves, whose store is on another machine.
struct RemoteKey<Value: Sendable>: SharedKey {
  let name: String
  let store: RemoteStore<Value>
  var saveSchedule: SharedSaveSchedule = .immediate

  var id: String { name }

  func load(context: SharedKeyContext<Value>, continuation: SharedLoadContinuation<Value>) {
    store.loadCalled(continuation, context: context)
  }

  func save(_ value: Value, context: SharedKeyContext<Value>) async throws {
    store.saves.append(value)
  }
}

/// A key that only reads, whose store is on another machine.
struct RemoteReaderKey<Value: Sendable>: SharedReaderKey {
  let name: String
  let store: RemoteStore<Value>

  var id: String { name }

  func load(context: SharedKeyContext<Value>, continuation: SharedLoadContinuation<Value>) {
    store.loadCalled(continuation, context: context)
  }
}
