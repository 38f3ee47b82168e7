import TestSupport
import Testing

@testable import SharedState

/// The cheap path for a fresh cached value (`store.fetch`, `ensureValue`, `$value.fetchValue()`): it serves only a
/// value fetched less than staleTime ago with no invalidation since, from the record it was fetched into. Work
/// queued behind a fetch and cancelled as its turn comes is in `+CancelledTurn`.
@Suite(.freshRegistry) struct QueryStoreAwaitingTests {
  private static let staleTime = Duration.seconds(10)

  private func query(_ fetcher: GatedFetcher, clock: ManualClock) -> Query<OperationState<String>> {
    .query(["post"], options: queryStoreOptions(clock, staleTime: Self.staleTime)) { await fetcher.fetch() }
  }

  /// Passes the garbage checks (every 15 s) of a record nobody holds until it is collected.
  private func collectUnheldRecord(_ store: QueryStore, clock: ManualClock) async {
    while store.contains(["post"]) {
      await clock.waitForSleepers(1)
      clock.advance(by: .seconds(15))
      await waitUntil { !store.contains(["post"]) || clock.sleeperCount == 1 }
    }
  }

  @Test func theStoreServesAValueUntilJustBeforeStaleTimeAndFetchesAtExactlyStaleTime() async throws {
    let clock = ManualClock()
    let fetcher = GatedFetcher()
    let store = SharedRegistry.current.queries
    #expect(try await store.fetch(query(fetcher, clock: clock)) == "fetch 1")
    clock.advance(by: Self.staleTime - .nanoseconds(1))
    #expect(try await store.fetch(query(fetcher, clock: clock)) == "fetch 1")
    #expect(try await store.ensureValue(query(fetcher, clock: clock)) == "fetch 1")
    clock.advance(by: .nanoseconds(1))  // Exactly staleTime: stale.
    #expect(try await store.fetch(query(fetcher, clock: clock)) == "fetch 2")
    #expect(fetcher.fetches.count == 2)
  }

  @Test func aHolderIsServedAValueUntilJustBeforeStaleTimeAndWaitsForAFetchAtExactlyStaleTime() async throws {
    let clock = ManualClock()
    let fetcher = GatedFetcher()
    let holder = Shared(wrappedValue: OperationState<String>(), query(fetcher, clock: clock))
    #expect(try await holder.fetchValue() == "fetch 1")
    clock.advance(by: Self.staleTime - .nanoseconds(1))
    #expect(try await holder.fetchValue() == "fetch 1")
    clock.advance(by: .nanoseconds(1))
    #expect(try await holder.fetchValue() == "fetch 2")
    #expect(fetcher.fetches.count == 2)
  }

  @Test func anInvalidatedValueIsNotServedAsFreshToTheStore() async throws {
    let clock = ManualClock()
    let fetcher = GatedFetcher()
    let store = SharedRegistry.current.queries
    #expect(try await store.fetch(query(fetcher, clock: clock)) == "fetch 1")
    store.invalidate(matching: ["post"])  // Young, but invalidated.
    #expect(try await store.fetch(query(fetcher, clock: clock)) == "fetch 2")
    #expect(try await store.fetch(query(fetcher, clock: clock)) == "fetch 2")  // Fresh again.
  }

  @Test func anInvalidatedValueIsNotServedAsFreshToAHolderWhileItsRefetchRuns() async throws {
    let clock = ManualClock()
    let fetcher = GatedFetcher()
    let holder = Shared(wrappedValue: OperationState<String>(), query(fetcher, clock: clock))
    #expect(try await holder.fetchValue() == "fetch 1")
    let gate = fetcher.hold()
    SharedRegistry.current.queries.invalidate(matching: ["post"])  // Held: it refetches now, held at the gate.
    await waitUntil { fetcher.fetches.count == 2 }
    let caller = Task { try await holder.fetchValue() }
    gate.open()
    #expect(try await caller.value == "fetch 2")  // It waited for the refetch: "fetch 1" is not fresh any more.
  }

  @Test func aRecordCollectedAndMadeAgainMeasuresFreshnessFromItsOwnFetch() async throws {
    let clock = ManualClock()
    let fetcher = GatedFetcher()
    let store = SharedRegistry.current.queries
    #expect(try await store.fetch(query(fetcher, clock: clock)) == "fetch 1")
    await collectUnheldRecord(store, clock: clock)
    #expect(try await store.fetch(query(fetcher, clock: clock)) == "fetch 2")  // Made again: fetched again.
    clock.advance(by: Self.staleTime - .nanoseconds(1))
    #expect(try await store.fetch(query(fetcher, clock: clock)) == "fetch 2")
    clock.advance(by: .nanoseconds(1))
    #expect(try await store.fetch(query(fetcher, clock: clock)) == "fetch 3")
  }

  @Test func aCallerOfARecordThatWasRemovedAndMadeAgainIsNotServedByIt() async throws {
    let clock = ManualClock()
    let fetcher = GatedFetcher()
    let store = SharedRegistry.current.queries
    _ = try await store.fetch(query(fetcher, clock: clock))
    let removed = try #require(store.recordStopwatch(of: query(fetcher, clock: clock)))
    #expect(store.freshValue(named: ["post"], stopwatch: removed, as: String.self) == "fetch 1")
    await collectUnheldRecord(store, clock: clock)
    #expect(store.freshValue(named: ["post"], stopwatch: removed, as: String.self) == nil)  // Removed.
    _ = try await store.fetch(query(fetcher, clock: clock))
    let remade = try #require(store.recordStopwatch(of: query(fetcher, clock: clock)))
    // Fresh, but not the record the caller's time is from (a holder linked to the removed one).
    #expect(store.freshValue(named: ["post"], stopwatch: removed, as: String.self) == nil)
    #expect(store.freshValue(named: ["post"], stopwatch: remade, as: String.self) == "fetch 2")
  }

  @Test func aFreshValueOfAnotherTypeUnderTheSameKeyIsNotServed() async throws {
    let clock = ManualClock()
    let fetcher = GatedFetcher()
    let store = SharedRegistry.current.queries
    _ = try await store.fetch(query(fetcher, clock: clock))
    let numbers: Query<OperationState<Int>> = .query(["post"], options: queryStoreOptions(clock)) { 42 }
    await #expect(throws: CancellationError.self) { try await store.fetch(numbers) }
    #expect(store.freshValue(named: ["post"], stopwatch: nil, as: Int.self) == nil)
    #expect(try await store.fetch(query(fetcher, clock: clock)) == "fetch 1")
  }

  @Test func servingAFreshValueCountsAsAUseForGarbageCollection() async throws {
    let clock = ManualClock()
    let fetcher = GatedFetcher()
    let store = SharedRegistry.current.queries
    let query: Query<OperationState<String>> = .query(["post"], options: queryStoreOptions(clock)) {
      await fetcher.fetch()
    }
    _ = try await store.fetch(query)  // Fresh for 600 s; collected after 60 s unused, checked every 15 s.
    for _ in 0..<8 {
      await clock.waitForSleepers(1)
      clock.advance(by: .seconds(15))
      await waitUntil { !store.contains(["post"]) || clock.sleeperCount == 1 }  // Checked.
      guard store.contains(["post"]) else {
        Issue.record("collected while served fresh values")
        return
      }
      #expect(try await store.fetch(query) == "fetch 1")  // Served fresh between two checks: a use.
    }
    #expect(store.contains(["post"]))  // Two minutes old, used all along.
    await collectUnheldRecord(store, clock: clock)
    #expect(fetcher.fetches.count == 1)
  }
}
