import Foundation
import Synchronization
import TestSupport
import Testing

@testable import SharedState

/// A store's bounds: its capacity (least recently used, unused queries first), a `gcTime` of zero, and one garbage
/// sweeper per clock instead of a task per query; each query's own `gcTime` in `+GCTime`.
@Suite(.freshRegistry) struct QueryStoreBoundsTests {
  private func query(
    _ key: QueryKey,
    clock: ManualClock,
    gcTime: Duration = .seconds(60),
    staleTime: Duration = .seconds(600),
    fetches: Counter = Counter()
  ) -> Query<OperationState<String>> {
    let options = QueryOptions(staleTime: staleTime, gcTime: gcTime, operation: .retry(.none).clock(clock))
    return .query(key, options: options) {
      let number = fetches.increment()
      return number == 1 ? "\(key)" : "\(key) \(number)"
    }
  }

  /// Fetches `query` for a holder that then goes, and lets the next garbage check put it to sleep: the store keeps
  /// its value, and its box is freed.
  private func fetchAndLetSleep(_ query: Query<OperationState<String>>, clock: ManualClock) async {
    let registry = SharedRegistry.current
    do {
      let holder = Shared(wrappedValue: OperationState<String>(), query)
      await waitForSuccess(holder)
    }
    // A reference let go a moment after a check (an iteration's end, on another thread) waits for the next check;
    // three checks are less than a gcTime, so the query is kept.
    for _ in 0..<3 where registry.count > 0 {
      await clock.waitForSleepers(1)
      clock.advance(by: .seconds(15))
      await clock.waitForSleepers(1)
    }
    #expect(registry.count == 0)
    #expect(registry.queries.count == 1)
  }

  private func waitForSuccess(_ shared: Shared<OperationState<String>>) async {
    for await state in shared.values where state.status.isSuccess { break }
  }

  @Test func aStoreOverItsCapacityRemovesTheLeastRecentlyUsedUnusedQuery() async throws {
    let clock = ManualClock()
    let store = SharedRegistry.current.queries
    store.capacity = 2
    _ = try await store.fetch(query(["a"], clock: clock))
    _ = try await store.fetch(query(["b"], clock: clock))
    _ = try await store.fetch(query(["a"], clock: clock))  // A use: now ["b"] is the least recently used.
    _ = try await store.fetch(query(["c"], clock: clock))
    #expect(store.count == 2)
    #expect(store.contains(["a"]))
    #expect(!store.contains(["b"]))
    #expect(store.contains(["c"]))
  }

  @Test func aHeldQueryIsNeverEvictedAndAnUnheldOneGoesFirst() async throws {
    let clock = ManualClock()
    let store = SharedRegistry.current.queries
    store.capacity = 1
    let held = Shared(wrappedValue: OperationState<String>(), query(["held"], clock: clock))
    await waitForSuccess(held)
    _ = try await store.fetch(query(["b"], clock: clock))
    // Over the capacity: ["held"] is held, and ["b"] was in use (awaited) when it was made.
    #expect(store.count == 2)
    _ = try await store.fetch(query(["c"], clock: clock))
    // ["held"] is the least recently used, but held: ["b"], unused, goes instead.
    #expect(store.contains(["held"]))
    #expect(!store.contains(["b"]))
    #expect(store.contains(["c"]))
    #expect(held.wrappedValue.value == "[\"held\"]")
  }

  @Test func aStoreWhoseQueriesAreAllHeldComesBackToItsCapacityAsTheyAreReleased() async {
    let clock = ManualClock()
    let store = SharedRegistry.current.queries
    store.capacity = 1
    do {
      let first = Shared(wrappedValue: OperationState<String>(), query(["first"], clock: clock))
      let second = Shared(wrappedValue: OperationState<String>(), query(["second"], clock: clock))
      await waitForSuccess(first)
      await waitForSuccess(second)
      #expect(store.count == 2)  // Both held: over the capacity while they are.
    }
    // The next garbage check (a quarter of gcTime) removes the least recently used one, now unheld.
    await clock.waitForSleepers(1)
    clock.advance(by: .seconds(15))
    await waitUntil { store.count == 1 }
    #expect(!store.contains(["first"]))
    #expect(store.contains(["second"]))
  }

  @Test func loweringTheCapacityRemovesTheQueriesOverItAtOnce() async throws {
    let clock = ManualClock()
    let registry = SharedRegistry.current
    let store = registry.queries
    #expect(store.capacity == nil)
    for key in ["a", "b", "c"] { _ = try await store.fetch(query([key], clock: clock)) }
    #expect(store.count == 3)
    store.capacity = 1
    #expect(store.count == 1)
    #expect(store.contains(["c"]))
    store.capacity = 0
    #expect(store.count == 0)
    #expect(registry.count == 0)  // Their values are freed with them.
  }

  @Test func anEvictedQueryIsFetchedAgainByItsNextUser() async throws {
    let clock = ManualClock()
    let store = SharedRegistry.current.queries
    store.capacity = 1
    let fetches = Counter()
    #expect(try await store.fetch(query(["a"], clock: clock, fetches: fetches)) == "[\"a\"]")
    _ = try await store.fetch(query(["b"], clock: clock))
    #expect(!store.contains(["a"]))
    #expect(try await store.fetch(query(["a"], clock: clock, fetches: fetches)) == "[\"a\"] 2")
    #expect(fetches.count == 2)
  }

  @Test func aGCTimeOfZeroRemovesAQueryAtTheFirstCheckThatFindsItUnused() async throws {
    let clock = ManualClock()
    let registry = SharedRegistry.current
    let store = registry.queries
    _ = try await store.fetch(query(["brief"], clock: clock, gcTime: .zero))
    #expect(store.contains(["brief"]))  // Until the next check.
    await clock.waitForSleepers(1)
    clock.advance(by: .seconds(1))  // Queries with a gcTime of zero are checked every second.
    await waitUntil { !store.contains(["brief"]) }
    #expect(store.count == 0)
    #expect(registry.count == 0)
  }

  @Test func aHeldQueryWithAGCTimeOfZeroIsKept() async {
    let clock = ManualClock()
    let store = SharedRegistry.current.queries
    let held = Shared(wrappedValue: OperationState<String>(), query(["kept"], clock: clock, gcTime: .zero))
    await waitForSuccess(held)
    for _ in 0..<3 {
      await clock.waitForSleepers(1)
      clock.advance(by: .seconds(1))
    }
    await clock.waitForSleepers(1)
    #expect(store.contains(["kept"]))
    #expect(held.wrappedValue.value == "[\"kept\"]")
  }

  @Test func theQueriesOnOneClockShareOneSweeperThatStopsWhenTheyAreGone() async throws {
    let clock = ManualClock()
    let store = SharedRegistry.current.queries
    for key in ["a", "b", "c"] { _ = try await store.fetch(query([key], clock: clock)) }
    await clock.waitForSleepers(1)
    #expect(clock.sleepers.map(\.wait) == [.garbageCheck])  // One sweeper, not one task per query.
    // Unused from the first check, gone a whole gcTime (four checks) later.
    for _ in 0..<5 {
      await clock.waitForSleepers(1)
      clock.advance(by: .seconds(15))
    }
    await waitUntil { store.count == 0 }
    await waitUntil { clock.sleeperCount == 0 }  // The sweeper stopped with its last query.
    _ = try await store.fetch(query(["d"], clock: clock))
    await clock.waitForSleepers(1)  // A new query on the clock starts a sweeper again.
    #expect(store.contains(["d"]))
  }

  @Test func aCheckOfMoreQueriesThanOneBatchReachesThemAll() async throws {
    let clock = ManualClock()
    let store = SharedRegistry.current.queries
    let count = QueryStore.sweepBatchSize + 100
    for id in 0..<count { _ = try await store.fetch(query(["item", id], clock: clock)) }
    #expect(store.count == count)
    // Unused from the first check, gone a whole gcTime (four checks) later: every batch of every check ran.
    for _ in 0..<5 {
      await clock.waitForSleepers(1)
      clock.advance(by: .seconds(15))
    }
    await waitUntil { store.count == 0 }
    await waitUntil { clock.sleeperCount == 0 }
  }

  @Test func aQueryNobodyUsesFreesItsBoxAtTheNextCheckAndItsNextHolderGetsItsValueWithoutAFetch() async {
    let clock = ManualClock()
    let fetches = Counter()
    let post = query(["post"], clock: clock, fetches: fetches)
    await fetchAndLetSleep(post, clock: clock)
    let holder = Shared(wrappedValue: OperationState<String>(), post)
    #expect(holder.wrappedValue.value == "[\"post\"]")
    #expect(holder.wrappedValue.status == .success)
    #expect(fetches.count == 1)
    #expect(holder.refetch())  // Linked to its query again.
    await waitUntil { holder.wrappedValue.value == "[\"post\"] 2" }
  }

  @Test func aSleepingStaleQueryIsShownAndRefetchedByItsNextHolder() async {
    let clock = ManualClock()
    let fetches = Counter()
    let post = query(["post"], clock: clock, staleTime: .seconds(10), fetches: fetches)
    await fetchAndLetSleep(post, clock: clock)  // 15 s later: stale.
    let holder = Shared(wrappedValue: OperationState<String>(), post)
    #expect(holder.wrappedValue.value == "[\"post\"]")
    await waitUntil { holder.wrappedValue.value == "[\"post\"] 2" }
    #expect(fetches.count == 2)
  }

  @Test func aSleepingQueryIsWrittenReadRefetchedAndAwaitedThroughTheStore() async throws {
    let clock = ManualClock()
    let store = SharedRegistry.current.queries
    let fetches = Counter()
    let post = query(["post"], clock: clock, fetches: fetches)
    await fetchAndLetSleep(post, clock: clock)
    #expect(store.update(["post"], as: OperationState<String>.self) { $0.value = "edited" } == .updated)
    #expect(store.cachedValue(for: ["post"], as: String.self) == "edited")
    #expect(try await store.fetch(post) == "edited")  // Fresh: no fetch.
    #expect(fetches.count == 1)
    await fetchAndLetSleep(post, clock: clock)
    #expect(store.refetch(["post"]))
    await waitUntil { fetches.count == 2 }
    #expect(try await store.fetch(post) == "[\"post\"] 2")
  }

  @Test func queriesUsedAgainAreStillCollected() async throws {
    let clock = ManualClock()
    let store = SharedRegistry.current.queries
    let fetches = Counter()
    _ = try await store.fetch(query(["a"], clock: clock, fetches: fetches))
    _ = try await store.fetch(query(["b"], clock: clock, fetches: fetches))
    // Uses that move each query to the newest end of the recency list.
    #expect(store.update(["a"], as: OperationState<String>.self) { $0.value = "edited a" } == .updated)
    #expect(store.update(["b"], as: OperationState<String>.self) { $0.value = "edited b" } == .updated)
    // The sweeper sleeps between its checks for as long as the store keeps queries on its clock.
    for _ in 0..<12 {
      await waitUntil { clock.sleeperCount >= 1 || store.count == 0 }  // Sleeping, or done with the last query.
      guard store.count > 0 else { break }
      clock.advance(by: .seconds(15))
    }
    #expect(store.count == 0)
  }

  @Test func sleepingQueriesAreWokenByInvalidationsThatRefetchAllAndByTurningThemOn() async throws {
    let clock = ManualClock()
    let store = SharedRegistry.current.queries
    let fetches = Counter()
    let post = query(["post"], clock: clock, fetches: fetches)
    await fetchAndLetSleep(post, clock: clock)
    #expect(store.invalidate(.exactly(["post"]), refetching: .all) == 1)  // Nobody holds it: fetched all the same.
    await waitUntil { fetches.count == 2 }
    #expect(try await store.fetch(post) == "[\"post\"] 2")
    await fetchAndLetSleep(post, clock: clock)
    #expect(store.setEnabled(false, for: ["post"]))
    #expect(store.invalidate(.exactly(["post"]), refetching: .none) == 1)
    #expect(store.setEnabled(true, for: ["post"]))  // Nobody holds it: fetched on its next use.
    #expect(try await store.fetch(post) == "[\"post\"] 3")
    #expect(fetches.count == 3)
  }

  @Test func holdersAndCallersWakingASleepingQueryAtOnceAllShareItsValue() async throws {
    let clock = ManualClock()
    let registry = SharedRegistry.current
    let fetches = Counter()
    let post = query(["post"], clock: clock, fetches: fetches)
    await fetchAndLetSleep(post, clock: clock)
    let values = try await withThrowingTaskGroup(of: String?.self) { group in
      for index in 0..<40 {
        group.addTask {
          try await SharedRegistry.$current.withValue(registry) {
            if index.isMultiple(of: 2) {
              return Shared(wrappedValue: OperationState<String>(), post).wrappedValue.value
            }
            return try await registry.queries.fetch(post)
          }
        }
      }
      return try await group.reduce(into: []) { $0.append($1) }
    }
    #expect(values.count == 40)
    #expect(values.allSatisfy { $0 == "[\"post\"]" })
    #expect(fetches.count == 1)
    #expect(registry.queries.count == 1)
  }

  @Test func anInvalidatedSleepingQueryIsRefetchedByItsNextHolder() async {
    let clock = ManualClock()
    let store = SharedRegistry.current.queries
    let fetches = Counter()
    let post = query(["post"], clock: clock, fetches: fetches)
    await fetchAndLetSleep(post, clock: clock)
    #expect(store.invalidate(matching: ["post"]) == 1)
    #expect(fetches.count == 1)  // Nobody holds it: it waits for its next holder.
    let holder = Shared(wrappedValue: OperationState<String>(), post)
    await waitUntil { holder.wrappedValue.value == "[\"post\"] 2" }
  }

  @Test func aStoreThatGoesFreesEveryQueryItKept() async throws {
    let clock = ManualClock()
    weak var weakStore: QueryStore?
    weak var weakRecord: AnyObject?
    do {
      let registry = SharedRegistry()
      let store = registry.queries
      weakStore = store
      for key in ["a", "b", "c"] { _ = try await store.fetch(query([key], clock: clock)) }
      // The middle one is linked to both others in the recency list.
      weakRecord = store.state.withLock { $0.root.node(at: QueryKey(["b"]).parts)?.record }
      #expect(weakRecord != nil)
    }
    await waitUntil { weakStore == nil }
    #expect(weakRecord == nil)
  }

  @Test func tenThousandDistinctKeysWithASmallCapacityKeepTheStoreAtItsCapacity() async throws {
    let clock = ManualClock()
    let registry = SharedRegistry.current
    let store = registry.queries
    store.capacity = 100
    // ThreadSanitizer makes each fetch's task a hundred times slower: a thousand keys show the same there.
    let keys = isThreadSanitizerBuild ? 1_000 : 10_000
    var largest = 0
    for id in 0..<keys {
      _ = try await store.fetch(query(["user", id], clock: clock))
      largest = max(largest, store.count)
    }
    // A fetch's task may still hold the value it wrote when its caller goes on: then that query is kept until the
    // next new query.
    #expect(largest <= 102)
    await clock.waitForSleepers(1)
    clock.advance(by: .seconds(15))  // The next check brings the store back to its capacity.
    await waitUntil { store.count == 100 }
    #expect(store.contains(["user", keys - 1]))
    #expect(store.contains(["user", keys - 100]))
    #expect(!store.contains(["user", keys - 101]))
    #expect(registry.count <= 100)
  }

  /// With a capacity of zero, every caller of a cold key makes a record nobody holds, and each new record evicts the
  /// others it can. A caller's record stays until its request is in, however many others are made meanwhile: the
  /// callers of two cold keys, each stepping in between the other's record and its request (as `store.fetch` makes
  /// the record, then reads the query's clock, then asks), each get their value after one fetch, and neither
  /// evicts the other's record from under it.
  @Test func callersOfColdKeysWithACapacityOfZeroDoNotEvictEachOthersRecordBeforeTheirRequestIsIn() async throws {
    let clock = HookedClock()
    let store = SharedRegistry.current.queries
    let options = QueryOptions(staleTime: .seconds(600), gcTime: .seconds(60), operation: .retry(.none).clock(clock))
    let fetches = Collector<String>()
    let query: @Sendable (String) -> Query<OperationState<String>> = { name in
      .query([name], options: options) {
        fetches.append(name)
        return name
      }
    }
    // The store's sweeper for the clock reads it once as it starts: started first, so every reading below is a
    // caller's.
    #expect(try await store.fetch(query("warm")) == "warm")
    await clock.waitForSleepers(1)
    store.capacity = 0
    #expect(store.count == 0)
    // Each time the caller of ["a"] reads the clock, a caller of ["b"] makes its cold record, as `store.fetch` does
    // first (a reading of its own, in there, is not another step). At most twenty steps, so that callers evicting
    // each other without end still end here.
    let steps = Counter()
    let evictions = Counter()
    let isStepping = Lock(false)
    clock.onRead { [weak store] in
      guard let store, !isStepping.withLock({ $0 }), steps.increment() <= 20 else { return }
      isStepping.withLock { $0 = true }
      defer { isStepping.withLock { $0 = false } }
      let hadRecord = store.contains(["a"])
      _ = store.recordStopwatch(of: query("b"))
      if hadRecord && !store.contains(["a"]) { evictions.increment() }
    }
    #expect(try await store.fetch(query("a")) == "a")
    clock.onRead(nil)
    #expect(evictions.count == 0)
    #expect(try await store.fetch(query("b")) == "b")
    #expect(fetches.elements == ["warm", "a", "b"])
  }
}

/// A manual clock whose every reading first runs a hook: a query reads its clock outside the store's lock, between
/// the steps a caller takes under it, which is where a test lets another caller step in.
private final class HookedClock: Clock, Sendable {
  typealias Instant = ManualClock.Instant

  private let base = ManualClock()
  private let hook = Lock<(@Sendable () -> Void)?>(nil)

  /// Runs `body` at each reading from now on (none: `nil`).
  func onRead(_ body: (@Sendable () -> Void)?) {
    hook.withLock { $0 = body }
  }

  var now: Instant {
    hook.withLock { $0 }?()
    return base.now
  }

  var minimumResolution: Duration { base.minimumResolution }

  func sleep(until deadline: Instant, tolerance: Duration?) async throws {
    try await base.sleep(until: deadline, tolerance: tolerance)
  }

  /// Returns once `count` tasks sleep on the clock.
  func waitForSleepers(_ count: Int) async {
    await base.waitForSleepers(count)
  }
}
