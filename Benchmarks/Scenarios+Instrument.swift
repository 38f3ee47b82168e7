import SharedState
import Synchronization

/// An instrument that counts what it hears and measures nothing more: what attaching one costs the store itself,
/// apart from what a metrics or tracing backend costs.
final class CountingInstrument: SharedInstrument {
  private let begun = Atomic<Int>(0)
  private let events = Atomic<Int>(0)

  func begin(_ work: InstrumentedWork) -> any WorkMeasurement {
    begun.add(1, ordering: .relaxed)
    return UnmeasuredWork()
  }

  func record(_ event: InstrumentedEvent) {
    events.add(1, ordering: .relaxed)
  }
}

/// Awaits `count` fetches of new query keys, each by `store.fetch`, in a fresh registry with `instrument` attached:
/// nanoseconds per key, the record, the fetch and the answer.
func fetchNewQueryKeys(_ count: Int, instrument: (any SharedInstrument)?) async -> Double {
  let registry = SharedRegistry()
  registry.instrument = instrument
  let options = QueryOptions(staleTime: .seconds(3_600), gcTime: .seconds(3_600), operation: .retry(.none))
  let store = registry.queries
  do {
    var sum = 0
    let start = now()
    for id in 0..<count {
      let query: Query<OperationState<Int>> = .query(["items", id], options: options) { id }
      sum &+= try await store.fetch(query)
    }
    let elapsed = Double(now() - start) / Double(count)
    blackHole(sum)
    return elapsed
  } catch {
    fatalError("a constant query failed: \(error)")
  }
}
