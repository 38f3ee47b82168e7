import TestSupport
import Testing

@testable import SharedState

/// A query's fetch as `QueryFetchExecutor` runs it: its retries (`+Retries`), the values it replaces, released after
/// the lock (`+Release`), and here its hand-over. A fetch invalidated while it runs writes its value and hands over to
/// the refetch that follows: the value shows fetching throughout, never idle between the two, whether a holder or an
/// awaiting caller started the fetch (the two write through different code: see `QueryValueWriter`).
@Suite(.freshRegistry) struct QueryFetchExecutorTests {
  private func query(_ fetcher: GatedFetcher, clock: ManualClock) -> Query<OperationState<String>> {
    .query(["post"], options: queryStoreOptions(clock)) { await fetcher.fetch() }
  }

  /// Lets the first fetch return after an invalidation, with the refetch held; returns the state the first fetch's
  /// value showed with.
  private func stateShowingTheFirstValue(
    of post: Shared<OperationState<String>>,
    fetcher: GatedFetcher,
    first: Gate
  ) async -> OperationState<String>? {
    var values = post.values(buffering: .all).makeAsyncIterator()
    #expect(SharedRegistry.current.queries.invalidate(matching: ["post"]) == 1)
    let second = fetcher.hold()
    first.open()
    defer { second.open() }
    while let state = await values.next() {
      if state.value == "fetch 1" { return state }
    }
    return nil
  }

  @Test func aHoldersFetchInvalidatedWhileItRunsShowsItsValueStillFetching() async throws {
    let clock = ManualClock()
    let fetcher = GatedFetcher()
    let first = fetcher.hold()
    let post = Shared(wrappedValue: OperationState<String>(), query(fetcher, clock: clock))
    await waitUntil { fetcher.fetches.count == 1 }
    let shown = try #require(await stateShowingTheFirstValue(of: post, fetcher: fetcher, first: first))
    #expect(shown.status == .success)
    #expect(shown.isFetching)
    await waitForValue(post, "fetch 2")
  }

  @Test func aCallersFetchInvalidatedWhileItRunsShowsItsValueStillFetching() async throws {
    let clock = ManualClock()
    let fetcher = GatedFetcher()
    let first = fetcher.hold()
    let store = SharedRegistry.current.queries
    let caller = Task { try await store.fetch(query(fetcher, clock: clock)) }
    await waitUntil { fetcher.fetches.count == 1 }
    let post = Shared(wrappedValue: OperationState<String>(), query(fetcher, clock: clock))  // Joins the fetch.
    let shown = try #require(await stateShowingTheFirstValue(of: post, fetcher: fetcher, first: first))
    #expect(shown.status == .success)
    #expect(shown.isFetching)
    #expect(try await caller.value == "fetch 1")
    await waitForValue(post, "fetch 2")
    #expect(fetcher.fetches.count == 2)
  }

  @Test func theValueStaysFetchingFromOneQueuedFetchToTheNext() async throws {
    let gate = Lock<Gate?>(nil)
    let fetches = Counter()
    let options = QueryOptions(
      staleTime: .seconds(600), gcTime: .seconds(60), operation: OperationOptions(retry: .none, clock: ManualClock()))
    let nextPage: @Sendable ([Int], Int) -> Int? = { _, id in id < 5 ? id + 1 : nil }
    let query: Query<PaginatedState<Int, [Int]>> = .paginatedQuery(
      ["steady"], initialPage: 0, nextPage: nextPage, options: options
    ) { (id: Int) -> [Int] in
      fetches.increment()
      if let gate = gate.withLock({ $0 }) { await gate.wait() }
      return [id]
    }
    let feed = Shared(wrappedValue: PaginatedState<Int, [Int]>(), query)
    await waitForSettledSuccess(feed)
    let held = Gate()
    gate.withLock { $0 = held }
    let statuses = Collector<Bool>()
    let token = feed.observe { statuses.append($0.isFetching) }
    let first = feed.fetchNextPage()
    await waitUntil { fetches.count == 2 }
    let second = feed.refetchAll()  // Queued behind the page (another next page would join it).
    gate.withLock { $0 = nil }
    held.open()
    _ = try await first?.value
    _ = try await second?.value
    #expect(feed.wrappedValue.pageIDs == [0, 1])
    #expect(fetches.count == 4)
    // Fetching from the first fetch to the end of the second, never idle in between; the status stays success.
    let changes = statuses.elements.reduce(into: [Bool]()) { changes, isFetching in
      if changes.last != isFetching { changes.append(isFetching) }
    }
    #expect(changes.drop { !$0 } == [true, false])
    #expect(feed.wrappedValue.status == .success)
    withExtendedLifetime(token) {}
  }
}
