import Synchronization
import TestSupport
import Testing

@testable import SharedState

/// What the article "Queries on a server" says of awaiting queries with a `staleTime` of zero, as a server without a
/// cache does.
extension QueryStoreValuesTests {
  /// How many callers with a task of their own wait for the fetch under way of the query named `key`.
  private func awaitingCallers(of key: QueryKey, in store: QueryStore) -> Int {
    store.state.withLock { state in
      guard let record = state.root.node(at: key.parts)?.record as? QueryRecord<OperationState<Int>>,
        case .busy(let busy) = record.machine.activity
      else { return 0 }
      return busy.demand.callers
    }
  }

  @Test func withAStaleTimeOfZeroEveryCallFetchesAndConcurrentCallsShareOneFetch() async throws {
    let clock = ManualClock()
    let fetches = Counter()
    let gate = Gate()
    let isHeld = Mutex(false)
    let query: Query<OperationState<Int>> = .query(["users", 1], options: queryStoreOptions(clock, staleTime: .zero)) {
      let number = fetches.increment()
      if isHeld.withLock({ $0 }) { await gate.wait() }
      return number
    }
    let store = SharedRegistry.current.queries
    #expect(try await store.fetch(query) == 1)
    #expect(try await store.fetch(query) == 2)  // Stale as soon as it arrived: fetched again.

    isHeld.withLock { $0 = true }
    let values = try await withThrowingTaskGroup(of: Int.self) { group in
      for _ in 0..<10 {
        group.addTask { try await store.fetch(query) }
      }
      await waitUntil { awaitingCallers(of: ["users", 1], in: store) == 10 }
      gate.open()
      return try await group.reduce(into: [Int]()) { $0.append($1) }
    }
    #expect(values == Array(repeating: 3, count: 10))
    #expect(fetches.count == 3)
  }
}
