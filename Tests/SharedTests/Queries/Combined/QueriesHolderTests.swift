import Foundation
import TestSupport
import Testing

@testable import SharedState

private struct PostMissing: Error {}

/// Several queries held at once, their states combined, the list replaced; fetches shared with other holders.
@Suite(.freshRegistry) struct QueriesHolderTests {
  /// Posts by id, counted per id, held at a gate when asked to; post 0 fails.
  private final class Posts: Sendable {
    let fetched = Collector<Int>()
    private let gate = Lock<Gate?>(nil)

    func hold() -> Gate {
      let held = Gate()
      gate.withLock { $0 = held }
      return held
    }

    /// Post `id`, fresh for ten minutes, or with `options`.
    func query(_ id: Int, clock: ManualClock, options: QueryOptions? = nil) -> Query<OperationState<String>> {
      .query(["posts", id], options: options ?? queryStoreOptions(clock)) {
        self.fetched.append(id)
        if let gate = self.gate.withLock({ $0 }) { await gate.wait() }
        if id == 0 { throw PostMissing() }
        return "post \(id)"
      }
    }
  }

  @Test func theStatesOfEveryQueryShowTogetherInOrder() async throws {
    let clock = ManualClock()
    let posts = Posts()
    let gate = posts.hold()
    let holder = QueriesHolder([1, 2, 3].map { posts.query($0, clock: clock) })
    await waitUntil { posts.fetched.elements.count == 3 }
    #expect(holder.combined.wrappedValue.isPending)
    #expect(holder.combined.wrappedValue.isFetching)
    #expect(holder.combined.wrappedValue.values == [nil, nil, nil])
    gate.open()
    await waitUntil { holder.combined.wrappedValue.hasEveryValue && !holder.combined.wrappedValue.isFetching }
    #expect(holder.combined.wrappedValue.values == ["post 1", "post 2", "post 3"])
    #expect(holder.combined.wrappedValue.error == nil)
    #expect(holder.queries.map(\.wrappedValue.value) == ["post 1", "post 2", "post 3"])
  }

  @Test func theFirstErrorShowsAndTheOtherValuesStay() async throws {
    let clock = ManualClock()
    let posts = Posts()
    let holder = QueriesHolder([1, 0].map { posts.query($0, clock: clock) })
    await waitUntil { !holder.combined.wrappedValue.isFetching && holder.combined.wrappedValue.states.count == 2 }
    #expect(holder.combined.wrappedValue.error is PostMissing)
    #expect(holder.combined.wrappedValue.values == ["post 1", nil])
    #expect(!holder.combined.wrappedValue.hasEveryValue)
  }

  @Test func aQueryHeldElsewhereIsFetchedOnceForBoth() async throws {
    let clock = ManualClock()
    let posts = Posts()
    let detail = Shared(wrappedValue: OperationState<String>(), posts.query(2, clock: clock))
    let holder = QueriesHolder([1, 2].map { posts.query($0, clock: clock) })
    await waitUntil { holder.combined.wrappedValue.hasEveryValue }
    #expect(posts.fetched.elements.sorted() == [1, 2])
    // A change made through the other holder shows in the combination.
    detail.withLock { $0.value = "edited" }
    await waitUntil { holder.combined.wrappedValue.values == ["post 1", "edited"] }
  }

  @Test func loadingANewListKeepsTheQueriesThatStayAndLetsTheOthersGo() async throws {
    let clock = ManualClock()
    let posts = Posts()
    let store = SharedRegistry.current.queries
    let holder = QueriesHolder([1, 2].map { posts.query($0, clock: clock) })
    await waitUntil { holder.combined.wrappedValue.hasEveryValue }
    holder.load([2, 3].map { posts.query($0, clock: clock) })
    await waitUntil { holder.combined.wrappedValue.values == ["post 2", "post 3"] }
    #expect(posts.fetched.elements.sorted() == [1, 2, 3])  // Post 2 was not fetched again.
    // Post 1 is no longer held: it goes after gcTime (a minute, checked every 15 s); the others stay.
    for _ in 0..<6 where store.contains(["posts", 1]) {
      await clock.waitForSleepers(1)
      clock.advance(by: .seconds(15))
      await waitUntil { !store.contains(["posts", 1]) || clock.sleeperCount == 1 }
    }
    #expect(!store.contains(["posts", 1]))
    #expect(store.contains(["posts", 2]) && store.contains(["posts", 3]))
  }

  @Test func aQueryInBothListsIsNotFetchedAgainEvenWhenItIsStale() async throws {
    let clock = ManualClock()
    let posts = Posts()
    // The default staleTime, zero: every value is stale as soon as it arrives.
    let options = QueryOptions(operation: .retry(.none).clock(clock))
    let holder = QueriesHolder([1, 2, 3].map { posts.query($0, clock: clock, options: options) })
    await waitUntil { holder.combined.wrappedValue.hasEveryValue && !holder.combined.wrappedValue.isFetching }
    #expect(posts.fetched.elements.sorted() == [1, 2, 3])
    holder.load([2, 3, 4].map { posts.query($0, clock: clock, options: options) })
    await waitUntil { holder.combined.wrappedValue.hasEveryValue && !holder.combined.wrappedValue.isFetching }
    #expect(holder.combined.wrappedValue.values == ["post 2", "post 3", "post 4"])
    #expect(posts.fetched.elements.sorted() == [1, 2, 3, 4])  // Posts 2 and 3 were not fetched again.
  }

  @Test func aCombineFunctionShapesWhatShows() async throws {
    let clock = ManualClock()
    let posts = Posts()
    let titles = QueriesHolder([3, 1].map { posts.query($0, clock: clock) }) { states in
      states.compactMap(\.value).joined(separator: " | ")
    }
    await waitUntil { titles.combined.wrappedValue == "post 3 | post 1" }
  }
}
