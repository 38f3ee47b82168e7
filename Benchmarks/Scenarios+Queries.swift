import SharedState

/// A store that keeps `cached` queries (held, fetched) for a whole scenario, to which each call of
/// ``newKeys(_:)`` adds new keys and then removes them again: every repetition finds the cache at its size, and none
/// pays for tearing down the one before (a hundred thousand queries made and freed per repetition left the memory
/// allocator's lists long, and the rows as noisy as the allocator's state, not the new keys).
actor QueryCache {
  private let registry = SharedRegistry()
  private let options: QueryOptions
  private let fetches: Bool
  private var held: [Shared<OperationState<Int>>] = []
  private var added = 0

  /// With `fetches` false the queries' automatic fetching is off: a new key's holder alone. With `retries`, each
  /// fetch may retry (none does: every fetch succeeds); with `followsNetwork`, the store follows an online status
  /// that says online, so each fetch's network mode asks before it starts and nothing waits.
  init(cached: Int, fetches: Bool = true, retries: Int = 0, followsNetwork: Bool = false) async {
    self.fetches = fetches
    let options = QueryOptions(
      staleTime: .seconds(3_600), gcTime: .seconds(3_600), enabled: fetches,
      operation: .retry(retries == 0 ? .none : .constant(retries: retries, delay: .seconds(1))))
    self.options = options
    if followsNetwork { registry.queries.onlineStatus = ManualOnlineStatus() }
    held = await SharedRegistry.$current.withValue(registry) {
      let held = (0..<cached).map { id in
        Shared(wrappedValue: OperationState<Int>(), .query(["cached", id], options: options) { 1 })
      }
      if fetches { await awaitValues(of: held) }
      return held
    }
  }

  /// The first holders of `count` new query keys (the fetch each starts is constant and settles at once):
  /// nanoseconds per new key. Afterwards (not timed) each holder waits for its value and the keys are removed; the
  /// last steps of the last fetches (after their values were written) may still be ending as the next call starts.
  func newKeys(_ count: Int) async -> Double {
    let keys = (0..<count).map { QueryKey(["items", added + $0]) }
    added += count
    let options = self.options
    let fetches = self.fetches
    let registry = self.registry
    return await SharedRegistry.$current.withValue(registry) {
      var holders: [Shared<OperationState<Int>>] = []
      holders.reserveCapacity(count)
      let start = now()
      for key in keys {
        holders.append(Shared(wrappedValue: OperationState<Int>(), .query(key, options: options) { 1 }))
      }
      let elapsed = Double(now() - start) / Double(count)
      if fetches { await awaitValues(of: holders) }
      holders.removeAll()
      registry.queries.remove(.prefix(["items"]))
      return elapsed
    }
  }
}

/// Returns once each of `holders` shows a fetched value.
private func awaitValues(of holders: [Shared<OperationState<Int>>]) async {
  for holder in holders {
    for await state in holder.values where state.status.isSuccess { break }
  }
}

/// What a fetch per new key costs at the least: `count` bare tasks made in a loop in the scope a holder is made in
/// (a registry bound to the task, whose value each task inherits), each awaited only after the loop, as a new key's
/// fetch runs while the next holder is made: nanoseconds per task made.
func tasksMadeInALoop(_ count: Int) async -> Double {
  await SharedRegistry.$current.withValue(SharedRegistry()) {
    var tasks: [Task<Int, Never>] = []
    tasks.reserveCapacity(count)
    let start = now()
    for value in 0..<count { tasks.append(Task { value &+ 1 }) }
    let elapsed = Double(now() - start) / Double(count)
    for task in tasks { blackHole(await task.value) }
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
    await awaitValues(of: holders)
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
    await waitForSleepers(1, on: clock)
    clock.advance(by: .seconds(900))  // One garbage check: every query sleeps.
    await waitForSleepers(1, on: clock)
    let rounds = 200
    let start = now()
    for round in 0..<rounds { blackHole(registry.queries.invalidate(matching: ["group", round % 100])) }
    return Double(now() - start) / Double(rounds)
  }
}

/// Awaiting the value of a query that is cached and fresh (`QueryStore.fetch`), in a registry with `instrument`
/// attached (none by default): nanoseconds per call.
func awaitFreshCachedQuery(_ count: Int, instrument: (any SharedInstrument)? = nil) async -> Double {
  let registry = SharedRegistry()
  registry.instrument = instrument
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

/// The upstream of the server scenarios: a call that suspends and is resumed from elsewhere, as an answer from the
/// network is, standing for the request a cache miss makes.
@inline(never) func upstream(_ id: Int) async -> Int {
  await Task { id &+ 1 }.value
}

/// A server's cache as the load test used it: `QueryStore.fetch` for ids that each come once over a store
/// of 10,000 queries at most (most requests miss and evict the least recently used query), each fetch calling
/// ``upstream(_:)``.
actor QueryMisses {
  private let store: QueryStore
  private let options: QueryOptions
  private var next = 0

  /// With `timeout`, each attempt has that timeout (on the continuous clock, as on a server). `filled`: the store
  /// starts at its capacity, as on a server that has run a while.
  init(timeout: Duration?, filled: Bool = true) async {
    let registry = SharedRegistry()
    store = registry.queries
    store.capacity = 10_000
    let operation = QueryOptions.defaultOperation
    options = QueryOptions(operation: timeout.map { operation.timeout($0) } ?? operation)
    if filled { _ = await misses(10_000) }
  }

  /// `count` requests for ids not cached: nanoseconds per request.
  func misses(_ count: Int) async -> Double {
    let options = self.options
    let store = self.store
    let first = next
    next += count
    var sum = 0
    let start = now()
    for id in first..<(first + count) {
      do {
        sum &+= try await store.fetch(.query(["items", id], options: options) { await upstream(id) })
      } catch {
        fatalError("a query of a constant upstream failed: \(error)")
      }
    }
    let elapsed = Double(now() - start) / Double(count)
    blackHole(sum)
    return elapsed
  }
}

/// The same requests calling ``upstream(_:)`` directly: nanoseconds per request.
func directCalls(_ count: Int) async -> Double {
  var sum = 0
  let start = now()
  for id in 0..<count { sum &+= await upstream(id) }
  let elapsed = Double(now() - start) / Double(count)
  blackHole(sum)
  return elapsed
}
