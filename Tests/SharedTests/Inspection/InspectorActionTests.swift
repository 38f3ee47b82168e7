import Foundation
import Reactive
import TestSupport
import Testing

@testable import SharedState

/// Acting on queries from an inspector: refetch, invalidate, reset, remove, force loading or an error, restore.
@Suite(.freshRegistry, .timeLimit(.minutes(10))) struct InspectorActionTests {
  @Test func refetchAndInvalidateFetchAHeldQueryAgain() async {
    let clock = ManualClock()
    let fetcher = KeyedFetcher()
    let inspector = SharedRegistry.current.inspector
    let feed = Shared(wrappedValue: OperationState<String>(), fetcher.query(["feed"], "feed", clock: clock))
    await waitForValue(feed, "feed 1")
    #expect(inspector.perform(.refetch, on: ["feed"]))
    await waitForValue(feed, "feed 2")
    #expect(inspector.perform(.invalidate, onKeyWithID: #"query:["feed"]"#))
    await waitForValue(feed, "feed 3")
    #expect(fetcher.count("feed") == 3)
  }

  @Test func anIdentityOfNoQueryIsRefused() async {
    let clock = ManualClock()
    let fetcher = KeyedFetcher()
    let inspector = SharedRegistry.current.inspector
    let counter = Shared(wrappedValue: 1, .inMemory("count"))
    #expect(!inspector.perform(.invalidate, onKeyWithID: #"query:["feed"]"#))  // No store yet.
    let feed = Shared(wrappedValue: OperationState<String>(), fetcher.query(["feed"], "feed", clock: clock))
    await waitForValue(feed, "feed 1")
    #expect(!inspector.perform(.invalidate, onKeyWithID: #"query:["other"]"#))
    #expect(!inspector.perform(.invalidate, onKeyWithID: "inMemory:count"))
    #expect(!inspector.perform(.invalidate, on: ["other"]))
    #expect(!inspector.perform(.restore, on: ["feed"]))  // Nothing was forced.
    #expect(fetcher.count("feed") == 1)
    withExtendedLifetime(counter) {}
  }

  @Test func resetAndRemoveReachTheStore() async throws {
    let clock = ManualClock()
    let fetcher = KeyedFetcher()
    let store = SharedRegistry.current.queries
    let inspector = SharedRegistry.current.inspector
    #expect(try await store.fetch(fetcher.query(["feed"], "feed", clock: clock)) == "feed 1")
    #expect(inspector.perform(.reset, on: ["feed"]))
    #expect(store.cachedValue(for: ["feed"], as: String.self) == nil)
    #expect(inspector.perform(.remove, onKeyWithID: #"query:["feed"]"#))
    #expect(!store.contains(["feed"]))
    #expect(inspector.snapshot()[id: #"query:["feed"]"#] == nil)
  }

  @Test func forcingLoadingShowsAFirstLoadUntilRestored() async throws {
    let clock = ManualClock()
    let fetcher = KeyedFetcher()
    let inspector = SharedRegistry.current.inspector
    let events = inspector.events()
    let feed = Shared(wrappedValue: OperationState<String>(), fetcher.query(["feed"], "feed", clock: clock))
    await waitForValue(feed, "feed 1")
    let before = feed.wrappedValue
    #expect(inspector.perform(.forceLoading, on: ["feed"]))
    #expect(feed.wrappedValue.status == .pending)
    #expect(feed.wrappedValue.isFetching)
    #expect(feed.wrappedValue.value == nil)
    #expect(inspector.snapshot()[id: #"query:["feed"]"#]?.query?.isForced == true)
    #expect(inspector.perform(.restore, on: ["feed"]))
    #expect(feed.wrappedValue == before)
    #expect(inspector.snapshot()[id: #"query:["feed"]"#]?.query?.isForced == false)
    #expect(fetcher.count("feed") == 1)  // Neither forcing nor restoring fetched.
    let names = inspector.recentEvents.map(\.kind.name).filter { $0 == "forced" || $0 == "restored" }
    #expect(names == ["forced", "restored"])
    withExtendedLifetime(events) {}
  }

  @Test func forcingAnErrorShowsItsMessageAndRestoringGoesBackToTheStateBeforeTheFirstForce() async throws {
    let clock = ManualClock()
    let fetcher = KeyedFetcher()
    let inspector = SharedRegistry.current.inspector
    let feed = Shared(wrappedValue: OperationState<String>(), fetcher.query(["feed"], "feed", clock: clock))
    await waitForValue(feed, "feed 1")
    let before = feed.wrappedValue
    #expect(inspector.perform(.forceError(message: "The server is down"), on: ["feed"]))
    #expect(feed.wrappedValue.status == .error)
    #expect(feed.wrappedValue.error as? InspectedError == InspectedError(message: "The server is down"))
    #expect(feed.wrappedValue.value == "feed 1")  // An error keeps the last value.
    let shown = try #require(inspector.snapshot()[id: #"query:["feed"]"#]?.operation)
    #expect(shown.error == "The server is down")
    #expect(inspector.perform(.forceLoading, on: ["feed"]))
    #expect(inspector.perform(.restore, on: ["feed"]))
    #expect(feed.wrappedValue == before)
    #expect(!inspector.perform(.restore, on: ["feed"]))  // Restored once.
  }

  @Test func aFetchThatEndsAfterAForceEndsItAndRestoringLeavesTheFetchedValue() async throws {
    let clock = ManualClock()
    let fetcher = KeyedFetcher()
    let inspector = SharedRegistry.current.inspector
    let feed = Shared(wrappedValue: OperationState<String>(), fetcher.query(["feed"], "feed", clock: clock))
    await waitForValue(feed, "feed 1")
    #expect(inspector.perform(.forceError(message: "forced"), on: ["feed"]))
    #expect(inspector.perform(.refetch, on: ["feed"]))
    await waitForValue(feed, "feed 2")
    #expect(!inspector.perform(.restore, on: ["feed"]))
    #expect(feed.wrappedValue.value == "feed 2")
    #expect(feed.wrappedValue.status == .success)
    #expect(inspector.snapshot()[id: #"query:["feed"]"#]?.query?.isForced == false)
  }

  @Test func aForceAfterAFetchEndedTheEarlierOneRestoresTheFetchedValue() async throws {
    let clock = ManualClock()
    let fetcher = KeyedFetcher()
    let inspector = SharedRegistry.current.inspector
    let feed = Shared(wrappedValue: OperationState<String>(), fetcher.query(["feed"], "feed", clock: clock))
    await waitForValue(feed, "feed 1")
    #expect(inspector.perform(.forceError(message: "first"), on: ["feed"]))
    #expect(inspector.perform(.refetch, on: ["feed"]))
    await waitForValue(feed, "feed 2")  // Ends the first force; no snapshot notices it before the next force.
    #expect(inspector.perform(.forceError(message: "second"), on: ["feed"]))
    #expect(inspector.perform(.restore, on: ["feed"]))
    #expect(feed.wrappedValue.status == .success)
    #expect(feed.wrappedValue.value == "feed 2")
    #expect(feed.wrappedValue.error == nil)
    #expect(!inspector.perform(.restore, on: ["feed"]))  // Restored once.
  }
}
