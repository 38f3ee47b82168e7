import SharedState
import Synchronization

/// One tick of a refetch interval over `held` held queries, each fetch returning at once: nanoseconds per held
/// query, from the clock's tick until every refetch has ended.
func intervalTick(held: Int, ticks: Int) async -> Double {
  let registry = SharedRegistry()
  return await SharedRegistry.$current.withValue(registry) {
    let clock = ManualClock()
    let store = registry.queries
    let fetches = AtomicHolder()
    let options = QueryOptions(
      staleTime: .seconds(3_600), gcTime: .seconds(3_600), refetchInterval: .seconds(1),
      operation: QueryOptions.defaultOperation.clock(clock))
    var holders: [Shared<OperationState<Int>>] = []
    holders.reserveCapacity(held)
    for index in 0..<held {
      let query: Query<OperationState<Int>> = .query(["ticks", index], options: options) {
        fetches.value.add(1, ordering: .relaxed)
        return index
      }
      holders.append(Shared(wrappedValue: OperationState<Int>(), query))  // Held, as by a screen.
    }
    func settled(after expected: Int) async {
      await waitUntil(
        "\(expected) fetches, saw \(fetches.value.load(ordering: .relaxed)) with "
          + "\(store.activity.wrappedValue.fetchingQueries) still fetching"
      ) {
        fetches.value.load(ordering: .relaxed) >= expected && store.activity.wrappedValue.fetchingQueries == 0
      }
    }
    await settled(after: held)
    var total: UInt64 = 0
    for tick in 1...ticks {
      await waitForSleepers(2, on: clock)  // The garbage sweeper and the interval's timer.
      let start = now()
      clock.advance(by: .seconds(1))
      await settled(after: held * (tick + 1))
      total += now() - start
    }
    precondition(holders.allSatisfy { $0.wrappedValue.value != nil }, "every query fetched")
    return Double(total) / Double(held * ticks)
  }
}

/// `count` tasks started in a loop, then each awaited: nanoseconds per task, start to last result.
func tasksStartedThenAwaited(_ count: Int) async -> Double {
  var tasks: [Task<Int, Never>] = []
  tasks.reserveCapacity(count)
  let start = now()
  for value in 0..<count { tasks.append(Task { value &+ 1 }) }
  for task in tasks { blackHole(await task.value) }
  return Double(now() - start) / Double(count)
}
