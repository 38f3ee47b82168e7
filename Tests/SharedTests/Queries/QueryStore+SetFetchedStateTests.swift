import Foundation
import TestSupport
import Testing

@testable import SharedState

/// Writing the cache as a program learns data another way: a value set for a query the store may not keep yet
/// (`setFetchedValue`, `setFetchedState`) counts as fetched when it was obtained, so staleTime decides from then
/// whether holders fetch.
@Suite(.freshRegistry) struct QueryStoreSetFetchedStateTests {
  private static let staleTime = Duration.seconds(60)

  private func query(_ fetcher: GatedFetcher, clock: ManualClock) -> Query<OperationState<String>> {
    .query(["post"], options: queryStoreOptions(clock, staleTime: Self.staleTime)) { await fetcher.fetch() }
  }

  @Test func aValueSetForAQueryTheStoreDoesNotKeepMakesItAndServesItFresh() async throws {
    let clock = ManualClock()
    let fetcher = GatedFetcher()
    let store = SharedRegistry.current.queries
    #expect(!store.contains(["post"]))
    #expect(store.setFetchedValue("from the list", for: query(fetcher, clock: clock)))
    #expect(store.contains(["post"]))
    #expect(store.cachedValue(for: ["post"], as: String.self) == "from the list")
    // Fresh: neither a caller nor a new holder fetches.
    #expect(try await store.fetch(query(fetcher, clock: clock)) == "from the list")
    let holder = Shared(wrappedValue: OperationState<String>(), query(fetcher, clock: clock))
    #expect(holder.wrappedValue.value == "from the list")
    #expect(holder.wrappedValue.status == .success)
    #expect(!holder.wrappedValue.isFetching)
    #expect(fetcher.fetches.count == 0)
    // Stale a staleTime after it was set: the next caller fetches.
    clock.advance(by: Self.staleTime)
    #expect(try await store.fetch(query(fetcher, clock: clock)) == "fetch 1")
  }

  @Test func aValueSetForAHeldQueryReplacesItsValueClearsItsErrorAndAnswersAnInvalidation() async throws {
    let clock = ManualClock()
    let fetcher = GatedFetcher()
    let store = SharedRegistry.current.queries
    let holder = Shared(wrappedValue: OperationState<String>(), query(fetcher, clock: clock))
    await waitUntil { holder.wrappedValue.value == "fetch 1" && !holder.wrappedValue.isFetching }
    holder.withLock { $0.operation.error = URLError(.badServerResponse) }
    store.invalidate(.exactly(["post"]), refetching: .none)  // Stale, with nothing refetching it.
    store.setFetchedValue("edited", for: query(fetcher, clock: clock))
    #expect(holder.wrappedValue.value == "edited")
    #expect(holder.wrappedValue.status == .success)
    #expect(holder.wrappedValue.error == nil)
    // The set value answers the invalidation: a caller is served it, with no fetch.
    #expect(try await holder.fetchValue() == "edited")
    #expect(fetcher.fetches.count == 1)
  }

  /// A value set while a refresh runs shows at once; the refresh goes on and writes its own value when it ends, as
  /// fetched then.
  @Test func aValueSetWhileAFetchRunsLeavesItFetchingAndTheFetchWritesLast() async throws {
    let clock = ManualClock()
    let fetcher = GatedFetcher()
    let store = SharedRegistry.current.queries
    let gate = fetcher.hold()
    let holder = Shared(wrappedValue: OperationState<String>(), query(fetcher, clock: clock))
    await waitUntil { fetcher.fetches.count == 1 }
    #expect(holder.wrappedValue.status == .pending)
    store.setFetchedValue("set meanwhile", for: query(fetcher, clock: clock))
    #expect(holder.wrappedValue.value == "set meanwhile")
    #expect(holder.wrappedValue.status == .success)
    #expect(holder.wrappedValue.isFetching)  // The fetch under way still shows.
    gate.open()
    await waitUntil { !holder.wrappedValue.isFetching }
    #expect(holder.wrappedValue.value == "fetch 1")
    #expect(try await holder.fetchValue() == "fetch 1")  // Fresh as of the fetch's end.
    #expect(fetcher.fetches.count == 1)
  }

  /// A value set while a refresh that an invalidation overtook runs does not make the query fresh: that refresh
  /// writes a value older than the invalidation, so the next caller fetches again.
  @Test func aValueSetWhileAnOvertakenRefreshRunsLeavesTheQueryToBeFetchedAgain() async throws {
    let clock = ManualClock()
    let fetcher = GatedFetcher()
    let store = SharedRegistry.current.queries
    #expect(try await store.fetch(query(fetcher, clock: clock)) == "fetch 1")
    let gate = fetcher.hold()
    store.refetch(["post"])
    await waitUntil { fetcher.fetches.count == 2 }
    // Overtakes fetch 2; with automatic fetching off, no refresh follows it by itself.
    store.setEnabled(false, for: ["post"])
    store.invalidate(matching: ["post"])
    store.setFetchedValue("set", for: query(fetcher, clock: clock))
    #expect(store.cachedValue(for: ["post"], as: String.self) == "set")
    gate.open()
    await waitUntil { store.cachedState(for: ["post"], as: OperationState<String>.self)?.isFetching == false }
    #expect(store.cachedValue(for: ["post"], as: String.self) == "fetch 2")  // Older than the invalidation.
    #expect(try await store.fetch(query(fetcher, clock: clock)) == "fetch 3")
  }

  @Test func anOldValueSetIsStaleAtOnce() async throws {
    let clock = ManualClock()
    let fetcher = GatedFetcher()
    let store = SharedRegistry.current.queries
    let obtained = Date(timeIntervalSinceNow: -3_600)  // An hour ago: older than staleTime.
    store.setFetchedValue("from yesterday's cache", for: query(fetcher, clock: clock), updatedAt: obtained)
    #expect(store.cachedState(for: ["post"], as: OperationState<String>.self)?.updatedAt == obtained)
    #expect(try await store.fetch(query(fetcher, clock: clock)) == "fetch 1")
  }

  @Test func aValueOfAnotherTypeIsNotSet() {
    let clock = ManualClock()
    let store = SharedRegistry.current.queries
    let text: Query<OperationState<String>> = .query(["post"], options: queryStoreOptions(clock)) { "text" }
    let number: Query<OperationState<Int>> = .query(["post"], options: queryStoreOptions(clock)) { 1 }
    #expect(store.setFetchedValue("text", for: text))
    #expect(!store.setFetchedValue(2, for: number))
    #expect(store.cachedValue(for: ["post"], as: String.self) == "text")
  }
}
