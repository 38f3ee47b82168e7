import Foundation
import TestSupport
import Testing

@testable import SharedState

/// A store whose persister appends: each write appends what changed, a whole write comes only when the appended
/// changes outweigh the cache (or the stored bytes cannot take a frame), and a relaunch reads it all back.
@Suite(.freshRegistry)
struct QueryCacheEngineAppendTests {
  /// What a relaunch restores from `persister`'s bytes: each key's value, and the restore.
  private func relaunch(from persister: MemoryCachePersister) async -> (values: [String: String], QueryCacheRestore) {
    let (entries, restore) = await relaunchedCache(from: persister.data)
    return (entries.compactMapValues(\.value), restore)
  }

  @Test func aChangeAfterTheFirstWholeWriteIsAppended() async throws {
    let persister = MemoryCachePersister(appending: true)
    let store = SharedRegistry.current.queries
    await store.persistCache(appendingCachePersistence(persister))
    store.setFetchedValue("one", for: postQuery(1, "one"))
    store.setFetchedValue("two", for: postQuery(2, "two"))
    try await store.flushPersistedCache()
    #expect(persister.saves == 1 && persister.appends == 0)
    let wholeSize = try #require(persister.data).count

    store.setFetchedValue("one, edited", for: postQuery(1, "one, edited"))
    try await store.flushPersistedCache()
    #expect(persister.saves == 1 && persister.appends == 1)
    let appended = try #require(persister.data).count - wholeSize
    // The frame holds the one changed value, not the whole cache.
    #expect(appended < wholeSize)

    let (values, restore) = await relaunch(from: persister)
    #expect(restore == QueryCacheRestore(restored: 2))
    #expect(values == [QueryKey(["posts", 1]).description: "one, edited", QueryKey(["posts", 2]).description: "two"])
  }

  @Test func aRemovalAndAnInvalidationAreAppendedAndRestored() async throws {
    let persister = MemoryCachePersister(appending: true)
    let store = SharedRegistry.current.queries
    await store.persistCache(appendingCachePersistence(persister))
    store.setFetchedValue("one", for: postQuery(1, "one"))
    store.setFetchedValue("two", for: postQuery(2, "two"))
    try await store.flushPersistedCache()
    #expect(store.remove(.exactly(["posts", 2])) == 1)
    #expect(store.invalidate(.exactly(["posts", 1]), refetching: .none) == 1)
    try await store.flushPersistedCache()
    #expect(persister.saves == 1 && persister.appends == 1)

    let registry = SharedRegistry()
    let restore = await registry.queries.persistCache(
      appendingCachePersistence(MemoryCachePersister(data: persister.data, appending: true)))
    #expect(restore == QueryCacheRestore(restored: 1))
    let entries = registry.queries.dehydrate().entries
    #expect(entries.map(\.key) == [["posts", 1]])
    #expect(entries.first?.isInvalidated == true)
  }

  /// Under churn the stored bytes stay within about twice the cache: whole writes replace the log from time to time.
  @Test func churnOnAFewKeysKeepsTheStoredBytesBounded() async throws {
    let persister = MemoryCachePersister(appending: true)
    let store = SharedRegistry.current.queries
    await store.persistCache(appendingCachePersistence(persister))
    for id in 0..<20 { store.setFetchedValue("post \(id)", for: postQuery(id, "post \(id)")) }
    try await store.flushPersistedCache()
    var largest = 0
    for change in 0..<3_000 {
      let title = "post \(change % 20), edit \(change)"
      store.setFetchedValue(title, for: postQuery(change % 20, title))
      try await store.flushPersistedCache()
      largest = max(largest, persister.data?.count ?? 0)
    }
    // 20 small entries are far below the minimum a log grows to before its compaction.
    #expect(persister.saves > 1)
    #expect(largest <= QueryCacheLog.minimumCompactionBytes)
    #expect(persister.appends > 2_900)
    let (values, _) = await relaunch(from: persister)
    #expect(values.count == 20)
    #expect(values[QueryKey(["posts", 19]).description] == "post 19, edit 2999")
  }

  @Test func aFailedAppendMakesTheNextWriteWhole() async throws {
    let persister = MemoryCachePersister(appending: true)
    let problems = ProblemLog()
    let store = SharedRegistry.current.queries
    await store.persistCache(appendingCachePersistence(persister, problems: problems))
    store.setFetchedValue("one", for: postQuery(1, "one"))
    try await store.flushPersistedCache()
    persister.setFailing(true)
    store.setFetchedValue("two", for: postQuery(2, "two"))
    await #expect(throws: QueryCacheProblem.self) { try await store.flushPersistedCache() }
    persister.setFailing(false)
    store.setFetchedValue("three", for: postQuery(3, "three"))
    try await store.flushPersistedCache()
    // The failed frame's change is in the whole write that followed.
    #expect(persister.saves == 2 && persister.appends == 0)
    let (values, _) = await relaunch(from: persister)
    #expect(values.count == 3)
  }

  /// A restore that cut a torn end writes the whole cache at once, so no later frame lands after the torn bytes.
  @Test func aCutEndIsReportedAndReplacedByAWholeWrite() async throws {
    let first = MemoryCachePersister(appending: true)
    let store = SharedRegistry.current.queries
    await store.persistCache(appendingCachePersistence(first))
    store.setFetchedValue("one", for: postQuery(1, "one"))
    try await store.flushPersistedCache()
    store.setFetchedValue("two", for: postQuery(2, "two"))
    try await store.flushPersistedCache()
    let bytes = try #require(first.data)

    let torn = MemoryCachePersister(data: bytes.prefix(bytes.count - 2), appending: true)
    let problems = ProblemLog()
    let registry = SharedRegistry()
    let restore = await registry.queries.persistCache(appendingCachePersistence(torn, problems: problems))
    guard case .cutShort = restore.problem else {
      Issue.record("restored with \(restore.problem as Any)")
      return
    }
    #expect(restore.restored == 1)
    #expect(problems.all == [restore.problem].compactMap { $0 })
    try await registry.queries.flushPersistedCache()
    #expect(torn.saves == 1 && torn.appends == 0)
    #expect(try QueryCacheFormat.decode(#require(torn.data)).cut == nil)
  }

  /// A persister that only saves gets the whole cache at every write, as before.
  @Test func aPersisterThatDoesNotAppendGetsWholeWrites() async throws {
    let persister = MemoryCachePersister()
    let store = SharedRegistry.current.queries
    await store.persistCache(appendingCachePersistence(persister))
    store.setFetchedValue("one", for: postQuery(1, "one"))
    try await store.flushPersistedCache()
    store.setFetchedValue("two", for: postQuery(2, "two"))
    try await store.flushPersistedCache()
    #expect(persister.saves == 2 && persister.appends == 0)
    #expect(try persister.storedKeys().count == 2)
  }

  /// The flush at exit may skip a write still storing its bytes (an older one), and that write may fail part way (a
  /// full disk) and leave torn bytes at the end of the log: the exit writes the whole cache, with that write's keys.
  @Test func theExitWritesWholeWhileAFrameIsBeingStored() async throws {
    let persister = MemoryCachePersister(appending: true)
    let store = SharedRegistry.current.queries
    await store.persistCache(appendingCachePersistence(persister))
    store.setFetchedValue("one", for: postQuery(1, "one"))
    try await store.flushPersistedCache()
    let engine = try #require(store.persistedCache.engine)

    let gate = persister.holdWrites()
    store.setFetchedValue("two", for: postQuery(2, "two"))
    let frame = Task { try await store.flushPersistedCache() }
    await waitUntil { persister.begunWrites == 2 }
    let pending = try #require(engine.pendingAtExit())
    #expect(!pending.appends)
    #expect(pending.dirty.contains(["posts", 2]))
    gate.open()
    try await frame.value
    #expect(persister.appends == 1)
  }

  @Test func theExitWritesWholeWhileAWholeWriteIsBeingStored() async throws {
    let persister = MemoryCachePersister(appending: true)
    let store = SharedRegistry.current.queries
    await store.persistCache(appendingCachePersistence(persister))
    let engine = try #require(store.persistedCache.engine)
    store.setFetchedValue("one", for: postQuery(1, "one"))
    try await store.flushPersistedCache()
    // A change larger than the log may grow to: its write is a whole one (a compaction), on a log that takes frames.
    let large = String(repeating: "x", count: QueryCacheLog.minimumCompactionBytes)
    let gate = persister.holdWrites()
    store.setFetchedValue(large, for: postQuery(2, large))
    let whole = Task { try await store.flushPersistedCache() }
    await waitUntil { persister.begunWrites == 2 }
    let pending = try #require(engine.pendingAtExit())
    #expect(!pending.appends)
    gate.open()
    try await whole.value
    #expect(persister.saves == 2 && persister.appends == 0)
  }
}
