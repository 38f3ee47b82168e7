import Foundation
import TestSupport
import Testing

@testable import SharedState

/// A store's persisted query cache: restored at launch with each value's time (so `staleTime` decides), chosen by
/// filter, aged out by `maxAge`, dropped whole for another version or a damaged cache, written throttled, flushed on
/// request, and moved as a value.
@Suite(.freshRegistry)
struct QueryStorePersistedCacheTests {
  /// How a test persists: `version` "1", a one-second throttle on `clock`, problems into `problems`.
  func persistence(
    _ persister: MemoryCachePersister,
    clock: ManualClock,
    problems: ProblemLog = ProblemLog(),
    version: String = "1",
    maxAge: Duration = .seconds(86_400),
    filter: QueryFilter = .all
  ) -> QueryCachePersistence {
    QueryCachePersistence(
      persister: persister, version: version, maxAge: maxAge, filter: filter, throttle: .seconds(1), clock: clock,
      onProblem: problems.callback)
  }

  /// A stored cache of `values`, each obtained `age` ago.
  private func storedCache(
    _ values: [(key: QueryKey, value: String, age: Duration)],
    version: String = "1"
  ) throws -> MemoryCachePersister {
    let entries = try values.map { key, value, age in
      try PersistedQueryCache.Entry(key: key, value: value, updatedAt: Date(timeIntervalSinceNow: -age.timeInterval))
    }
    return try MemoryCachePersister(PersistedQueryCache(version: version, entries: entries))
  }

  // MARK: Restoring

  @Test func aFreshRestoredValueShowsAtOnceWithItsOwnTimeAndIsNotFetched() async throws {
    let obtained = Date(timeIntervalSinceNow: -300)  // Five minutes ago; the queries stay fresh for ten.
    let persister = try MemoryCachePersister(
      PersistedQueryCache(
        version: "1", entries: [try .init(key: ["posts", 1], value: "cached", updatedAt: obtained)]))
    let store = SharedRegistry.current.queries
    let restore = await store.persistCache(persistence(persister, clock: ManualClock()))
    #expect(restore == QueryCacheRestore(restored: 1))

    let clock = ManualClock()
    let fetcher = KeyedFetcher()
    let post = Shared(wrappedValue: OperationState<String>(), fetcher.query(["posts", 1], "post", clock: clock))
    #expect(post.wrappedValue.value == "cached")
    #expect(post.wrappedValue.status == .success)
    #expect(post.wrappedValue.updatedAt == obtained)
    #expect(!post.wrappedValue.isFetching)
    #expect(try await store.fetch(fetcher.query(["posts", 1], "post", clock: clock)) == "cached")
    #expect(fetcher.count("post") == 0)
  }

  @Test func aStaleRestoredValueShowsAtOnceAndIsRefetched() async throws {
    let persister = try storedCache([(["posts", 1], "cached", .seconds(1_200))])  // Twenty minutes: stale.
    await SharedRegistry.current.queries.persistCache(persistence(persister, clock: ManualClock()))
    let fetcher = KeyedFetcher()
    let post = Shared(
      wrappedValue: OperationState<String>(), fetcher.query(["posts", 1], "post", clock: ManualClock()))
    #expect(post.wrappedValue.value == "cached")
    #expect(post.wrappedValue.status == .success)
    #expect(post.wrappedValue.isFetching)
    await waitForValue(post, "post 1")
    #expect(fetcher.count("post") == 1)
  }

  @Test func aValueOlderThanTheMaxAgeIsNotRestored() async throws {
    let persister = try storedCache([(["posts", 1], "old", .seconds(7_200)), (["posts", 2], "recent", .seconds(60))])
    let store = SharedRegistry.current.queries
    let restore = await store.persistCache(persistence(persister, clock: ManualClock(), maxAge: .seconds(3_600)))
    #expect(restore == QueryCacheRestore(restored: 1, expired: 1))
    #expect(store.cachedValue(for: ["posts", 1], as: String.self) == nil)
    #expect(store.cachedValue(for: ["posts", 2], as: String.self) == "recent")
    let fetcher = KeyedFetcher()
    let old = Shared(wrappedValue: OperationState<String>(), fetcher.query(["posts", 1], "old", clock: ManualClock()))
    #expect(old.wrappedValue.value == nil)
    #expect(old.wrappedValue.status == .pending)
    await waitForValue(old, "old 1")
  }

  @Test func aCacheOfAnotherVersionIsDroppedWholeReportedAndRemovedAtTheNextWrite() async throws {
    let persister = try storedCache([(["posts", 1], "cached", .seconds(60))], version: "1")
    let clock = ManualClock()
    let problems = ProblemLog()
    let store = SharedRegistry.current.queries
    let restore = await store.persistCache(persistence(persister, clock: clock, problems: problems, version: "2"))
    let problem = QueryCacheProblem.versionMismatch(stored: "1", expected: "2")
    #expect(restore == QueryCacheRestore(restored: 0, problem: problem))
    #expect(problems.all == [problem])
    #expect(store.cachedValue(for: ["posts", 1], as: String.self) == nil)
    await clock.waitForSleepers(1)
    clock.advance(by: .seconds(1))
    await persister.waitForWrites(1)
    #expect(persister.removals == 1)
    #expect(persister.data == nil)
  }

  @Test(arguments: [
    ("garbage", Data("not a cache at all".utf8)),
    ("empty", Data()),
    ("header only", Data("SSQCACHE".utf8)),
  ])
  func aCacheThatIsNotOneIsDroppedAndReported(name: String, data: Data) async throws {
    let persister = MemoryCachePersister(data: data)
    let problems = ProblemLog()
    let restore = await SharedRegistry.current.queries.persistCache(
      persistence(persister, clock: ManualClock(), problems: problems))
    guard case .corrupt = restore.problem else {
      Issue.record("\(name): restored with \(restore.problem as Any)")
      return
    }
    #expect(restore.restored == 0)
    #expect(problems.all == [restore.problem].compactMap { $0 })
  }

  @Test func aTruncatedCacheIsCutAndTheStoreStartsWithoutItsTornFrame() async throws {
    let whole = try #require(try storedCache([(["posts", 1], "cached", .seconds(60))]).data)
    let persister = MemoryCachePersister(data: whole.prefix(whole.count - 3))
    let store = SharedRegistry.current.queries
    let restore = await store.persistCache(persistence(persister, clock: ManualClock()))
    guard case .cutShort(let droppedBytes, let reason) = restore.problem else {
      Issue.record("restored with \(restore.problem as Any)")
      return
    }
    #expect(reason.contains("cut short"))
    #expect(droppedBytes > 0 && droppedBytes < whole.count)
    #expect(store.cachedValue(for: ["posts", 1], as: String.self) == nil)
  }

  @Test func aCacheThePersisterCannotLoadIsReportedAndTheStoreStartsWithout() async throws {
    let persister = MemoryCachePersister()
    persister.setLoadError(MemoryCachePersister.Failure())
    let restore = await SharedRegistry.current.queries.persistCache(persistence(persister, clock: ManualClock()))
    #expect(restore.problem == .unreadable(reason: "the disk is full"))
  }

  @Test func aRestoredValueThatDoesNotDecodeAsTheQuerysIsDroppedReportedAndFetched() async throws {
    let persister = try storedCache([(["count"], "not a number", .seconds(60))])
    let problems = ProblemLog()
    let store = SharedRegistry.current.queries
    await store.persistCache(persistence(persister, clock: ManualClock(), problems: problems))
    let fetches = Counter()
    let query: Query<OperationState<Int>> = .query(["count"], options: queryStoreOptions(ManualClock())) {
      fetches.increment()
    }
    let count = Shared(wrappedValue: OperationState<Int>(), query)
    #expect(count.wrappedValue.value == nil)
    #expect(count.wrappedValue.status == .pending)
    guard case .undecodableValue(let key, _) = problems.all.first else {
      Issue.record("reported \(problems.all)")
      return
    }
    #expect(key == ["count"])
    #expect(try await store.fetch(query) == 1)
  }

  @Test func restoredValuesAreReadByCachedValueBeforeTheirQueryIsMade() async throws {
    let persister = try storedCache([(["posts", 1], "one", .seconds(60)), (["posts", 2], "two", .seconds(60))])
    let store = SharedRegistry.current.queries
    await store.persistCache(persistence(persister, clock: ManualClock()))
    #expect(!store.contains(["posts", 1]))
    #expect(store.cachedValue(for: ["posts", 1], as: String.self) == "one")
    #expect(store.cachedValue(for: ["posts", 1], as: Int.self) == nil)
    let values = store.cachedValues(matching: ["posts"], as: String.self).map(\.value).sorted()
    #expect(values == ["one", "two"])
  }

  @Test func anInvalidatedValueIsRestoredStaleAndRefetchedThoughYoung() async throws {
    let persister = try storedCache([(["posts", 1], "cached", .seconds(60))])
    let clock = ManualClock()
    let store = SharedRegistry.current.queries
    await store.persistCache(persistence(persister, clock: clock))
    store.invalidate(matching: ["posts"])
    try await store.flushPersistedCache()
    #expect(try persister.stored()?.entries.first?.isInvalidated == true)

    let registry = SharedRegistry()
    await registry.queries.persistCache(persistence(persister, clock: ManualClock()))
    let fetcher = KeyedFetcher()
    let post = inRegistry(registry) {
      Shared(
        wrappedValue: OperationState<String>(), fetcher.query(["posts", 1], "post", clock: ManualClock()))
    }
    #expect(post.wrappedValue.value == "cached")
    #expect(post.wrappedValue.isFetching)
    await waitForValue(post, "post 1")
    try await registry.queries.flushPersistedCache()
    #expect(try persister.stored()?.entries.first?.isInvalidated == false)
  }

  // MARK: Writing

  @Test func manyChangesWithinTheThrottleMakeOneWriteAfterIt() async throws {
    let persister = MemoryCachePersister()
    let clock = ManualClock()
    let store = SharedRegistry.current.queries
    await store.persistCache(persistence(persister, clock: clock))
    let fetcher = KeyedFetcher()
    let queryClock = ManualClock()
    for index in 1...5 {
      store.setFetchedValue("value \(index)", for: fetcher.query(["posts", index], "post", clock: queryClock))
    }
    await clock.waitForSleepers(1)
    clock.advance(by: .milliseconds(500))
    store.setFetchedValue("edited", for: fetcher.query(["posts", 1], "post", clock: queryClock))
    #expect(persister.writes == 0)
    #expect(clock.sleepers.map(\.wait) == [.cacheThrottle])  // The same wait: the throttle does not restart.
    clock.advance(by: .milliseconds(500))
    await persister.waitForWrites(1)
    #expect(try persister.storedKeys() == (1...5).map { "[\"posts\", \($0)]" })
    #expect(try persister.storedValue(["posts", 1], as: String.self) == "edited")
    try await store.flushPersistedCache()  // Nothing is left to write.
    #expect(persister.writes == 1)
    #expect(fetcher.count("post") == 0)
  }

  @Test func aFetchedValueIsPersistedWithTheTimeItWasFetched() async throws {
    let persister = MemoryCachePersister()
    let store = SharedRegistry.current.queries
    await store.persistCache(persistence(persister, clock: ManualClock()))
    let fetcher = KeyedFetcher()
    let before = Date()
    #expect(try await store.fetch(fetcher.query(["posts", 1], "post", clock: ManualClock())) == "post 1")
    try await store.flushPersistedCache()
    let after = Date()
    let entry = try #require(try persister.stored()?.entries.first)
    #expect(try entry.decodedValue(as: String.self) == "post 1")
    // The time is the value's own updatedAt, which the fetch set as it ended.
    #expect(entry.updatedAt.timeIntervalSince(before) > -0.001)
    #expect(after.timeIntervalSince(entry.updatedAt) > -0.001)
    #expect(!entry.isInvalidated)
  }

  @Test func aValueIsRestoredWithTheAgeOfItsUpdatedAtSoStaleTimeDecides() async throws {
    let persister = MemoryCachePersister()
    let store = SharedRegistry.current.queries
    await store.persistCache(persistence(persister, clock: ManualClock()))
    let fetcher = KeyedFetcher()
    let queryClock = ManualClock()
    let old = Shared(wrappedValue: OperationState<String>(), fetcher.query(["posts", 1], "old", clock: queryClock))
    let young = Shared(wrappedValue: OperationState<String>(), fetcher.query(["posts", 2], "young", clock: queryClock))
    await waitForValue(old, "old 1")
    await waitForValue(young, "young 1")
    // Obtained fifteen minutes ago: stale, as the queries stay fresh for ten.
    let fifteenMinutesAgo = Date(timeIntervalSinceNow: -900)
    store.setFetchedValue(
      "old 1", for: fetcher.query(["posts", 1], "old", clock: queryClock), updatedAt: fifteenMinutesAgo)
    store.setFetchedValue("young 2", for: fetcher.query(["posts", 2], "young", clock: queryClock))
    store.update(["posts", 1], as: OperationState<String>.self) { $0.value = "old 1, edited" }  // Its age stays.
    try await store.flushPersistedCache()
    withExtendedLifetime((old, young)) {}

    let registry = SharedRegistry()
    await registry.queries.persistCache(persistence(persister, clock: ManualClock()))
    let restarted = KeyedFetcher()
    let clock = ManualClock()
    let oldAgain = inRegistry(registry) {
      Shared(wrappedValue: OperationState<String>(), restarted.query(["posts", 1], "old", clock: clock))
    }
    let youngAgain = inRegistry(registry) {
      Shared(
        wrappedValue: OperationState<String>(), restarted.query(["posts", 2], "young", clock: clock))
    }
    #expect(oldAgain.wrappedValue.value == "old 1, edited")
    #expect(youngAgain.wrappedValue.value == "young 2")
    #expect(oldAgain.wrappedValue.isFetching)
    #expect(!youngAgain.wrappedValue.isFetching)
    await waitForValue(oldAgain, "old 1")
    #expect(restarted.count("young") == 0)
  }

  @Test func aRestoredValueKeepsItsUpdatedAtExactly() async throws {
    let persister = MemoryCachePersister()
    let store = SharedRegistry.current.queries
    await store.persistCache(persistence(persister, clock: ManualClock()))
    let fetcher = KeyedFetcher()
    let queryClock = ManualClock()
    #expect(try await store.fetch(fetcher.query(["posts", 1], "post", clock: queryClock)) == "post 1")
    let fetched = Shared(
      wrappedValue: OperationState<String>(), fetcher.query(["posts", 1], "post", clock: queryClock))
    let fetchedAt = try #require(fetched.wrappedValue.updatedAt)
    // A minute ago, with a fraction of a second that no reading of a clock rebuilds.
    let setAt = Date(
      timeIntervalSinceReferenceDate: (Date().timeIntervalSinceReferenceDate - 60).rounded() + 0.123_456_7)
    store.setFetchedValue("set", for: fetcher.query(["posts", 2], "set", clock: queryClock), updatedAt: setAt)
    queryClock.advance(by: .milliseconds(250))  // Time passes before the write.
    try await store.flushPersistedCache()
    withExtendedLifetime(fetched) {}
    let stored = try #require(try persister.stored())
    #expect(stored.entries.first { $0.key == ["posts", 1] }?.updatedAt == fetchedAt)
    #expect(stored.entries.first { $0.key == ["posts", 2] }?.updatedAt == setAt)

    // Restored, edited and written again by the restored store, twice: the dates do not move.
    for _ in 0..<2 {
      let registry = SharedRegistry()
      await registry.queries.persistCache(persistence(persister, clock: ManualClock()))
      let clock = ManualClock()
      let first = inRegistry(registry) {
        Shared(wrappedValue: OperationState<String>(), fetcher.query(["posts", 1], "post", clock: clock))
      }
      let second = inRegistry(registry) {
        Shared(wrappedValue: OperationState<String>(), fetcher.query(["posts", 2], "set", clock: clock))
      }
      #expect(first.wrappedValue.value == "post 1")
      #expect(first.wrappedValue.updatedAt == fetchedAt)
      #expect(second.wrappedValue.value == "set")
      #expect(second.wrappedValue.updatedAt == setAt)
      registry.queries.update(["posts", 1], as: OperationState<String>.self) { $0.value = "post 1" }
      registry.queries.update(["posts", 2], as: OperationState<String>.self) { $0.value = "set" }
      clock.advance(by: .milliseconds(250))
      await #expect(throws: Never.self) { try await registry.queries.flushPersistedCache() }
    }
    #expect(fetcher.count("post") == 1)
    #expect(fetcher.count("set") == 0)
  }

  @Test func aValueIsPersistedWithTheTimeItWasObtainedNotTheTimeALaterFetchFailed() async throws {
    let persister = MemoryCachePersister()
    let store = SharedRegistry.current.queries
    await store.persistCache(persistence(persister, clock: ManualClock()))
    let fetcher = KeyedFetcher()
    let queryClock = ManualClock()
    let post = Shared(
      wrappedValue: OperationState<String>(), fetcher.query(["posts", 1], "post", clock: queryClock))
    await waitForValue(post, "post 1")
    let obtainedAt = try #require(post.wrappedValue.dataUpdatedAt)
    // A refetch fails for good: the state changed since, its value did not.
    fetcher.setFailing(true)
    #expect(post.refetch())
    await waitUntil { post.wrappedValue.status == .error && !post.wrappedValue.isFetching }
    let failedAt = try #require(post.wrappedValue.errorUpdatedAt)
    #expect(post.wrappedValue.updatedAt == failedAt)
    #expect(post.wrappedValue.dataUpdatedAt == obtainedAt)
    try await store.flushPersistedCache()
    let stored = try #require(try persister.stored())
    #expect(stored.entries.first?.updatedAt == obtainedAt)

    let registry = SharedRegistry()
    await registry.queries.persistCache(persistence(persister, clock: ManualClock()))
    let restored = inRegistry(registry) {
      Shared(
        wrappedValue: OperationState<String>(), fetcher.query(["posts", 1], "post", clock: ManualClock()))
    }
    #expect(restored.wrappedValue.value == "post 1")
    #expect(restored.wrappedValue.dataUpdatedAt == obtainedAt)
    #expect(restored.wrappedValue.updatedAt == obtainedAt)
    #expect(restored.wrappedValue.errorUpdatedAt == nil)  // A failure is not persisted.
  }

  @Test func onlyTheQueriesTheFilterChoosesArePersistedOrRestored() async throws {
    let persister = try storedCache([(["users", 1], "user", .seconds(60)), (["posts", 9], "nine", .seconds(60))])
    let store = SharedRegistry.current.queries
    let filter = QueryFilter.prefix(["posts"]).satisfying { $0.parts.count == 2 }
    let restore = await store.persistCache(persistence(persister, clock: ManualClock(), filter: filter))
    #expect(restore == QueryCacheRestore(restored: 1, excluded: 1))
    let fetcher = KeyedFetcher()
    let clock = ManualClock()
    store.setFetchedValue("post", for: fetcher.query(["posts", 1], "post", clock: clock))
    store.setFetchedValue("comments", for: fetcher.query(["posts", 1, "comments"], "comments", clock: clock))
    store.setFetchedValue("user", for: fetcher.query(["users", 1], "user", clock: clock))
    let uncodable: Query<OperationState<UncodablePost>> = .query(["posts", 2], options: queryStoreOptions(clock)) {
      UncodablePost(title: "fetched")
    }
    store.setFetchedValue(UncodablePost(title: "set"), for: uncodable)
    try await store.flushPersistedCache()
    #expect(try persister.storedKeys() == ["[\"posts\", 1]", "[\"posts\", 9]"])
  }

  @Test func theValueWithoutTheOptimisticChangesOfAMutationUnderWayIsPersisted() async throws {
    let persister = MemoryCachePersister()
    let store = SharedRegistry.current.queries
    await store.persistCache(persistence(persister, clock: ManualClock()))
    let fetcher = KeyedFetcher()
    let query = fetcher.query(["posts", 1], "post", clock: ManualClock())
    store.setFetchedValue("saved", for: query)
    let held = Shared(wrappedValue: OperationState<String>(), query)
    let gate = Gate()
    let rename = OptimisticMutation { (title: String, cache: OptimisticCache) -> String in
      cache.update(
        ["posts", 1], as: OperationState<String>.self,
        OptimisticUpdate(apply: { $0.value = title }, rollback: { $0.value = "saved" }))
      return title
    }
    let mutation = Shared(value: MutationState<String, String>())
    let task = mutation.mutate("optimistic", optimistic: rename) { title in
      await gate.wait()
      return title
    }
    #expect(held.wrappedValue.value == "optimistic")
    store.setFetchedValue("fetched meanwhile", for: query)
    #expect(held.wrappedValue.value == "optimistic")
    try await store.flushPersistedCache()
    #expect(try persister.storedValue(["posts", 1], as: String.self) == "fetched meanwhile")
    gate.open()
    _ = try await task.value
  }

  @Test func aFailedWriteIsReportedThrownByFlushAndWrittenByTheNextFlush() async throws {
    let persister = MemoryCachePersister()
    let problems = ProblemLog()
    let store = SharedRegistry.current.queries
    await store.persistCache(persistence(persister, clock: ManualClock(), problems: problems))
    persister.setFailing(true)
    store.setFetchedValue("value", for: KeyedFetcher().query(["posts", 1], "post", clock: ManualClock()))
    await #expect(throws: QueryCacheProblem.unwritable(reason: "the disk is full")) {
      try await store.flushPersistedCache()
    }
    #expect(problems.all == [.unwritable(reason: "the disk is full")])
    persister.setFailing(false)
    try await store.flushPersistedCache()
    #expect(try persister.storedValue(["posts", 1], as: String.self) == "value")
  }

  @Test func aFlushDuringAWriteWaitsForItAndForOneOfTheChangesMadeSince() async throws {
    let persister = MemoryCachePersister()
    let store = SharedRegistry.current.queries
    await store.persistCache(persistence(persister, clock: ManualClock()))
    let fetcher = KeyedFetcher()
    let query = fetcher.query(["posts", 1], "post", clock: ManualClock())
    let gate = persister.holdWrites()
    store.setFetchedValue("first", for: query)
    let first = Task { try await store.flushPersistedCache() }
    await waitUntil { persister.begunWrites == 1 }
    store.setFetchedValue("second", for: query)  // During the write: the next write takes it.
    let second = Task { try await store.flushPersistedCache() }
    gate.open()
    try await first.value
    try await second.value
    #expect(persister.writes == 2)
    #expect(try persister.storedValue(["posts", 1], as: String.self) == "second")
  }

  @Test func aCancelledFlushStopsWaitingAndTheWriteGoesOn() async throws {
    let persister = MemoryCachePersister()
    let store = SharedRegistry.current.queries
    await store.persistCache(persistence(persister, clock: ManualClock()))
    let gate = persister.holdWrites()
    store.setFetchedValue("value", for: KeyedFetcher().query(["posts", 1], "post", clock: ManualClock()))
    let flush = Task { try await store.flushPersistedCache() }
    await waitUntil { persister.begunWrites == 1 }
    flush.cancel()
    await #expect(throws: CancellationError.self) { try await flush.value }
    #expect(persister.writes == 0)
    gate.open()
    await persister.waitForWrites(1)
    try await store.flushPersistedCache()
    #expect(persister.writes == 1)
    #expect(try persister.storedValue(["posts", 1], as: String.self) == "value")
  }

  @Test func concurrentFirstUsesOfRestoredQueriesEachShowTheirValueWithoutAFetch() async throws {
    let persister = try storedCache((0..<100).map { (["posts", $0], "cached \($0)", Duration.seconds(60)) })
    let store = SharedRegistry.current.queries
    await store.persistCache(persistence(persister, clock: ManualClock()))
    let fetcher = KeyedFetcher()
    let clock = ManualClock()
    let values = try await withThrowingTaskGroup(of: String.self) { group in
      for id in 0..<100 {
        group.addTask { try await store.fetch(fetcher.query(["posts", id], "post", clock: clock)) }
      }
      return try await group.reduce(into: []) { $0.append($1) }
    }
    #expect(values.sorted() == (0..<100).map { "cached \($0)" }.sorted())
    #expect(fetcher.count("post") == 0)
    #expect(store.count == 100)
  }

  @Test func aQuerysOwnInitialValueWinsOverAnOlderRestoredOne() async throws {
    let persister = try storedCache([(["posts", 1], "restored", .seconds(600))])
    let store = SharedRegistry.current.queries
    await store.persistCache(persistence(persister, clock: ManualClock()))
    let fetcher = KeyedFetcher()
    let query = fetcher.query(["posts", 1], "post", clock: ManualClock())
    let newer = Shared(wrappedValue: OperationState<String>(), query.initialValue("listed", updatedAt: Date()))
    #expect(newer.wrappedValue.value == "listed")
    store.remove(.exactly(["posts", 1]))
    let persisterAgain = try storedCache([(["posts", 1], "restored", .seconds(60))])
    let registry = SharedRegistry()
    await registry.queries.persistCache(persistence(persisterAgain, clock: ManualClock()))
    let older = inRegistry(registry) {
      Shared(
        wrappedValue: OperationState<String>(),
        query.initialValue("listed an hour ago", updatedAt: Date(timeIntervalSinceNow: -3_600)))
    }
    #expect(older.wrappedValue.value == "restored")
  }

  @Test func aRemovedOrResetQueryLeavesTheCacheAndAnEmptyCacheRemovesTheStoredOne() async throws {
    let persister = try storedCache([(["posts", 9], "restored", .seconds(60))])
    let store = SharedRegistry.current.queries
    await store.persistCache(persistence(persister, clock: ManualClock()))
    let fetcher = KeyedFetcher()
    let clock = ManualClock()
    store.setFetchedValue("one", for: fetcher.query(["posts", 1], "post", clock: clock))
    store.setFetchedValue("two", for: fetcher.query(["posts", 2], "post", clock: clock))
    try await store.flushPersistedCache()
    #expect(try persister.storedKeys() == ["[\"posts\", 1]", "[\"posts\", 2]", "[\"posts\", 9]"])
    store.reset(.exactly(["posts", 2]))
    store.remove(.prefix(["posts"]).satisfying { $0 != ["posts", 2] })
    try await store.flushPersistedCache()
    #expect(persister.data == nil)
    #expect(persister.removals == 1)
    #expect(store.cachedValue(for: ["posts", 9], as: String.self) == nil)
  }

  @Test func aRemovalByQueryConditionsTakesFromTheCacheOnlyTheQueriesItRemoved() async throws {
    let persister = try storedCache([(["posts", 9], "restored", .seconds(60))])  // Waits for its query.
    let store = SharedRegistry.current.queries
    await store.persistCache(persistence(persister, clock: ManualClock()))
    let fetcher = KeyedFetcher()
    let clock = ManualClock()
    let held = Shared(wrappedValue: OperationState<String>(), fetcher.query(["posts", 1], "held", clock: clock))
    await waitForValue(held, "held 1")
    store.setFetchedValue("two", for: fetcher.query(["posts", 2], "post", clock: clock))
    try await store.flushPersistedCache()
    #expect(try persister.storedKeys() == ["[\"posts\", 1]", "[\"posts\", 2]", "[\"posts\", 9]"])
    // The held query and the value waiting for its query are not inactive queries: their entries stay.
    #expect(store.remove(.prefix(["posts"]).only(.inactive)) == 1)
    try await store.flushPersistedCache()
    #expect(try persister.storedKeys() == ["[\"posts\", 1]", "[\"posts\", 9]"])
    #expect(store.invalidate(.prefix(["posts"]).matching { _ in false }) == 0)
  }

  @Test func removingThePersistedCacheForgetsItsValuesAndRemovesItAtOnce() async throws {
    let persister = try storedCache([(["posts", 9], "restored", .seconds(60))])
    let store = SharedRegistry.current.queries
    await store.persistCache(persistence(persister, clock: ManualClock()))
    try await store.removePersistedCache()
    #expect(persister.data == nil)
    #expect(store.cachedValue(for: ["posts", 9], as: String.self) == nil)
  }

  @Test func aCollectedQueryStaysInTheCacheAndStartsFromItWhenMadeAgain() async throws {
    let persister = MemoryCachePersister()
    let store = SharedRegistry.current.queries
    await store.persistCache(persistence(persister, clock: ManualClock()))
    let clock = ManualClock()
    let fetcher = KeyedFetcher()
    let options = QueryOptions(staleTime: .seconds(600), gcTime: .zero, operation: .retry(.none).clock(clock))
    let query: Query<OperationState<String>> = .query(["posts", 1], options: options) {
      try await fetcher.fetch("post")
    }
    store.setFetchedValue("kept", for: query)
    try await store.flushPersistedCache()
    // The store's garbage sweeper checks every second: time moves on until it collected the query.
    await waitUntil {
      clock.advance(by: .seconds(1))
      return !store.contains(["posts", 1])
    }
    let post = Shared(wrappedValue: OperationState<String>(), query)
    #expect(post.wrappedValue.value == "kept")
    #expect(!post.wrappedValue.isFetching)
    #expect(fetcher.count("post") == 0)
  }

  @Test func queriesMadeBeforeTheCacheIsRestoredArePersistedToo() async throws {
    let store = SharedRegistry.current.queries
    store.setFetchedValue("early", for: KeyedFetcher().query(["posts", 1], "post", clock: ManualClock()))
    let persister = MemoryCachePersister()
    await store.persistCache(persistence(persister, clock: ManualClock()))
    try await store.flushPersistedCache()
    #expect(try persister.storedValue(["posts", 1], as: String.self) == "early")
  }

  // MARK: Dehydrating and hydrating

  @Test func aDehydratedCacheHydratesAnotherStoreAndSurvivesEncoding() async throws {
    let clock = ManualClock()
    let fetcher = KeyedFetcher()
    let store = SharedRegistry.current.queries
    let post: Query<OperationState<CachedPost>> = .query(["posts", 1], options: queryStoreOptions(clock)) {
      CachedPost(id: 1, title: "fetched")
    }
    store.setFetchedValue(CachedPost(id: 1, title: "Hello"), for: post)
    store.setFetchedValue(
      "draft", for: fetcher.query(["drafts", UUID(), nil as Int?, true, 2.5], "draft", clock: clock))
    let uncodable: Query<OperationState<UncodablePost>> = .query(["other"], options: queryStoreOptions(clock)) {
      UncodablePost(title: "fetched")
    }
    store.setFetchedValue(UncodablePost(title: "left out"), for: uncodable)
    let unsupported: Query<OperationState<String>> = .query(["dates", Date()], options: queryStoreOptions(clock)) {
      "fetched"
    }
    store.setFetchedValue("left out", for: unsupported)

    let cache = store.dehydrate(version: "7")
    #expect(cache.version == "7")
    #expect(cache.entries.count == 2)
    #expect(try PersistedQueryCache(encoded: try cache.encoded()) == cache)
    #expect(try JSONDecoder().decode(PersistedQueryCache.self, from: try JSONEncoder().encode(cache)) == cache)
    #expect(store.dehydrate(.prefix(["posts"])).entries.map(\.key) == [["posts", 1]])

    let registry = SharedRegistry()
    #expect(registry.queries.hydrate(cache) == QueryCacheRestore(restored: 2))
    let held = inRegistry(registry) { Shared(wrappedValue: OperationState<CachedPost>(), post) }
    #expect(held.wrappedValue.value == CachedPost(id: 1, title: "Hello"))
    #expect(!held.wrappedValue.isFetching)
    #expect(registry.queries.dehydrate(version: "7").entries.count == 2)
  }

  @Test func hydratingReplacesAHeldValueOnlyWithANewerOne() async throws {
    let clock = ManualClock()
    let fetcher = KeyedFetcher()
    let store = SharedRegistry.current.queries
    // Fresh for a day: the held value is not refetched.
    let query: Query<OperationState<String>> = .query(
      ["posts", 1], options: queryStoreOptions(clock, staleTime: .seconds(86_400))
    ) { try await fetcher.fetch("post") }
    store.setFetchedValue("an hour old", for: query, updatedAt: Date(timeIntervalSinceNow: -3_600))
    let held = Shared(wrappedValue: OperationState<String>(), query)
    let older = try PersistedQueryCache.Entry(
      key: ["posts", 1], value: "two hours old", updatedAt: Date(timeIntervalSinceNow: -7_200))
    #expect(store.hydrate(PersistedQueryCache(entries: [older])) == QueryCacheRestore(restored: 0))
    #expect(held.wrappedValue.value == "an hour old")
    let newer = try PersistedQueryCache.Entry(
      key: ["posts", 1], value: "a minute old", updatedAt: Date(timeIntervalSinceNow: -60))
    #expect(store.hydrate(PersistedQueryCache(entries: [newer])) == QueryCacheRestore(restored: 1))
    #expect(held.wrappedValue.value == "a minute old")
    #expect(held.wrappedValue.updatedAt == newer.updatedAt)
    #expect(fetcher.count("post") == 0)
  }

  @Test func hydratingLeavesOutValuesOlderThanItsMaxAge() throws {
    let store = SharedRegistry.current.queries
    let old = try PersistedQueryCache.Entry(
      key: ["posts", 1], value: "old", updatedAt: Date(timeIntervalSinceNow: -7_200))
    let young = try PersistedQueryCache.Entry(key: ["posts", 2], value: "young", updatedAt: Date())
    let restore = store.hydrate(PersistedQueryCache(entries: [old, young]), maxAge: .seconds(3_600))
    #expect(restore == QueryCacheRestore(restored: 1, expired: 1))
    #expect(store.cachedValue(for: ["posts", 1], as: String.self) == nil)
    #expect(store.cachedValue(for: ["posts", 2], as: String.self) == "young")
  }
}
