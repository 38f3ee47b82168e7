import Foundation
import TestSupport
import Testing

@testable import SharedState

/// A query's initial value: it shows at once and counts as fetched when it was obtained, so staleTime decides from
/// then whether holders fetch.
@Suite(.freshRegistry) struct QueryInitialStateTests {
  private static let staleTime = Duration.seconds(60)

  private func query(_ fetcher: GatedFetcher, clock: ManualClock) -> Query<OperationState<String>> {
    .query(["post"], options: queryStoreOptions(clock, staleTime: Self.staleTime)) { await fetcher.fetch() }
  }

  @Test func anInitialValueShowsAtOnceAndCountsAsFetchedWhenObtained() async throws {
    let clock = ManualClock()
    let fetcher = GatedFetcher()
    let seeded = query(fetcher, clock: clock).initialValue("seeded")
    let holder = Shared(wrappedValue: OperationState<String>(), seeded)
    #expect(holder.wrappedValue.value == "seeded")
    #expect(holder.wrappedValue.status == .success)
    #expect(!holder.wrappedValue.isFetching)
    #expect(fetcher.fetches.count == 0)
    // Another holder's initial value does not replace what the store keeps.
    let second = Shared(wrappedValue: OperationState<String>(), query(fetcher, clock: clock).initialValue("other"))
    #expect(second.wrappedValue.value == "seeded")
    clock.advance(by: Self.staleTime)
    #expect(try await holder.fetchValue() == "fetch 1")
  }

  @Test func aStaleInitialValueShowsWhileTheFirstHolderRefetches() async throws {
    let clock = ManualClock()
    let fetcher = GatedFetcher()
    let gate = fetcher.hold()
    let stale = query(fetcher, clock: clock).initialValue("old", updatedAt: Date(timeIntervalSinceNow: -3_600))
    let holder = Shared(wrappedValue: OperationState<String>(), stale)
    // A refetch, not a load: the old value shows, with its success status, while the fetch runs.
    #expect(holder.wrappedValue.value == "old")
    #expect(holder.wrappedValue.status == .success)
    #expect(holder.wrappedValue.isFetching)
    await waitUntil { fetcher.fetches.count == 1 }
    gate.open()
    await waitUntil { holder.wrappedValue.value == "fetch 1" && !holder.wrappedValue.isFetching }
  }

  @Test func anInitialValueSeedsAQueryMadeByTheStoreToo() async throws {
    let clock = ManualClock()
    let fetcher = GatedFetcher()
    let store = SharedRegistry.current.queries
    #expect(try await store.fetch(query(fetcher, clock: clock).initialValue("seeded")) == "seeded")
    #expect(fetcher.fetches.count == 0)
  }
}
