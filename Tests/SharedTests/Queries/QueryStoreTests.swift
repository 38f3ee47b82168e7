import Foundation
import Synchronization
import TestSupport
import Testing

@testable import SharedState

/// The store's public API: one way to write a query's state, "refetch" meaning one thing, and the trigger that
/// refetches only held, stale queries; invalidations that land during a fetch are in `+Invalidation`.
@Suite(.freshRegistry) struct QueryStoreTests {
  @Test func updateChangesTheStateEveryHolderSeesOnce() async {
    let clock = ManualClock()
    let fetcher = GatedFetcher()
    let store = SharedRegistry.current.queries
    let query: Query<OperationState<String>> = .query(["post"], options: queryStoreOptions(clock)) {
      await fetcher.fetch()
    }
    let first = Shared(wrappedValue: OperationState<String>(), query)
    let second = Shared(wrappedValue: OperationState<String>(), query)
    await waitForValue(first, "fetch 1")
    let heard = Collector<String?>()
    let token = second.observe { heard.append($0.value) }
    #expect(store.update(["post"], as: OperationState<String>.self) { $0.value = "edited" } == .updated)
    #expect(first.wrappedValue.value == "edited")
    #expect(second.wrappedValue.value == "edited")
    await waitUntil { !heard.elements.isEmpty }
    #expect(heard.elements == ["edited"])
    #expect(fetcher.fetches.count == 1)  // A write fetches nothing.
    token.cancel()
  }

  @Test func updateOfAMissingQueryOrAnotherStateTypeChangesNothingAndSaysWhy() async {
    let held = await HeldQuery(["post"])
    let missing = held.store.update(["missing"], as: OperationState<String>.self) { $0.value = "x" }
    #expect(missing == .notCached)
    let mismatched = held.store.update(["post"], as: OperationState<Int>.self) { $0.value = 1 }
    #expect(
      mismatched
        == .typeMismatch(
          expected: String(reflecting: OperationState<Int>.self), found: String(reflecting: OperationState<String>.self)
        ))
    #expect(held.store.update(["post", 1], as: OperationState<String>.self) { $0.value = "x" } == .notCached)
    #expect(held.holder.wrappedValue.value == "fetch 1")
    #expect(!held.store.contains(["missing"]))
    // A mismatch is a mistake, recorded once however often it is made; a missing query is a normal outcome.
    _ = held.store.update(["post"], as: OperationState<Int>.self) { $0.value = 2 }
    let diagnostics = SharedRegistry.current.diagnostics
    #expect(
      diagnostics == [
        SharedDiagnostic(
          kind: .queryWriteTypeMismatch(
            existing: String(reflecting: OperationState<String>.self),
            written: String(reflecting: OperationState<Int>.self)),
          key: "\(QueryKey(["post"]))")
      ])
  }

  @Test func updateCountsAsAUseSoTheQueryIsKeptAnotherGCTime() async {
    let clock = ManualClock()
    let store = SharedRegistry.current.queries
    _ = await HeldQuery(["kept"], clock: clock)  // Held until loaded, then let go.
    // Checks run every gcTime / 4 = 15 s; unused since the check at 15 s, it would go at 75 s.
    for _ in 0..<3 {
      await clock.waitForSleepers(1)
      clock.advance(by: .seconds(15))
    }
    await clock.waitForSleepers(1)  // The check at 45 s ran.
    #expect(store.update(["kept"], as: OperationState<String>.self) { $0.value = "edited" }.isUpdated)
    /// Moves the clock on by one check and waits until it ran: it sleeps again, or collected the query.
    func nextCheck() async {
      clock.advance(by: .seconds(15))
      await waitUntil { clock.sleeperCount == 1 || !store.contains(["kept"]) }
    }
    await nextCheck()  // 60 s: unused since now.
    await nextCheck()  // 75 s.
    #expect(store.contains(["kept"]))  // Kept: the write was a use.
    await nextCheck()  // 90 s.
    await nextCheck()  // 105 s.
    #expect(store.contains(["kept"]))
    await nextCheck()  // 120 s: a whole gcTime after the check at 60 s.
    #expect(!store.contains(["kept"]))
    #expect(store.count == 0)
  }

  @Test func everyRefetchJoinsTheRefetchUnderWay() async {
    let post = await HeldQuery(["post"])
    let gate = post.fetcher.hold()
    #expect(post.holder.refetch())
    await waitUntil { post.fetcher.fetches.count == 2 }
    #expect(post.holder.wrappedValue.status == .success)
    #expect(post.holder.wrappedValue.isFetching)
    #expect(post.store.refetch(["post"]))  // Joins.
    #expect(post.holder.refetch())  // Joins.
    gate.open()
    await waitForValue(post.holder, "fetch 2")
    #expect(post.fetcher.fetches.count == 2)
    #expect(post.store.refetch(["post"]))  // Nothing under way: fetches again.
    await waitForValue(post.holder, "fetch 3")
    #expect(post.fetcher.fetches.count == 3)
    #expect(!post.store.refetch(["missing"]))
    #expect(!Shared(value: OperationState<String>()).refetch())  // Not a query.
  }

  @Test func aPaginatedRefetchIsTheSameRefetchAsRefetchAll() async throws {
    let clock = ManualClock()
    let fetched = Collector<Int>()
    let gate = Lock<Gate?>(nil)
    let nextPage: @Sendable ([Int], Int) -> Int? = { _, id in id < 2 ? id + 1 : nil }
    let query: Query<PaginatedState<Int, [Int]>> = .paginatedQuery(
      ["feed"], initialPage: 0, nextPage: nextPage, options: queryStoreOptions(clock)
    ) { (id: Int) -> [Int] in
      fetched.append(id)
      if let gate = gate.withLock({ $0 }) { await gate.wait() }
      return [id]
    }
    let feed = Shared(wrappedValue: PaginatedState<Int, [Int]>(), query)
    _ = try await feed.fetchNextPage()?.value  // After the first page, which the holder fetches.
    #expect(feed.wrappedValue.pageIDs == [0, 1])
    let held = Gate()
    gate.withLock { $0 = held }
    #expect(feed.refetch())
    await waitUntil { fetched.elements.count == 3 }
    let all = feed.refetchAll()  // Joins the refetch of every page.
    #expect(SharedRegistry.current.queries.refetch(["feed"]))  // Joins too.
    held.open()
    _ = try await all?.value
    #expect(fetched.elements == [0, 1, 0, 1])
    #expect(feed.wrappedValue.pages == [[0], [1]])
  }

  @Test func refetchStaleRefetchesOnlyHeldStaleQueries() async {
    let clock = ManualClock()
    let fetcher = GatedFetcher()
    let store = SharedRegistry.current.queries
    let (triggers, trigger) = AsyncStream<Void>.makeStream()
    func hold(_ key: QueryKey) -> Shared<OperationState<String>> {
      Shared(
        wrappedValue: OperationState<String>(),
        .query(key, options: queryStoreOptions(clock, staleTime: .seconds(10))) { await fetcher.fetch() })
    }
    let held = hold(["posts", 1])
    await waitForValue(held, "fetch 1")
    do {
      let dropped = hold(["posts", 2])
      await waitForValue(dropped, "fetch 2")
    }
    let other = hold(["users", 1])
    await waitForValue(other, "fetch 3")
    #expect(store.refetchStale(matching: ["posts"]) == 0)  // Fresh: nothing to do.
    clock.advance(by: .seconds(10))
    #expect(store.refetchStale(matching: ["posts"]) == 1)  // ["posts", 1] only: ["posts", 2] is not held.
    await waitForValue(held, "fetch 4")
    #expect(other.wrappedValue.value == "fetch 3")  // Not under the prefix.
    let subscription = store.refetchStale(on: triggers, matching: ["posts"])
    clock.advance(by: .seconds(10))
    trigger.yield()
    await waitForValue(held, "fetch 5")
    subscription.cancel()
    trigger.finish()
    #expect(fetcher.fetches.count == 5)
    #expect(other.wrappedValue.value == "fetch 3")
  }

  @Test func aRegistryAndItsQueriesAreFreedTogether() async {
    let clock = ManualClock()
    weak var weakStore: QueryStore?
    weak var weakRegistry: SharedRegistry?
    do {
      let registry = SharedRegistry()
      weakRegistry = registry
      await SharedRegistry.$current.withValue(registry) {
        weakStore = registry.queries
        let options = QueryOptions(gcTime: .seconds(60), operation: OperationOptions(retry: .none, clock: clock))
        let holder = Shared(wrappedValue: OperationState<String>(), .query(["scoped"], options: options) { "x" })
        await waitForSettledSuccess(holder)
      }
    }
    await waitUntil { weakRegistry == nil && weakStore == nil }
    #expect(weakRegistry == nil)
    #expect(weakStore == nil)
  }

  @Test func aTriggerRefetchesOnlyHeldStaleQueries() async {
    let clock = ManualClock()
    let fetches = Counter()
    let (triggers, trigger) = AsyncStream<Void>.makeStream()
    let registry = SharedRegistry.current
    let options = QueryOptions(
      staleTime: .seconds(10), gcTime: .seconds(60), operation: OperationOptions(retry: .none, clock: clock))
    let held = Shared(
      wrappedValue: OperationState<Int>(),
      .query(["reconnect"], options: options) {
        fetches.increment()
      })
    var values = held.values.makeAsyncIterator()
    while let state = await values.next(), !state.status.isSuccess {}
    let subscription = registry.queries.refetchStale(on: triggers)
    #expect(registry.queries.refetchStale(matching: []) == 0)  // Fresh: nothing to do.
    clock.advance(by: .seconds(10))
    trigger.yield()
    await waitUntil { fetches.count == 2 }
    subscription.cancel()
    trigger.finish()
    #expect(fetches.count == 2)
  }

  @Test func updateReleasesTheValueItReplacesAfterTheLock() async {
    let target = ReadTarget<OperationState<ReadsOnRelease>>()
    let registry = SharedRegistry.current
    let query: Query<OperationState<ReadsOnRelease>> = .query(["edited"], options: options()) {
      target.value("fetched")
    }
    let held = Shared(wrappedValue: OperationState<ReadsOnRelease>(), query)
    target.set(held)
    await waitForSettledSuccess(held)
    #expect(registry.queries.update(["edited"], as: OperationState<ReadsOnRelease>.self) { $0.value = nil }.isUpdated)
    #expect(target.reads.count == 1)
    let replaced = registry.queries.update(["edited"], as: OperationState<ReadsOnRelease>.self) {
      $0.value = target.value("edited")
    }
    #expect(replaced.isUpdated)
    let cleared = registry.queries.update(["edited"], as: OperationState<ReadsOnRelease>.self) { $0.value = nil }
    #expect(cleared.isUpdated)
    #expect(target.reads.count == 2)
  }
}

private func options() -> QueryOptions {
  QueryOptions(
    staleTime: .seconds(600), gcTime: .seconds(60), operation: OperationOptions(retry: .none, clock: ManualClock()))
}
