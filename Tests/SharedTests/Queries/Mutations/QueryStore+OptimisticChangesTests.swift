import Foundation
import Synchronization
import TestSupport
import Testing

@testable import SharedState

private struct RenameFailure: Error {}

/// The one rule of optimistic changes where they meet the rest of the store: every write that is not an optimistic
/// change goes to the query's confirmed value, the value shown is the confirmed value with the pending changes
/// applied in order, an ended change is dropped, and the changes are kept with the query (through sleep and wake,
/// and before a restored value is decoded).
@Suite(.freshRegistry) struct QueryStoreOptimisticChangesTests {
  /// A feed whose first page is `[3, 2, 1]` and second `[0]`, fresh for ten minutes.
  private static func feed(_ clock: ManualClock) -> Query<PaginatedState<Int, [Int]>> {
    let options = QueryOptions(
      staleTime: .seconds(600), gcTime: .seconds(60), operation: OperationOptions(retry: .none, clock: clock))
    let nextPage: @Sendable ([Int], Int) -> Int? = { _, id in id < 1 ? id + 1 : nil }
    return .paginatedQuery(["feed"], initialPage: 0, nextPage: nextPage, options: options) { (id: Int) -> [Int] in
      id == 0 ? [3, 2, 1] : [0]
    }
  }

  private static func inserting(_ post: Int) -> OptimisticMutation<Int, Void> {
    OptimisticMutation { (_: Int, cache: OptimisticCache) in
      cache.update(["feed"], as: PaginatedState<Int, [Int]>.self) { feed in
        if !feed.pages.isEmpty { feed.pages[0].insert(post, at: 0) }
      }
    }
  }

  /// A list on a server the test changes, with the staleTime given.
  private final class Server: Sendable {
    let items = Lock<[Int]>([1, 2])
    let fetches = Counter()

    func list(_ clock: ManualClock, staleTime: Duration) -> Query<OperationState<[Int]>> {
      let options = QueryOptions(
        staleTime: staleTime, gcTime: .seconds(60), operation: OperationOptions(retry: .none, clock: clock))
      return .query(["list"], options: options) {
        self.fetches.increment()
        return self.items.withLock { $0 }
      }
    }
  }

  private static let appending = OptimisticMutation { (item: Int, cache: OptimisticCache) in
    cache.update(["list"], as: OperationState<[Int]>.self) { $0.value?.append(item) }
  }

  /// Lets the garbage check find the unheld list unused, and waits until it sleeps (its box freed).
  private func letTheListSleep(_ clock: ManualClock) async {
    await clock.waitForSleepers(1)
    clock.advance(by: .seconds(15))
    await waitUntil {
      SharedRegistry.current.queries.state.withLock { state in
        (state.root.node(at: ["list"])?.record as? QueryRecord<OperationState<[Int]>>)?.isSleeping ?? false
      }
    }
  }

  // MARK: Edits while a change is pending

  @Test func anEditThroughTheStoreSurvivesAPageFetchedWhileAChangeIsPending() async throws {
    let clock = ManualClock()
    let feed = Shared(wrappedValue: PaginatedState<Int, [Int]>(), Self.feed(clock))
    _ = try await feed.fetchValue()
    let publish = Shared(value: MutationState<Int, Int>())
    let gate = Gate()
    let task = publish.mutate(999, optimistic: Self.inserting(999)) { post in
      await gate.wait()
      return post
    }
    SharedRegistry.current.queries.update(["feed"], as: PaginatedState<Int, [Int]>.self) { feed in
      feed.pages[0] = feed.pages[0].map { $0 == 2 ? 5 : $0 }
    }
    #expect(feed.wrappedValue.pages == [[999, 3, 5, 1]])
    _ = try await feed.fetchNextPage()?.value
    #expect(feed.wrappedValue.pages == [[999, 3, 5, 1], [0]])
    gate.open()
    _ = try await task.value
    #expect(feed.wrappedValue.pages == [[999, 3, 5, 1], [0]])
  }

  @Test func anEditThroughAHolderSurvivesAPageFetchedWhileAChangeIsPending() async throws {
    let clock = ManualClock()
    let feed = Shared(wrappedValue: PaginatedState<Int, [Int]>(), Self.feed(clock))
    _ = try await feed.fetchValue()
    let publish = Shared(value: MutationState<Int, Int>())
    let gate = Gate()
    let task = publish.mutate(999, optimistic: Self.inserting(999)) { _ in
      await gate.wait()
      throw RenameFailure()
    }
    feed.withLock { feed in feed.pages[0] = feed.pages[0].map { $0 == 2 ? 5 : $0 } }
    _ = try await feed.fetchNextPage()?.value
    #expect(feed.wrappedValue.pages == [[999, 3, 5, 1], [0]])
    gate.open()
    _ = await task.result
    // The failed change goes; the edit stays.
    #expect(feed.wrappedValue.pages == [[3, 5, 1], [0]])
  }

  // MARK: Sleep and wake

  /// Fetches the list of `query` through a holder, appends 99 to it optimistically with a mutation of `add` that
  /// fails once `gate` opens, and lets the holder go: the list is unheld, showing the change.
  private func appendThatFailsOnceOpened(
    to query: Query<OperationState<[Int]>>,
    by add: Shared<MutationState<Int, Int>>,
    gate: Gate
  ) async throws -> OperationTask<Int> {
    let list = Shared(wrappedValue: OperationState<[Int]>(), query)
    _ = try await list.fetchValue()
    let task = add.mutate(99, optimistic: Self.appending) { _ in
      await gate.wait()
      throw RenameFailure()
    }
    #expect(list.wrappedValue.value == [1, 2, 99])
    return task
  }

  @Test func aFailedChangeIsDroppedFromAQueryThatSleptAndWoke() async throws {
    let clock = ManualClock()
    let query = Server().list(clock, staleTime: .seconds(600))
    let gate = Gate()
    let add = Shared(value: MutationState<Int, Int>())
    let task = try await appendThatFailsOnceOpened(to: query, by: add, gate: gate)
    await letTheListSleep(clock)
    let list = Shared(wrappedValue: OperationState<[Int]>(), query)  // Wakes it.
    #expect(list.wrappedValue.value == [1, 2, 99])
    gate.open()
    _ = await task.result
    #expect(list.wrappedValue.value == [1, 2])
  }

  /// The garbage check copies an unheld query's value and drops its box; a failed change that ends between the two
  /// (it reached the box before it was dropped) must not stay in the copy: the woken query shows it gone.
  @Test func aChangeThatEndsAsItsQueryFallsAsleepIsNotShownAfterTheWake() async throws {
    let clock = ManualClock()
    let query = Server().list(clock, staleTime: .seconds(600))
    let gate = Gate()
    let add = Shared(value: MutationState<Int, Int>())
    let task = try await appendThatFailsOnceOpened(to: query, by: add, gate: gate)
    // The check's two steps, with the change's end between them: the box it drops is still alive as the end
    // reaches it.
    let store = SharedRegistry.current.queries
    let dropped = store.state.withLock { state in
      state.record(named: ["list"], as: OperationState<[Int]>.self)?.sleepIfUnused()
    }
    #expect(dropped != nil)
    gate.open()
    _ = await task.result
    withExtendedLifetime(dropped) {}
    let list = Shared(wrappedValue: OperationState<[Int]>(), query)  // Wakes it.
    #expect(list.wrappedValue.value == [1, 2])
  }

  @Test func aRefetchOnWakeKeepsThePendingChange() async throws {
    let clock = ManualClock()
    let server = Server()
    let query = server.list(clock, staleTime: .zero)
    let gate = Gate()
    let add = Shared(value: MutationState<Int, Int>())
    let task: OperationTask<Int>
    do {
      let list = Shared(wrappedValue: OperationState<[Int]>(), query)
      _ = try await list.fetchValue()
      await waitUntil { !list.wrappedValue.isFetching }
      task = add.mutate(99, optimistic: Self.appending) { item in
        await gate.wait()
        return item
      }
    }
    await letTheListSleep(clock)
    server.items.withLock { $0 = [1, 2, 3] }
    let fetchesBefore = server.fetches.count
    let list = Shared(wrappedValue: OperationState<[Int]>(), query)  // Stale: wakes it and refetches.
    await waitUntil { server.fetches.count > fetchesBefore && !list.wrappedValue.isFetching }
    #expect(list.wrappedValue.value == [1, 2, 3, 99])
    gate.open()
    _ = try await task.value
    #expect(list.wrappedValue.value == [1, 2, 3, 99])
  }

  // MARK: Overlapping changes

  @Test func aSnapshotRollbackCannotUndoAnotherMutationsChange() async throws {
    let clock = ManualClock()
    let options = QueryOptions(staleTime: .seconds(600), operation: OperationOptions(retry: .none, clock: clock))
    let title = Shared(
      wrappedValue: OperationState<String>(), .query(["posts", 42], options: options) { "original" })
    _ = try await title.fetchValue()
    /// The guide's rename: the rollback sets the title back to the one captured before.
    func rename(to newTitle: String) -> OptimisticMutation<String, String> {
      OptimisticMutation { (_: String, cache: OptimisticCache) -> String in
        let before = title.wrappedValue.value ?? ""
        cache.update(
          ["posts", 42], as: OperationState<String>.self,
          OptimisticUpdate(apply: { $0.value = newTitle }, rollback: { $0.value = before }))
        return before
      }
    }
    let renameA = Shared(value: MutationState<String, String>())
    let renameB = Shared(value: MutationState<String, String>())
    let gateA = Gate()
    let gateB = Gate()
    let a = renameA.mutate("A", optimistic: rename(to: "A")) { _ in
      await gateA.wait()
      throw RenameFailure()
    }
    let b = renameB.mutate("B", optimistic: rename(to: "B")) { title in
      await gateB.wait()
      return title
    }
    #expect(title.wrappedValue.value == "B")
    gateA.open()
    _ = await a.result
    #expect(title.wrappedValue.value == "B")
    gateB.open()
    _ = try await b.value
    #expect(title.wrappedValue.value == "B")
  }

  @Test func aCallThatJoinsADedupedRunDropsItsChange() async throws {
    let clock = ManualClock()
    let feed = Shared(wrappedValue: PaginatedState<Int, [Int]>(), Self.feed(clock))
    _ = try await feed.fetchValue()
    let publish = Shared(value: MutationState<Int, Int>())
    let gate = Gate()
    let first = publish.mutate(4, policy: .dedupe, optimistic: Self.inserting(4)) { post in
      await gate.wait()
      return post
    }
    let joined = publish.mutate(5, policy: .dedupe, optimistic: Self.inserting(5)) { post in post }
    // The joiner's arguments never reach the server: its change goes as it joins.
    #expect(feed.wrappedValue.pages == [[4, 3, 2, 1]])
    gate.open()
    #expect(try await first.value == 4)
    #expect(try await joined.value == 4)
    #expect(feed.wrappedValue.pages == [[4, 3, 2, 1]])
  }

  // MARK: Restored values

  @Test func aChangeToARestoredValueNotDecodedYetShowsWhenItsQueryIsMade() async throws {
    let clock = ManualClock()
    let store = SharedRegistry.current.queries
    let entry = try PersistedQueryCache.Entry(key: ["list"], value: [1, 2], updatedAt: Date())
    store.hydrate(PersistedQueryCache(entries: [entry]))
    #expect(!store.contains(["list"]))
    let add = Shared(value: MutationState<Int, Int>())
    let gate = Gate()
    let task = add.mutate(99, optimistic: Self.appending) { _ in
      await gate.wait()
      throw RenameFailure()
    }
    let server = Server()
    server.items.withLock { $0 = [7] }
    let list = Shared(wrappedValue: OperationState<[Int]>(), server.list(clock, staleTime: .seconds(600)))
    #expect(list.wrappedValue.value == [1, 2, 99])
    #expect(server.fetches.count == 0)  // The restored value is fresh.
    gate.open()
    _ = await task.result
    #expect(list.wrappedValue.value == [1, 2])
  }

  // MARK: One path to the persisted cache

  @Test func aSleepingQueryIsPersistedWithoutItsPendingChange() async throws {
    let clock = ManualClock()
    let store = SharedRegistry.current.queries
    let persister = MemoryCachePersister()
    await store.persistCache(
      QueryCachePersistence(persister: persister, version: "1", throttle: .seconds(1), clock: clock))
    let server = Server()
    let query = server.list(clock, staleTime: .seconds(600))
    let gate = Gate()
    let add = Shared(value: MutationState<Int, Int>())
    let task: OperationTask<Int>
    do {
      let list = Shared(wrappedValue: OperationState<[Int]>(), query)
      _ = try await list.fetchValue()
      task = add.mutate(99, optimistic: Self.appending) { _ in
        await gate.wait()
        throw RenameFailure()
      }
    }
    await letTheListSleep(clock)
    try await store.flushPersistedCache()
    #expect(try persister.storedValue(["list"], as: [Int].self) == [1, 2])
    #expect(store.dehydrate().entries.first.map { String(decoding: $0.value, as: UTF8.self) } == "[1,2]")
    gate.open()
    _ = await task.result
  }

  @Test func aHoldersWriteIsPersistedWithoutAnotherWrite() async throws {
    let clock = ManualClock()
    let store = SharedRegistry.current.queries
    let persister = MemoryCachePersister()
    await store.persistCache(
      QueryCachePersistence(persister: persister, version: "1", throttle: .seconds(1), clock: clock))
    let server = Server()
    let list = Shared(wrappedValue: OperationState<[Int]>(), server.list(clock, staleTime: .seconds(600)))
    _ = try await list.fetchValue()
    try await store.flushPersistedCache()
    #expect(try persister.storedValue(["list"], as: [Int].self) == [1, 2])
    list.withLock { $0.value?.append(3) }
    try await store.flushPersistedCache()
    #expect(try persister.storedValue(["list"], as: [Int].self) == [1, 2, 3])
  }
}
