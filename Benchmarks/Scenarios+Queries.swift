import SharedState

/// The first holder of a new query key (the fetch it starts is constant and settles at once), with `cached` other
/// queries already in the store (held, their fetches settled): nanoseconds per new key.
func newQueryKey(_ count: Int, cached: Int = 0) async -> Double {
  let registry = SharedRegistry()
  let keys = (0..<count).map { QueryKey(["items", $0]) }
  let options = QueryOptions(staleTime: .seconds(3_600), gcTime: .seconds(3_600), operation: .retry(.none))
  return await SharedRegistry.$current.withValue(registry) {
    var holders: [Shared<OperationState<Int>>] = []
    holders.reserveCapacity(cached + count)
    for id in 0..<cached {
      holders.append(Shared(wrappedValue: OperationState<Int>(), .query(["cached", id], options: options) { 1 }))
    }
    for holder in holders {
      for await state in holder.values where state.status.isSuccess { break }
    }
    let start = now()
    for key in keys {
      holders.append(Shared(wrappedValue: OperationState<Int>(), .query(key, options: options) { 1 }))
    }
    let elapsed = Double(now() - start) / Double(count)
    blackHole(holders)
    return elapsed
  }
}

/// One fetch of a constant query delivered to 100 holders that each iterate its values: nanoseconds per holder.
func queryFetchTo100Holders() async -> Double {
  let registry = SharedRegistry()
  return await SharedRegistry.$current.withValue(registry) {
    let options = QueryOptions(staleTime: .seconds(3_600), gcTime: .seconds(3_600), operation: .retry(.none))
    let query: Query<OperationState<Int>> = .query(["constant"], options: options) { 42 }
    let start = now()
    await withTaskGroup(of: Void.self) { group in
      for _ in 0..<100 {
        let holder = Shared(wrappedValue: OperationState<Int>(), query)
        group.addTask {
          for await state in holder.values where state.status.isSuccess { break }
        }
      }
    }
    return Double(now() - start) / 100
  }
}

/// Invalidating the 100 keys under one prefix among 10,000 query keys nobody holds: nanoseconds per call (finding and
/// marking them; held queries would also start their refetches).
func invalidate100Of10k() async -> Double {
  let registry = SharedRegistry()
  let options = QueryOptions(staleTime: .seconds(3_600), gcTime: .seconds(3_600), operation: .retry(.none))
  return await SharedRegistry.$current.withValue(registry) {
    var holders: [Shared<OperationState<Int>>] = []
    for group in 0..<100 {
      for item in 0..<100 {
        let key = QueryKey(["group", group, item])
        holders.append(Shared(wrappedValue: OperationState<Int>(), .query(key, options: options) { 1 }))
      }
    }
    for holder in holders {
      for await state in holder.values where state.status.isSuccess { break }
    }
    holders.removeAll()
    let rounds = 200
    let start = now()
    for round in 0..<rounds { blackHole(registry.queries.invalidate(matching: ["group", round % 100])) }
    return Double(now() - start) / Double(rounds)
  }
}

/// Invalidating the 100 keys under one prefix among 10,000 query keys nobody holds, after a garbage check found them
/// unused (they sleep: each keeps its value, not its box): nanoseconds per call.
func invalidate100Of10kSleeping() async -> Double {
  let registry = SharedRegistry()
  let clock = ManualClock()
  let options = QueryOptions(staleTime: .seconds(3_600), gcTime: .seconds(3_600), operation: .retry(.none).clock(clock))
  return await SharedRegistry.$current.withValue(registry) {
    for group in 0..<100 {
      for item in 0..<100 {
        let key = QueryKey(["group", group, item])
        let holder = Shared(wrappedValue: OperationState<Int>(), .query(key, options: options) { 1 })
        for await state in holder.values where state.status.isSuccess { break }
      }
    }
    await clock.waitForSleepers(1)
    clock.advance(by: .seconds(900))  // One garbage check: every query sleeps.
    await clock.waitForSleepers(1)
    let rounds = 200
    let start = now()
    for round in 0..<rounds { blackHole(registry.queries.invalidate(matching: ["group", round % 100])) }
    return Double(now() - start) / Double(rounds)
  }
}

/// Awaiting the value of a query that is cached and fresh (`QueryStore.fetch`): nanoseconds per call.
func awaitFreshCachedQuery(_ count: Int) async -> Double {
  let registry = SharedRegistry()
  let options = QueryOptions(staleTime: .seconds(3_600), gcTime: .seconds(3_600), operation: .retry(.none))
  let query: Query<OperationState<Int>> = .query(["cached"], options: options) { 42 }
  let store = registry.queries
  do {
    _ = try await store.fetch(query)
    var sum = 0
    let start = now()
    for _ in 0..<count { sum &+= try await store.fetch(query) }
    let elapsed = Double(now() - start) / Double(count)
    blackHole(sum)
    return elapsed
  } catch {
    fatalError("a constant query failed: \(error)")
  }
}

/// Awaiting the value of a held query that is cached and fresh (`$value.fetchValue()`): nanoseconds per call.
func awaitFreshHeldQuery(_ count: Int) async -> Double {
  let registry = SharedRegistry()
  let options = QueryOptions(staleTime: .seconds(3_600), gcTime: .seconds(3_600), operation: .retry(.none))
  return await SharedRegistry.$current.withValue(registry) {
    let holder = Shared(wrappedValue: OperationState<Int>(), .query(["held"], options: options) { 42 })
    do {
      _ = try await holder.fetchValue()
      var sum = 0
      let start = now()
      for _ in 0..<count { sum &+= try await holder.fetchValue() ?? 0 }
      let elapsed = Double(now() - start) / Double(count)
      blackHole(sum)
      return elapsed
    } catch {
      fatalError("a constant query failed: \(error)")
    }
  }
}
