import Foundation
import TestSupport
import Testing

@testable import SharedState

/// Every query is collected between one and one and a quarter of its own `gcTime` after its last use, whatever other
/// `gcTime`s the queries on the same clock have, with one sweeper per clock.
extension QueryStoreBoundsTests {
  /// A query on `clock` with `gcTime` (the default, five minutes, when `nil`).
  private func query(_ key: QueryKey, gcTime: Duration?, clock: ManualClock) -> Query<OperationState<String>> {
    var options = QueryOptions(staleTime: .seconds(600), operation: .retry(.none).clock(clock))
    if let gcTime { options.gcTime = gcTime }
    return .query(key, options: options) { "fetched" }
  }

  /// Makes the query `key` with a value and nobody using it: its last use is now.
  private func cacheUnused(_ key: QueryKey, gcTime: Duration?, clock: ManualClock) {
    SharedRegistry.current.queries.setFetchedValue("set", for: query(key, gcTime: gcTime, clock: clock))
  }

  /// Moves `clock` to `instant` in steps of at most `step`, letting the sweeper run its check after each step (it
  /// is the only task sleeping on the clock, and stops once no query is left).
  private func advance(_ clock: ManualClock, to instant: ManualClock.Instant, step: Duration) async {
    let store = SharedRegistry.current.queries
    await waitUntil { clock.sleeperCount == 1 || store.count == 0 }
    while clock.now < instant {
      clock.advance(by: min(step, clock.now.duration(to: instant)))
      await waitUntil { clock.sleeperCount == 1 || store.count == 0 }
    }
  }

  /// Checks that `key`, last used at `lastUse`, is still cached just before its `gcTime` has passed and is gone once
  /// one and a quarter `gcTime` has passed, stepping the clock by `step`.
  private func expectCollectedInTime(
    _ key: QueryKey,
    lastUse: ManualClock.Instant,
    gcTime: Duration,
    clock: ManualClock,
    step: Duration
  ) async {
    let store = SharedRegistry.current.queries
    await advance(clock, to: lastUse.advanced(by: gcTime - .milliseconds(1)), step: step)
    #expect(store.contains(key), "\(key) was collected before its gcTime")
    await advance(clock, to: lastUse.advanced(by: gcTime * 1.25), step: step)
    #expect(!store.contains(key), "\(key) was not collected within 1.25 gcTime")
  }

  @Test func aShortGCTimeAfterADefaultOneIsCollectedWithinItsOwnBounds() async {
    let clock = ManualClock()
    let store = SharedRegistry.current.queries
    cacheUnused(["default"], gcTime: nil, clock: clock)
    await advance(clock, to: clock.now.advanced(by: .milliseconds(10)), step: .milliseconds(5))
    cacheUnused(["short"], gcTime: .milliseconds(100), clock: clock)
    await expectCollectedInTime(
      ["short"], lastUse: clock.now, gcTime: .milliseconds(100), clock: clock, step: .milliseconds(5))
    #expect(store.contains(["default"]))
  }

  @Test func aDefaultGCTimeAfterAShortOneKeepsBothWithinTheirBounds() async {
    let clock = ManualClock()
    let store = SharedRegistry.current.queries
    cacheUnused(["short"], gcTime: .milliseconds(100), clock: clock)
    let start = clock.now
    cacheUnused(["default"], gcTime: nil, clock: clock)
    await expectCollectedInTime(
      ["short"], lastUse: start, gcTime: .milliseconds(100), clock: clock, step: .milliseconds(5))
    #expect(store.contains(["default"]))
    await expectCollectedInTime(["default"], lastUse: start, gcTime: .seconds(300), clock: clock, step: .seconds(1))
  }

  @Test func aQueryAddedWithAShorterGCTimeThanTheSweepersPaceIsCollectedWithinItsBounds() async {
    let clock = ManualClock()
    let store = SharedRegistry.current.queries
    cacheUnused(["default"], gcTime: nil, clock: clock)
    await advance(clock, to: clock.now.advanced(by: .seconds(10)), step: .milliseconds(5))
    // The sweeper checks every 250 ms for this one, and still sleeps 65 s for the default one.
    cacheUnused(["second"], gcTime: .seconds(1), clock: clock)
    let second = clock.now
    await advance(clock, to: clock.now.advanced(by: .milliseconds(110)), step: .milliseconds(5))
    // Shorter than the 250 ms pace the sweeper now keeps.
    cacheUnused(["short"], gcTime: .milliseconds(100), clock: clock)
    await expectCollectedInTime(
      ["short"], lastUse: clock.now, gcTime: .milliseconds(100), clock: clock, step: .milliseconds(5))
    #expect(store.contains(["second"]))
    await expectCollectedInTime(["second"], lastUse: second, gcTime: .seconds(1), clock: clock, step: .milliseconds(5))
    #expect(store.contains(["default"]))
  }

  @Test func aQueryUsedAgainAfterItsFirstCheckCountsFromItsLastUse() async throws {
    let clock = ManualClock()
    let store = SharedRegistry.current.queries
    let short = query(["short"], gcTime: .milliseconds(100), clock: clock)
    cacheUnused(["short"], gcTime: .milliseconds(100), clock: clock)
    // Found unused by a check, then used again before its gcTime: the count starts again at this use.
    await advance(clock, to: clock.now.advanced(by: .milliseconds(60)), step: .milliseconds(5))
    #expect(try await store.fetch(short) == "set")
    await expectCollectedInTime(
      ["short"], lastUse: clock.now, gcTime: .milliseconds(100), clock: clock, step: .milliseconds(5))
  }

  @Test func aUseBetweenGarbageChecksStartsAWholeGCTimeAgain() async {
    let clock = ManualClock()
    let options = QueryOptions(
      staleTime: .seconds(10_000), gcTime: .seconds(60), operation: OperationOptions(retry: .none, clock: clock))
    let registry = SharedRegistry.current
    let query: Query<OperationState<String>> = .query(["brief"], options: options) { "x" }
    do {
      let holder = Shared(wrappedValue: OperationState<String>(), query)
      await waitForSettledSuccess(holder)
    }
    for _ in 0..<4 {
      await clock.waitForSleepers(1)
      clock.advance(by: .seconds(15))
    }
    await clock.waitForSleepers(1)
    do {
      let holder = Shared(wrappedValue: OperationState<String>(), query)  // A brief, fresh use.
      _ = holder.wrappedValue
    }
    clock.advance(by: .seconds(15))
    await waitUntil { clock.sleeperCount == 1 || !registry.queries.contains(["brief"]) }
    #expect(registry.queries.contains(["brief"]))
  }
}
