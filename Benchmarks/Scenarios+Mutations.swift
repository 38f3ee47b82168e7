import SharedState

/// A mutation whose start step changes `queries` cached queries optimistically, run and awaited: nanoseconds per
/// mutation. Each change is an increment kept when the mutation succeeds.
func optimisticMutation(_ count: Int, queries: Int) async -> Double {
  let registry = SharedRegistry()
  return await SharedRegistry.$current.withValue(registry) {
    let store = registry.queries
    let options = QueryOptions(staleTime: .seconds(3_600), gcTime: .seconds(3_600))
    var held: [Shared<OperationState<Int>>] = []
    for index in 0..<queries {
      let query: Query<OperationState<Int>> = .query(["posts", index], options: options) { index }
      store.setFetchedValue(0, for: query)
      held.append(Shared(wrappedValue: OperationState<Int>(), query))  // Held, as by a screen.
    }
    let increment = OptimisticUpdate<OperationState<Int>>(
      apply: { $0.value = ($0.value ?? 0) + 1 }, rollback: { $0.value = ($0.value ?? 1) - 1 })
    let change = OptimisticMutation { (_: Int, cache: OptimisticCache) -> Int in
      for index in 0..<queries { cache.update(["posts", index], as: OperationState<Int>.self, increment) }
      return queries
    }
    let publish = Shared(value: MutationState<Int, Int>(historyLimit: 1))
    let start = now()
    for value in 0..<count {
      blackHole(try? await publish.mutate(value, optimistic: change) { $0 }.value)
    }
    let elapsed = Double(now() - start) / Double(count)
    precondition(held.allSatisfy { $0.wrappedValue.value == count }, "every change is kept")
    return elapsed
  }
}

/// A mutation run and awaited, with no optimistic change: nanoseconds per mutation. With `followsNetwork`, its store
/// follows an online status that says online, so its network mode asks before the run starts and nothing waits.
func mutationRun(_ count: Int, followsNetwork: Bool = false) async -> Double {
  let registry = SharedRegistry()
  if followsNetwork { registry.queries.onlineStatus = ManualOnlineStatus() }
  return await SharedRegistry.$current.withValue(registry) {
    let publish = Shared(value: MutationState<Int, Int>(historyLimit: 1))
    let start = now()
    for value in 0..<count {
      blackHole(try? await publish.mutate(value) { $0 }.value)
    }
    let elapsed = Double(now() - start) / Double(count)
    precondition(publish.wrappedValue.value == count - 1, "every mutation ran")
    return elapsed
  }
}
