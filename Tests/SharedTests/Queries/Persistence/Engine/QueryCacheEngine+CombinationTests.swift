import Foundation
import TestSupport
import Testing

@testable import SharedState

/// The appended log where it meets the cache's other paths: a removal of the whole cache, a failed write, changes
/// made while a frame is being stored, and the flush at exit after each.
@Suite(.freshRegistry)
struct QueryCacheEngineCombinationTests {
  /// What a relaunch restores from `data`: each key's value and whether it is invalidated.
  private func relaunch(from data: Data?) async -> [String: RelaunchedEntry] {
    await relaunchedCache(from: data).entries
  }

  /// The query `["posts", 1]`, collected as soon as it is unused: its retries and the store's sweeper on `clock`.
  private func collectablePost(clock: ManualClock) -> Query<OperationState<String>> {
    let options = QueryOptions(staleTime: .seconds(600), gcTime: .zero, operation: .retry(.none).clock(clock))
    return .query(["posts", 1], options: options) { "fetched" }
  }

  /// Moves `clock` on, a second at a time (the store's sweeper checks every second), until `store` collected `key`.
  private func collect(_ key: QueryKey, in store: QueryStore, clock: ManualClock) async {
    await waitUntil {
      clock.advance(by: .seconds(1))
      return !store.contains(key)
    }
  }

  /// After the stored cache is removed, the next change is written whole: a frame has no log to land on.
  @Test func aChangeAfterTheStoredCacheIsRemovedIsWrittenWhole() async throws {
    let persister = MemoryCachePersister(appending: true)
    let store = SharedRegistry.current.queries
    await store.persistCache(appendingCachePersistence(persister))
    store.setFetchedValue("one", for: postQuery(1, "one"))
    store.setFetchedValue("two", for: postQuery(2, "two"))
    try await store.flushPersistedCache()
    try await store.removePersistedCache()
    #expect(persister.data == nil && persister.removals == 1)

    store.setFetchedValue("three", for: postQuery(3, "three"))
    try await store.flushPersistedCache()
    #expect(persister.saves == 2 && persister.appends == 0)
    let values = await relaunch(from: persister.data)
    #expect(values.keys.sorted() == [QueryKey(["posts", 3]).description])
  }

  /// Every query removed while a frame is being stored: the frame lands, then the cache is removed, and nothing of
  /// it comes back.
  @Test func aRemovalOfTheCacheWhileAFrameIsStoredLeavesNothing() async throws {
    let persister = MemoryCachePersister(appending: true)
    let store = SharedRegistry.current.queries
    await store.persistCache(appendingCachePersistence(persister))
    store.setFetchedValue("one", for: postQuery(1, "one"))
    try await store.flushPersistedCache()

    let gate = persister.holdWrites()
    store.setFetchedValue("two", for: postQuery(2, "two"))
    let frame = Task { try await store.flushPersistedCache() }
    await waitUntil { persister.begunWrites == 2 }
    #expect(store.remove(.all) == 2)
    gate.open()
    try await frame.value
    try await store.flushPersistedCache()
    #expect(persister.data == nil)
    #expect(await relaunch(from: persister.data).isEmpty)
  }

  /// A failed append, then a flush with no new change: the change of the failed write is written again, whole.
  @Test func aFlushAfterAFailedAppendWritesItsChangeWhole() async throws {
    let persister = MemoryCachePersister(appending: true)
    let store = SharedRegistry.current.queries
    await store.persistCache(appendingCachePersistence(persister))
    store.setFetchedValue("one", for: postQuery(1, "one"))
    try await store.flushPersistedCache()
    persister.setFailing(true)
    store.setFetchedValue("two", for: postQuery(2, "two"))
    await #expect(throws: QueryCacheProblem.self) { try await store.flushPersistedCache() }
    persister.setFailing(false)
    try await store.flushPersistedCache()
    #expect(persister.saves == 2 && persister.appends == 0)
    let values = await relaunch(from: persister.data)
    #expect(values[QueryKey(["posts", 2]).description]?.value == "two")
  }

  /// Changes, an invalidation and a removal made while a frame is being stored, which then fails: the next write
  /// (whole) holds each of them.
  @Test func changesMadeWhileAFailingFrameIsStoredAreAllWrittenNext() async throws {
    let persister = MemoryCachePersister(appending: true)
    let store = SharedRegistry.current.queries
    await store.persistCache(appendingCachePersistence(persister))
    store.setFetchedValue("one", for: postQuery(1, "one"))
    store.setFetchedValue("four", for: postQuery(4, "four"))
    try await store.flushPersistedCache()

    let gate = persister.holdWrites()
    store.setFetchedValue("two", for: postQuery(2, "two"))
    let frame = Task { try await store.flushPersistedCache() }
    await waitUntil { persister.begunWrites == 2 }
    store.setFetchedValue("three", for: postQuery(3, "three"))
    #expect(store.invalidate(.exactly(["posts", 1]), refetching: .none) == 1)
    #expect(store.remove(.exactly(["posts", 4])) == 1)
    persister.setFailing(true)
    gate.open()
    await #expect(throws: QueryCacheProblem.self) { try await frame.value }
    persister.setFailing(false)
    try await store.flushPersistedCache()
    #expect(persister.appends == 0)

    let values = await relaunch(from: persister.data)
    #expect(values.keys.sorted() == [1, 2, 3].map { QueryKey(["posts", $0]).description })
    #expect(values[QueryKey(["posts", 1]).description]?.isInvalidated == true)
    #expect(values[QueryKey(["posts", 3]).description]?.value == "three")
  }

  /// The flush at exit after the stored file was removed: the change waiting writes a whole file (an appended
  /// frame has no file to land on), and a relaunch restores it.
  @Test func theExitAfterTheFileWasRemovedWritesTheWholeCache() async throws {
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let url = folder.file("queries.cache")
    let persistence = QueryCachePersistence(
      persister: .file(url), version: "1", throttle: .seconds(60), clock: ManualClock())
    let store = SharedRegistry.current.queries
    await store.persistCache(persistence)
    let engine = try #require(store.persistedCache.engine)
    store.setFetchedValue("one", for: postQuery(1, "one"))
    try await store.flushPersistedCache()
    try await store.removePersistedCache()
    #expect(!FileManager.default.fileExists(atPath: url.path))
    store.setFetchedValue("two", for: postQuery(2, "two"))
    try engine.flushBeforeExit()
    let cache = try PersistedQueryCache(encoded: Data(contentsOf: url))
    #expect(try cache.entries.map { try $0.decodedValue(as: String.self) } == ["two"])
  }

  /// A query whose new value waits for the throttle, collected before the write: the write still stores the new
  /// value, not the one written before it.
  @Test func aQueryCollectedBeforeTheWriteHasItsNewValueWritten() async throws {
    let persister = MemoryCachePersister(appending: true)
    let store = SharedRegistry.current.queries
    await store.persistCache(appendingCachePersistence(persister))
    let clock = ManualClock()
    let query = collectablePost(clock: clock)
    store.setFetchedValue("first", for: query)
    try await store.flushPersistedCache()
    store.setFetchedValue("second", for: query)
    // The store's garbage sweeper checks every second: time moves on until it collected the query.
    await collect(["posts", 1], in: store, clock: clock)
    try await store.flushPersistedCache()
    let values = await relaunch(from: persister.data)
    #expect(values[QueryKey(["posts", 1]).description]?.value == "second")
  }

  /// A query given its first value and collected before the throttle's write: the value is written all the same.
  @Test func aQueryCollectedBeforeItsFirstWriteHasItsValueWritten() async throws {
    let persister = MemoryCachePersister(appending: true)
    let store = SharedRegistry.current.queries
    await store.persistCache(appendingCachePersistence(persister))
    store.setFetchedValue("zero", for: postQuery(0, "zero"))
    try await store.flushPersistedCache()
    let clock = ManualClock()
    let query = collectablePost(clock: clock)
    store.setFetchedValue("only", for: query)
    await collect(["posts", 1], in: store, clock: clock)
    try await store.flushPersistedCache()
    let values = await relaunch(from: persister.data)
    #expect(values[QueryKey(["posts", 1]).description]?.value == "only")
  }

  /// A query evicted over the store's capacity before the throttle's write: its new value is written all the same.
  @Test func aQueryEvictedBeforeTheWriteHasItsNewValueWritten() async throws {
    let persister = MemoryCachePersister(appending: true)
    let store = SharedRegistry.current.queries
    await store.persistCache(appendingCachePersistence(persister))
    store.setFetchedValue("first", for: postQuery(1, "first"))
    try await store.flushPersistedCache()
    store.setFetchedValue("second", for: postQuery(1, "second"))
    store.capacity = 0
    #expect(!store.contains(["posts", 1]))
    try await store.flushPersistedCache()
    let values = await relaunch(from: persister.data)
    #expect(values[QueryKey(["posts", 1]).description]?.value == "second")
  }

  /// The flush at exit after a query with a waiting change was evicted: the file holds its new value.
  @Test func theExitWritesTheNewValueOfAnEvictedQuery() async throws {
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let url = folder.file("queries.cache")
    let persistence = QueryCachePersistence(
      persister: .file(url), version: "1", throttle: .seconds(60), clock: ManualClock())
    let store = SharedRegistry.current.queries
    await store.persistCache(persistence)
    let engine = try #require(store.persistedCache.engine)
    store.setFetchedValue("first", for: postQuery(1, "first"))
    try await store.flushPersistedCache()
    store.setFetchedValue("second", for: postQuery(1, "second"))
    store.capacity = 0
    try engine.flushBeforeExit()
    let cache = try PersistedQueryCache(encoded: Data(contentsOf: url))
    #expect(try cache.entries.map { try $0.decodedValue(as: String.self) } == ["second"])
  }

  /// A feed given a page, then evicted before the throttle's write: a relaunch shows every page.
  @Test func aFeedEvictedAfterANextPageIsRestoredWithThatPage() async throws {
    let persister = MemoryCachePersister(appending: true)
    let store = SharedRegistry.current.queries
    await store.persistCache(appendingCachePersistence(persister))
    let feed = QueryStorePersistedCacheTests.PagedFeed(edition: "first")
    do {
      let holder = Shared(wrappedValue: PaginatedState<Int, [String]>(), feed.query(ManualClock()))
      _ = try await holder.fetchValue()
      try await store.flushPersistedCache()
      _ = try await holder.fetchNextPage()?.value
      #expect(holder.wrappedValue.pageIDs == [0, 1])
    }
    store.capacity = 0
    #expect(!store.contains(["feed"]))
    try await store.flushPersistedCache()

    let registry = SharedRegistry()
    await registry.queries.persistCache(
      appendingCachePersistence(MemoryCachePersister(data: persister.data, appending: true)))
    let again = SharedRegistry.$current.withValue(registry) {
      Shared(
        wrappedValue: PaginatedState<Int, [String]>(),
        QueryStorePersistedCacheTests.PagedFeed(edition: "second").query(ManualClock()))
    }
    #expect(again.wrappedValue.pageIDs == [0, 1])
  }
}
