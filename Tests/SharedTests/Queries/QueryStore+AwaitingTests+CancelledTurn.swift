import Foundation
import TestSupport
import Testing

@testable import SharedState

/// Work queued behind a fetch is handed the value still fetching when its turn comes. If its task is cancelled in
/// that moment, before it wakes, it fetches nothing and writes nothing: the fetching it was handed must still end,
/// so that no holder is left showing a fetch (or a first load) that `store.activity` no longer counts. And a
/// stopped fetch that is followed by another at once hands over to it, never showing "not fetching" in between.
extension QueryStoreAwaitingTests {
  /// Whether the record of `key` has no work running, queued or settling.
  private func isQuiet<State: OperationTrackable>(_ store: QueryStore, _ key: QueryKey, as _: State.Type) -> Bool {
    store.state.withLock { state in
      (state.root.node(at: key.parts)?.record as? QueryRecord<State>)?.machine.activity == .idle
    }
  }

  /// Deterministic: every step below runs on the fetch's own task, in observers called as the value is written, so
  /// the app's cancel lands after the refresh's turn was decided and before its task is let go.
  @Test func aRefreshCancelledAsItsTurnComesEndsTheFirstLoadAResetShowedForIt() async {
    let store = SharedRegistry.current.queries
    let fetcher = KeyedFetcher()
    fetcher.hold()
    let post = Shared(wrappedValue: OperationState<String>(), fetcher.query(["post"], "post", clock: ManualClock()))
    await waitUntil { fetcher.count("post") == 1 }
    // As the first value shows, the app resets the query: the value is reset after that write, showing a first load
    // for the refresh queued behind. As that first load shows, the refresh's turn has come: the app cancels it.
    let step = Lock(0)
    let token = post.observe { state in
      let act = step.withLock { step -> Int? in
        if step == 0, state.value == "post 1" {
          step = 1
          return 0
        }
        if step == 1, state.status == .pending {
          step = 2
          return 1
        }
        return nil
      }
      if act == 0 { store.reset(.exactly(["post"])) }
      if act == 1 { store.cancel(.exactly(["post"])) }
    }
    fetcher.release()
    await waitUntil { step.withLock { $0 } == 2 && isQuiet(store, ["post"], as: OperationState<String>.self) }
    #expect(!post.wrappedValue.isFetching)
    #expect(post.wrappedValue.status == .idle)
    #expect(store.activity.wrappedValue.fetchingQueries == 0)
    #expect(fetcher.count("post") == 1)  // The cancelled refresh fetched nothing.
    withExtendedLifetime(token) {}
  }

  /// The app's cancel from a settled hook races with the queued refresh's task: whichever wins, nothing stays
  /// fetching.
  @Test func aRefreshCancelledFromASettledHookAsItsTurnComesEndsTheFetchingHandedToIt() async {
    let store = SharedRegistry.current.queries
    let fetcher = KeyedFetcher()
    fetcher.hold()
    let post = Shared(wrappedValue: OperationState<String>(), fetcher.query(["post"], "post", clock: ManualClock()))
    await waitUntil { fetcher.count("post") == 1 }
    // Superseded by an invalidation, the running refresh cannot be joined: the refetch waits behind it.
    #expect(store.invalidate(matching: ["post"]) == 1)
    #expect(store.refetch(["post"]))
    let hookRan = Lock(false)
    store.hooks = QueryHooks(onSettled: { [weak store] _, _ in
      let isFirst = hookRan.withLock { ran in
        defer { ran = true }
        return !ran
      }
      if isFirst { store?.cancel(.exactly(["post"])) }
    })
    fetcher.release()  // The first fetch writes its value still fetching, and hands over to the refetch.
    await waitUntil { hookRan.withLock { $0 } && isQuiet(store, ["post"], as: OperationState<String>.self) }
    #expect(!post.wrappedValue.isFetching)
    #expect(post.wrappedValue.status == .success)
    #expect(store.activity.wrappedValue.fetchingQueries == 0)
  }

  /// A page fetch whose only caller cancels from a settled hook, as its turn comes: nothing stays fetching.
  @Test func aPageFetchCancelledByItsCallerAsItsTurnComesEndsTheFetchingHandedToIt() async {
    let store = SharedRegistry.current.queries
    let gate = Lock<Gate?>(Gate())
    let fetches = Counter()
    let options = QueryOptions(
      staleTime: .seconds(600), gcTime: .seconds(60), operation: OperationOptions(retry: .none, clock: ManualClock()))
    let nextPage: @Sendable ([Int], Int) -> Int? = { _, id in id < 3 ? id + 1 : nil }
    let query: Query<PaginatedState<Int, [Int]>> = .paginatedQuery(
      ["feed"], initialPage: 0, nextPage: nextPage, options: options
    ) { (id: Int) -> [Int] in
      fetches.increment()
      if let gate = gate.withLock({ $0 }) { await gate.wait() }
      return [id]
    }
    let feed = Shared(wrappedValue: PaginatedState<Int, [Int]>(), query)
    await waitUntil { fetches.count == 1 }
    let next = Lock<OperationTask<PageUpdate<Int, [Int]>>?>(nil)
    let hookRan = Lock(false)
    store.hooks = QueryHooks(onSettled: { _, _ in
      let isFirst = hookRan.withLock { ran in
        defer { ran = true }
        return !ran
      }
      if isFirst { next.withLock { $0 }?.cancel() }
    })
    next.withLock { $0 = feed.fetchNextPage() }  // Queued behind the first page.
    let held = gate.withLock { gate in
      defer { gate = nil }
      return gate
    }
    held?.open()
    await waitUntil { hookRan.withLock { $0 } && isQuiet(store, ["feed"], as: PaginatedState<Int, [Int]>.self) }
    #expect(!feed.wrappedValue.isFetching)
    #expect(feed.wrappedValue.status == .success)
    #expect(store.activity.wrappedValue.fetchingQueries == 0)
  }

  /// A caller's refresh of a held query, cancelled by its caller, is followed by another refresh for the holder:
  /// its end is written still fetching, so the holder never sees "not fetching" between the two.
  @Test func aCallersRefreshCancelledWhileTheQueryIsHeldHandsOverToTheRefreshThatFollows() async throws {
    let store = SharedRegistry.current.queries
    let clock = ManualClock()
    let fetcher = KeyedFetcher()
    let query: Query<OperationState<String>> = .query(
      ["post"], options: queryStoreOptions(clock, staleTime: .seconds(10))
    ) {
      try await fetcher.fetch("post")
    }
    let post = Shared(wrappedValue: OperationState<String>(), query)
    await waitForValue(post, "post 1")
    clock.advance(by: .seconds(11))  // Stale; a holder alone does not refetch.
    fetcher.hold()
    let fetching = Collector<Bool>()
    let token = post.observe { fetching.append($0.isFetching) }
    let caller = Task { try await store.fetch(query) }
    await waitUntil { fetcher.count("post") == 2 }
    caller.cancel()  // Its refresh is cancelled: nobody else awaited it.
    await waitUntil { fetcher.count("post") == 3 }  // The refresh that follows, for the holder.
    fetcher.release()
    await waitForValue(post, "post 3")
    let changes = fetching.elements.reduce(into: [Bool]()) { changes, isFetching in
      if changes.last != isFetching { changes.append(isFetching) }
    }
    #expect(changes == [true, false])
    #expect(await (try? caller.value) == nil)
    withExtendedLifetime(token) {}
  }
}
