import Foundation
import TestSupport
import Testing

@testable import SharedState

/// A paginated query in the persisted cache: its pages and their identifiers are written as one value, shown at
/// once after a relaunch, cut to the query's `maxPages`, and held to `maxAge`, the filter and the version like any
/// other value; pages that no longer decode are dropped and reported; a refetch replaces every page.
extension QueryStorePersistedCacheTests {
  /// A feed of pages of strings, 0 to `lastPage`; each page reads "`edition` p`id`", so that a refetched page
  /// shows apart from a restored one. Its fetches can be held.
  final class PagedFeed: Sendable {
    let edition: String
    let lastPage: Int
    let fetched = Collector<Int>()
    private let gate = Lock<Gate?>(nil)

    init(edition: String, lastPage: Int = 5) {
      self.edition = edition
      self.lastPage = lastPage
    }

    func hold() -> Gate {
      let held = Gate()
      gate.withLock { $0 = held }
      return held
    }

    func query(_ clock: ManualClock, maxPages: Int? = nil) -> Query<PaginatedState<Int, [String]>> {
      let lastPage = self.lastPage
      let nextPage: @Sendable ([String], Int) -> Int? = { _, id in id < lastPage ? id + 1 : nil }
      let previousPage: @Sendable ([String], Int) -> Int? = { _, id in id > 0 ? id - 1 : nil }
      return .paginatedQuery(
        ["feed"], initialPage: 0, nextPage: nextPage, previousPage: previousPage, maxPages: maxPages,
        options: queryStoreOptions(clock)
      ) { (id: Int) -> [String] in
        self.fetched.append(id)
        if let gate = self.gate.withLock({ $0 }) { await gate.wait() }
        return ["\(self.edition) p\(id)"]
      }
    }
  }

  private typealias Feed = PaginatedState<Int, [String]>

  /// A feed's value as the cache stores it: one JSON value, its pages in order, each with its identifier.
  struct StoredPages<PageID: Codable, Page: Codable>: Codable {
    struct Entry: Codable {
      var id: PageID
      var page: Page
    }

    var pages: [Entry]
    var hasNextPage: Bool
    var hasPreviousPage: Bool
  }

  /// The feed's pages `ids` as an edition shows them.
  private func pages(_ edition: String, _ ids: [Int]) -> [[String]] {
    ids.map { ["\(edition) p\($0)"] }
  }

  /// A stored cache holding the feed's pages `ids` of `edition`, obtained `age` ago.
  private func storedFeed(
    _ ids: [Int],
    edition: String = "old",
    age: Duration = .seconds(60),
    version: String = "1"
  ) throws -> MemoryCachePersister {
    let stored = StoredPages<Int, [String]>(
      pages: ids.map { .init(id: $0, page: ["\(edition) p\($0)"]) }, hasNextPage: true, hasPreviousPage: false)
    let entry = try PersistedQueryCache.Entry(
      key: ["feed"], value: stored, updatedAt: Date(timeIntervalSinceNow: -age.timeInterval))
    return try MemoryCachePersister(PersistedQueryCache(version: version, entries: [entry]))
  }

  /// Holds the feed of `feed` in the current registry, and loads its first pages `count` pages.
  private func loadFeed(_ feed: PagedFeed, clock: ManualClock, pages count: Int) async throws -> Shared<Feed> {
    let holder = Shared(wrappedValue: Feed(), feed.query(clock))
    _ = try await holder.fetchValue()
    for _ in 1..<count { _ = try await holder.fetchNextPage()?.value }
    return holder
  }

  @Test func aFeedsPagesArePersistedAndShowAtOnceAfterARelaunch() async throws {
    let persister = MemoryCachePersister()
    let clock = ManualClock()
    await SharedRegistry.current.queries.persistCache(persistence(persister, clock: ManualClock()))
    let before = Date()
    let holder = try await loadFeed(PagedFeed(edition: "first"), clock: clock, pages: 3)
    #expect(holder.wrappedValue.pageIDs == [0, 1, 2])
    try await SharedRegistry.current.queries.flushPersistedCache()
    let after = Date()
    let stored = try #require(try persister.stored()?.entries.first { $0.key == ["feed"] })
    let value = try stored.decodedValue(as: StoredPages<Int, [String]>.self)
    #expect(value.pages.map(\.id) == [0, 1, 2])
    #expect(value.pages.map(\.page) == pages("first", [0, 1, 2]))
    #expect(value.hasNextPage && !value.hasPreviousPage)
    withExtendedLifetime(holder) {}

    let registry = SharedRegistry()
    let relaunched = PagedFeed(edition: "second")
    let restore = await registry.queries.persistCache(persistence(persister, clock: ManualClock()))
    #expect(restore == QueryCacheRestore(restored: 1))
    let again = inRegistry(registry) { Shared(wrappedValue: Feed(), relaunched.query(ManualClock())) }
    #expect(again.wrappedValue.pageIDs == [0, 1, 2])
    #expect(again.wrappedValue.pages == pages("first", [0, 1, 2]))
    #expect(again.wrappedValue.hasNextPage)
    #expect(!again.wrappedValue.hasPreviousPage)
    #expect(again.wrappedValue.status == .success)
    // As old as the pages' fetch: the query's clock did not move since.
    let restoredAt = again.wrappedValue.updatedAt ?? .distantPast
    #expect(restoredAt.timeIntervalSince(before) > -0.001)
    #expect(after.timeIntervalSince(restoredAt) > -0.001)
    #expect(!again.wrappedValue.isFetching)  // Fresh: not fetched.
    // The restored cursors go on: the next page is the one after the last restored.
    _ = try? await again.fetchNextPage()?.value
    #expect(again.wrappedValue.pageIDs == [0, 1, 2, 3])
    #expect(relaunched.fetched.elements == [3])
  }

  @Test func aRestoredFeedIsAsOldAsItsLastFetchOfEveryPageNotItsLastNextPage() async throws {
    let persister = MemoryCachePersister()
    let clock = ManualClock()
    await SharedRegistry.current.queries.persistCache(persistence(persister, clock: ManualClock()))
    // The first page, then the next one 8 minutes later, and the cache written 4 minutes after that: the pages are
    // 12 minutes old, stale for a query fresh for ten, as a page added with fetchNextPage does not make them fresh.
    let holder = try await loadFeed(PagedFeed(edition: "first"), clock: clock, pages: 1)
    clock.advance(by: .seconds(480))
    _ = try await holder.fetchNextPage()?.value
    clock.advance(by: .seconds(240))
    #expect(holder.wrappedValue.pageIDs == [0, 1])
    try await SharedRegistry.current.queries.flushPersistedCache()
    withExtendedLifetime(holder) {}

    let registry = SharedRegistry()
    let relaunched = PagedFeed(edition: "second")
    await registry.queries.persistCache(persistence(persister, clock: ManualClock()))
    let again = inRegistry(registry) { Shared(wrappedValue: Feed(), relaunched.query(ManualClock())) }
    #expect(again.wrappedValue.pages == pages("first", [0, 1]))
    #expect(again.wrappedValue.isFetching)  // Stale: every page again.
    await waitForSettledSuccess(again)
    #expect(again.wrappedValue.pages == pages("second", [0, 1]))
    #expect(relaunched.fetched.elements == [0, 1])
  }

  @Test func aStaleRestoredFeedShowsWhileEveryPageIsRefetchedFromTheFirst() async throws {
    let persister = try storedFeed([2, 3, 4], age: .seconds(1_200))  // Twenty minutes: stale.
    await SharedRegistry.current.queries.persistCache(persistence(persister, clock: ManualClock()))
    let feed = PagedFeed(edition: "new")
    let gate = feed.hold()
    let holder = Shared(wrappedValue: Feed(), feed.query(ManualClock()))
    try #require(holder.wrappedValue.pages == pages("old", [2, 3, 4]))
    #expect(holder.wrappedValue.isFetching)
    await waitUntil { feed.fetched.elements == [2] }
    #expect(holder.wrappedValue.pages == pages("old", [2, 3, 4]))  // Not blank while the pages come.
    gate.open()
    await waitForSettledSuccess(holder)
    // As TanStack Query refetches: every page again, in order from the first page's identifier, replacing all.
    #expect(feed.fetched.elements == [2, 3, 4])
    #expect(holder.wrappedValue.pageIDs == [2, 3, 4])
    #expect(holder.wrappedValue.pages == pages("new", [2, 3, 4]))
    #expect(holder.wrappedValue.hasPreviousPage)
  }

  @Test func aRestoredFeedKeepsAtMostMaxPagesTheOnesARefetchWouldKeep() async throws {
    let persister = try storedFeed([0, 1, 2, 3])  // Written by a launch that kept every page.
    let store = SharedRegistry.current.queries
    await store.persistCache(persistence(persister, clock: ManualClock()))
    let feed = PagedFeed(edition: "new", lastPage: 1)
    let clock = ManualClock()
    let holder = Shared(wrappedValue: Feed(), feed.query(clock, maxPages: 2))
    #expect(holder.wrappedValue.pageIDs == [0, 1])
    #expect(holder.wrappedValue.pages == pages("old", [0, 1]))
    // The last page kept says, as the query's nextPage does, whether one follows it: here none does.
    #expect(!holder.wrappedValue.hasNextPage)
    #expect(!holder.wrappedValue.isFetching)
    _ = try await holder.refetchAll()?.value
    #expect(feed.fetched.elements == [0, 1])
    #expect(holder.wrappedValue.pages == pages("new", [0, 1]))
  }

  @Test func aFeedHydratedIntoAKeptOneKeepsAtMostMaxPages() async throws {
    let store = SharedRegistry.current.queries
    let query = PagedFeed(edition: "kept").query(ManualClock(), maxPages: 2)
    store.setFetchedState(for: query, updatedAt: Date(timeIntervalSinceNow: -600)) {
      $0.replacePages(ids: [0], pages: [["kept p0"]], hasNextPage: true, hasPreviousPage: false)
    }
    let stored = StoredPages<Int, [String]>(
      pages: [0, 1, 2].map { .init(id: $0, page: ["newer p\($0)"]) }, hasNextPage: true, hasPreviousPage: false)
    let cache = PersistedQueryCache(entries: [try .init(key: ["feed"], value: stored, updatedAt: Date())])
    #expect(store.hydrate(cache).restored == 1)
    let kept = try #require(store.cachedState(for: ["feed"], as: Feed.self))
    #expect(kept.pageIDs == [0, 1])
    #expect(kept.pages == pages("newer", [0, 1]))
    #expect(kept.hasNextPage)
  }

  @Test func aFeedOlderThanTheMaxAgeIsNotRestoredAndIsFetched() async throws {
    let persister = try storedFeed([0, 1], age: .seconds(7_200))
    let restore = await SharedRegistry.current.queries.persistCache(
      persistence(persister, clock: ManualClock(), maxAge: .seconds(3_600)))
    #expect(restore == QueryCacheRestore(restored: 0, expired: 1))
    let feed = PagedFeed(edition: "new")
    let holder = Shared(wrappedValue: Feed(), feed.query(ManualClock()))
    #expect(holder.wrappedValue.pageIDs.isEmpty)
    #expect(holder.wrappedValue.status == .pending)
    await waitForSettledSuccess(holder)
    #expect(holder.wrappedValue.pages == pages("new", [0]))
  }

  @Test func aFeedOfAnotherVersionIsNotRestored() async throws {
    let persister = try storedFeed([0, 1], version: "1")
    let restore = await SharedRegistry.current.queries.persistCache(
      persistence(persister, clock: ManualClock(), version: "2"))
    #expect(restore.restored == 0)
    let holder = Shared(wrappedValue: Feed(), PagedFeed(edition: "new").query(ManualClock()))
    #expect(holder.wrappedValue.pageIDs.isEmpty)
  }

  @Test func aFeedTheFilterLeavesOutIsNeitherPersistedNorRestored() async throws {
    let persister = try storedFeed([0, 1])
    let store = SharedRegistry.current.queries
    let restore = await store.persistCache(
      persistence(persister, clock: ManualClock(), filter: .prefix(["posts"])))
    #expect(restore == QueryCacheRestore(restored: 0, excluded: 1))
    let feed = PagedFeed(edition: "new")
    let holder = try await loadFeed(feed, clock: ManualClock(), pages: 2)
    #expect(holder.wrappedValue.pages == pages("new", [0, 1]))  // Fetched, not restored.
    store.setFetchedValue("post", for: KeyedFetcher().query(["posts", 1], "post", clock: ManualClock()))
    try await store.flushPersistedCache()
    #expect(try persister.storedKeys() == ["[\"posts\", 1]"])
  }

  @Test func aFeedWhosePageIdentifiersAreNotCodableIsNotPersisted() async throws {
    struct Cursor: Hashable, Sendable { var offset: Int }
    let persister = MemoryCachePersister()
    let problems = ProblemLog()
    let store = SharedRegistry.current.queries
    await store.persistCache(persistence(persister, clock: ManualClock(), problems: problems))
    let lastPage: @Sendable ([String], Cursor) -> Cursor? = { _, _ in nil }
    let query: Query<PaginatedState<Cursor, [String]>> = .paginatedQuery(
      ["cursors"], initialPage: Cursor(offset: 0), nextPage: lastPage, options: queryStoreOptions(ManualClock())
    ) { cursor in ["at \(cursor.offset)"] }
    #expect(try await store.fetch(query).pages == [["at 0"]])
    store.setFetchedValue("post", for: KeyedFetcher().query(["posts", 1], "post", clock: ManualClock()))
    try await store.flushPersistedCache()
    #expect(try persister.storedKeys() == ["[\"posts\", 1]"])
    #expect(problems.all.isEmpty)
  }

  @Test(arguments: ["page identifiers", "pages"])
  func aFeedWhoseStoredShapeChangedIsDroppedReportedAndFetched(changed: String) async throws {
    let value: any Encodable =
      changed == "pages"
      ? StoredPages<Int, [Int]>(pages: [.init(id: 0, page: [7])], hasNextPage: true, hasPreviousPage: false)
      : StoredPages<String, [String]>(
        pages: [.init(id: "zero", page: ["old"])], hasNextPage: true, hasPreviousPage: false)
    let entry = try PersistedQueryCache.Entry(key: ["feed"], value: value, updatedAt: Date())
    let persister = try MemoryCachePersister(PersistedQueryCache(version: "1", entries: [entry]))
    let problems = ProblemLog()
    await SharedRegistry.current.queries.persistCache(
      persistence(persister, clock: ManualClock(), problems: problems))
    let feed = PagedFeed(edition: "new")
    let holder = Shared(wrappedValue: Feed(), feed.query(ManualClock()))
    #expect(holder.wrappedValue.pageIDs.isEmpty, "\(changed)")
    #expect(holder.wrappedValue.status == .pending)
    guard case .undecodableValue(let key, _) = problems.all.first else {
      Issue.record("\(changed): reported \(problems.all)")
      return
    }
    #expect(key == ["feed"])
    await waitForSettledSuccess(holder)
    #expect(holder.wrappedValue.pages == pages("new", [0]))
  }
}
