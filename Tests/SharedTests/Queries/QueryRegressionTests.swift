import Foundation
import Synchronization
import TestSupport
import Testing

@testable import SharedState

/// Waits until the query shows a success with no fetch in flight (a refetch keeps the status success).
private func waitForSuccess<State: OperationTrackable>(_ shared: Shared<State>) async {
  var values = shared.values.makeAsyncIterator()
  while let state = await values.next(), !state.operation.status.isSuccess || state.operation.isFetching {}
}

@Suite(.freshRegistry) struct QueryRegressionTests {
  @Test func anInvalidationDuringAFetchIsNotUndoneByIt() async {
    let clock = ManualClock()
    let serverVersion = Lock(1)
    let gate = Lock<Gate?>(nil)
    let fetches = Counter()
    let options = QueryOptions(
      staleTime: .seconds(600), gcTime: .seconds(60), operation: OperationOptions(retry: .none, clock: clock))
    let registry = SharedRegistry.current
    let query: Query<OperationState<String>> = .query(["versioned"], options: options) {
      let version = serverVersion.withLock { $0 }
      fetches.increment()
      if let gate = gate.withLock({ $0 }) { await gate.wait() }
      return "v\(version)"
    }
    let first = Shared(wrappedValue: OperationState<String>(), query)
    await waitForSuccess(first)
    let held = Gate()
    gate.withLock { $0 = held }
    first.refetch()
    await waitUntil { fetches.count == 2 }  // In flight, having read version 1.
    serverVersion.withLock { $0 = 2 }
    registry.queries.invalidate(matching: ["versioned"])
    gate.withLock { $0 = nil }
    held.open()
    await waitUntil { first.wrappedValue.value == "v2" && first.wrappedValue.status.isSuccess }
    #expect(fetches.count == 3)
    let later = Shared(wrappedValue: OperationState<String>(), query)  // Fresh now: no fetch.
    #expect(later.wrappedValue.value == "v2")
    #expect(fetches.count == 3)
  }

  @Test func threeInvalidationsDuringOneRefetchEndOnAValueFetchedAfterTheLast() async {
    let clock = ManualClock()
    let serverVersion = Lock(1)
    let gate = Lock<Gate?>(nil)
    let fetches = Counter()
    let options = QueryOptions(
      staleTime: .seconds(600), gcTime: .seconds(60), operation: OperationOptions(retry: .none, clock: clock))
    let registry = SharedRegistry.current
    let query: Query<OperationState<String>> = .query(["thrice"], options: options) {
      let version = serverVersion.withLock { $0 }
      fetches.increment()
      if let gate = gate.withLock({ $0 }) { await gate.wait() }
      return "v\(version)"
    }
    let held = Shared(wrappedValue: OperationState<String>(), query)
    await waitForSuccess(held)
    var current = Gate()
    gate.withLock { $0 = current }
    held.refetch()
    for version in 2...4 {
      await waitUntil { fetches.count == version }  // In flight, having read version - 1.
      serverVersion.withLock { $0 = version }
      registry.queries.invalidate(matching: ["thrice"])
      let next = Gate()
      gate.withLock { $0 = version == 4 ? nil : next }
      current.open()
      current = next
    }
    await waitForSuccess(held)
    #expect(held.wrappedValue.value == "v4")
    #expect(fetches.count == 5)
  }

  @Test func refetchingAllPagesAfterTheServerDropsAPageDropsItToo() async throws {
    let server = FeedServer(pageCount: 3)
    let feed = Shared(wrappedValue: PaginatedState<Int, FeedServer.Page>(), server.query(["shrinks"]))
    await waitForSuccess(feed)
    _ = try await feed.fetchNextPage()?.value
    _ = try await feed.fetchNextPage()?.value
    #expect(feed.wrappedValue.pageIDs == [0, 1, 2])
    server.change(pageCount: 2)
    _ = try await feed.refetchAll()?.value
    #expect(feed.wrappedValue.pageIDs == [0, 1])
    #expect(feed.wrappedValue.pages.map(\.version) == [2, 2])
    #expect(!feed.wrappedValue.hasNextPage)
  }

  @Test func invalidatingPagesAfterTheServerDropsAPageDropsItToo() async throws {
    let server = FeedServer(pageCount: 3)
    let registry = SharedRegistry.current
    let feed = Shared(wrappedValue: PaginatedState<Int, FeedServer.Page>(), server.query(["shrinks"]))
    await waitForSuccess(feed)
    _ = try await feed.fetchNextPage()?.value
    _ = try await feed.fetchNextPage()?.value
    server.change(pageCount: 2)
    registry.queries.invalidate(matching: ["shrinks"])
    await waitUntil { feed.wrappedValue.status.isSuccess && feed.wrappedValue.pages.first?.version == 2 }
    #expect(feed.wrappedValue.pageIDs == [0, 1])
    #expect(feed.wrappedValue.pages.map(\.version) == [2, 2])
  }

  @Test func refetchingAllPagesFollowsNewCursors() async throws {
    let epoch = Lock(1)
    let options = QueryOptions(
      staleTime: .seconds(600), gcTime: .seconds(60), operation: OperationOptions(retry: .none, clock: ManualClock()))
    let nextPage: @Sendable (CursorPage, String) -> String? = { page, _ in page.next }
    let query: Query<PaginatedState<String, CursorPage>> = .paginatedQuery(
      ["cursors"], initialPage: "start", nextPage: nextPage, options: options
    ) { (cursor: String) -> CursorPage in
      let epoch = epoch.withLock { $0 }
      let position = cursor == "start" ? 0 : Int(cursor.split(separator: "-").last!)!
      return CursorPage(cursor: cursor, next: position < 2 ? "e\(epoch)-\(position + 1)" : nil)
    }
    let feed = Shared(wrappedValue: PaginatedState<String, CursorPage>(), query)
    await waitForSuccess(feed)
    _ = try await feed.fetchNextPage()?.value
    _ = try await feed.fetchNextPage()?.value
    #expect(feed.wrappedValue.pageIDs == ["start", "e1-1", "e1-2"])
    epoch.withLock { $0 = 2 }
    _ = try await feed.refetchAll()?.value
    #expect(feed.wrappedValue.pageIDs == ["start", "e2-1", "e2-2"])
    #expect(feed.wrappedValue.pages.map(\.cursor) == ["start", "e2-1", "e2-2"])
  }

  @Test func aUseBetweenGarbageChecksStartsAWholeGCTimeAgain() async {
    let clock = ManualClock()
    let options = QueryOptions(
      staleTime: .seconds(10_000), gcTime: .seconds(60), operation: OperationOptions(retry: .none, clock: clock))
    let registry = SharedRegistry.current
    let query: Query<OperationState<String>> = .query(["brief"], options: options) { "x" }
    do {
      let holder = Shared(wrappedValue: OperationState<String>(), query)
      await waitForSuccess(holder)
    }
    for _ in 0..<4 {
      await clock.waitForSleepers(1)
      clock.advance(by: .seconds(15))
    }
    await clock.waitForSleepers(1)
    do {
      let holder = Shared(wrappedValue: OperationState<String>(), query)  // A brief, fresh use.
      _ = holder.wrappedValue
    }
    clock.advance(by: .seconds(15))
    await waitUntil { clock.sleeperCount == 1 || !registry.queries.contains(["brief"]) }
    #expect(registry.queries.contains(["brief"]))
  }

  @Test func aPageAskedForDuringARefetchOfAllPagesContinuesTheNewChain() async throws {
    let clock = ManualClock()
    let gate = Lock<Gate?>(nil)
    let firstPageFetches = Counter()
    let options = QueryOptions(
      staleTime: .seconds(600), gcTime: .seconds(60), operation: OperationOptions(retry: .none, clock: clock))
    let registry = SharedRegistry.current
    let nextPage: @Sendable ([Int], Int) -> Int? = { _, id in id < 5 ? id + 1 : nil }
    let query: Query<PaginatedState<Int, [Int]>> = .paginatedQuery(
      ["pages"], initialPage: 0, nextPage: nextPage, options: options
    ) { (id: Int) -> [Int] in
      if id == 0 {
        firstPageFetches.increment()
        if let gate = gate.withLock({ $0 }) { await gate.wait() }
      }
      return [id]
    }
    let feed = Shared(wrappedValue: PaginatedState<Int, [Int]>(), query)
    await waitForSuccess(feed)
    let held = Gate()
    gate.withLock { $0 = held }
    registry.queries.invalidate(matching: ["pages"])  // Refetches every page; held at page 0.
    await waitUntil { firstPageFetches.count == 2 }
    let next = feed.fetchNextPage()  // Waits for the refetch, then continues its chain.
    #expect(feed.wrappedValue.pages == [[0]])
    held.open()
    _ = try await next?.value
    #expect(feed.wrappedValue.pages == [[0], [1]])
    #expect(feed.wrappedValue.status.isSuccess)
    #expect(firstPageFetches.count == 2)
  }

  @Test func cancellingARefetchThatAnInvalidationJoinedStillRefreshesTheHeldQuery() async throws {
    let version = Lock(1)
    let gate = Lock<Gate?>(nil)
    let fetches = Counter()
    let registry = SharedRegistry.current
    let options = QueryOptions(
      staleTime: .seconds(600), gcTime: .seconds(60), operation: OperationOptions(retry: .none, clock: ManualClock()))
    let nextPage: @Sendable (VersionedPage, Int) -> Int? = { _, id in id < 1 ? id + 1 : nil }
    let query: Query<PaginatedState<Int, VersionedPage>> = .paginatedQuery(
      ["joined"], initialPage: 0, nextPage: nextPage, options: options
    ) { (id: Int) -> VersionedPage in
      let page = VersionedPage(id: id, version: version.withLock { $0 })
      fetches.increment()
      if let gate = gate.withLock({ $0 }) { await gate.wait() }
      return page
    }
    let feed = Shared(wrappedValue: PaginatedState<Int, VersionedPage>(), query)
    await waitForSuccess(feed)
    let held = Gate()
    gate.withLock { $0 = held }
    let next = feed.fetchNextPage()  // Runs, held at the gate.
    await waitUntil { fetches.count == 2 }
    let refetch = feed.refetchAll()  // Waits behind the page.
    version.withLock { $0 = 2 }
    registry.queries.invalidate(matching: ["joined"])  // Served by the refetch that waits.
    refetch?.cancel()  // Its caller leaves; the invalidation still needs it.
    gate.withLock { $0 = nil }
    held.open()
    _ = try await next?.value
    await waitUntil { feed.wrappedValue.status.isSuccess && feed.wrappedValue.pages.allSatisfy { $0.version == 2 } }
    #expect(feed.wrappedValue.pages.map(\.version) == [2, 2])
  }

  @Test func aQueryInvalidatedDuringEveryFetchShowsEachFetchedValue() async {
    let version = Lock(1)
    let gate = Lock(Gate())
    let fetches = Counter()
    let registry = SharedRegistry.current
    let options = QueryOptions(
      staleTime: .seconds(600), gcTime: .seconds(60), operation: OperationOptions(retry: .none, clock: ManualClock()))
    let query: Query<OperationState<String>> = .query(["restless"], options: options) {
      let read = version.withLock { $0 }
      fetches.increment()
      await gate.withLock { $0 }.wait()
      return "v\(read)"
    }
    let held = Shared(wrappedValue: OperationState<String>(), query)
    for round in 1...2 {
      await waitUntil { fetches.count == round }  // In flight, having read version `round`.
      version.withLock { $0 = round + 1 }
      registry.queries.invalidate(matching: ["restless"])
      let current = gate.withLock { gate in
        defer { gate = Gate() }
        return gate
      }
      current.open()
      await waitUntil { fetches.count == round + 1 }
      // The value fetched before the invalidation shows while the next fetch runs.
      #expect(held.wrappedValue.value == "v\(round)")
      #expect(held.wrappedValue.status == .success)
      #expect(held.wrappedValue.isFetching)
    }
    gate.withLock { $0 }.open()
    await waitForSuccess(held)
    #expect(held.wrappedValue.value == "v3")
    #expect(fetches.count == 3)
  }

  @Test func aCancelledQueuedPageFetchSettlesWithoutWaitingForTheFetchAhead() async throws {
    let gate = Lock<Gate?>(nil)
    let fetches = Counter()
    let options = QueryOptions(
      staleTime: .seconds(600), gcTime: .seconds(60), operation: OperationOptions(retry: .none, clock: ManualClock()))
    let nextPage: @Sendable ([Int], Int) -> Int? = { _, id in id < 5 ? id + 1 : nil }
    let query: Query<PaginatedState<Int, [Int]>> = .paginatedQuery(
      ["queued"], initialPage: 0, nextPage: nextPage, options: options
    ) { (id: Int) -> [Int] in
      fetches.increment()
      if let gate = gate.withLock({ $0 }) { await gate.wait() }
      return [id]
    }
    let feed = Shared(wrappedValue: PaginatedState<Int, [Int]>(), query)
    await waitForSuccess(feed)
    let held = Gate()
    gate.withLock { $0 = held }
    let running = feed.fetchNextPage()
    await waitUntil { fetches.count == 2 }
    let queued = feed.fetchPreviousPage()  // A next page would join the running one.
    let refetch = feed.refetchAll()
    let joined = feed.refetchAll()  // Joins `refetch`.
    let settled = Counter()
    let results = Task {
      queued?.cancel()
      let queuedResult = await queued?.result
      settled.increment()
      joined?.cancel()
      let joinedResult = await joined?.result
      settled.increment()
      return (queuedResult, joinedResult)
    }
    await waitUntil { settled.count == 2 }  // Before the page ahead returns.
    #expect(fetches.count == 2)
    gate.withLock { $0 = nil }
    held.open()
    let (queuedResult, joinedResult) = await results.value
    #expect(throws: CancellationError.self) { try queuedResult?.get() }
    #expect(throws: CancellationError.self) { try joinedResult?.get() }
    _ = try await running?.value
    _ = try await refetch?.value  // The caller who stayed gets the refetch.
    #expect(feed.wrappedValue.pageIDs == [0, 1])
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
    await waitForSuccess(feed)
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

  @Test func aCursorThatComesBackToALoadedPageEndsThePages() async throws {
    let options = QueryOptions(
      staleTime: .seconds(600), gcTime: .seconds(60), operation: OperationOptions(retry: .none, clock: ManualClock()))
    let nextPage: @Sendable (String, String) -> String? = { _, id in id == "a" ? "b" : "a" }  // b leads back to a.
    let query: Query<PaginatedState<String, String>> = .paginatedQuery(
      ["cycle"], initialPage: "a", nextPage: nextPage, options: options
    ) { (id: String) -> String in
      "page \(id)"
    }
    let feed = Shared(wrappedValue: PaginatedState<String, String>(), query)
    await waitForSuccess(feed)
    _ = try await feed.fetchNextPage()?.value
    #expect(feed.wrappedValue.pageIDs == ["a", "b"])
    #expect(!feed.wrappedValue.hasNextPage)
    _ = try await feed.fetchNextPage()?.value
    _ = try await feed.refetchAll()?.value
    #expect(!feed.wrappedValue.hasNextPage)
    _ = try await feed.fetchNextPage()?.value
    #expect(feed.wrappedValue.pageIDs == ["a", "b"])
  }

  @Test func aFailedFetchIsRetriedShowingEachAttemptAndAThrownCancellationIsAFailureNotRetried() async {
    let clock = ManualClock()
    let attempts = Counter()
    let retry = RetryPolicy.exponential(retries: 2, initial: .seconds(1), multiplier: 2, maxDelay: .seconds(4))
    let options = QueryOptions(
      staleTime: .seconds(600), gcTime: .seconds(60), operation: OperationOptions(retry: retry, clock: clock))
    let query: Query<OperationState<String>> = .query(["retried"], options: options) {
      if attempts.increment() < 3 { throw TestFailure() }
      return "ok"
    }
    let held = Shared(wrappedValue: OperationState<String>(), query)
    for attempt in 1...2 {
      await clock.waitForSleepers(waitingFor: .retryBackoff)
      await clock.waitForSleepers(waitingFor: .garbageCheck)
      #expect(attempts.count == attempt)
      #expect(clock.sleepers.map(\.wait) == [.retryBackoff, .garbageCheck])
      #expect(held.wrappedValue.attempt == attempt)
      #expect(held.wrappedValue.status == .pending)
      clock.advance(by: .seconds(4))
    }
    await waitForSuccess(held)
    #expect(held.wrappedValue.value == "ok")
    #expect(held.wrappedValue.attempt == 3)
    let cancels = Counter()
    let cancelling: Query<OperationState<String>> = .query(["cancelling"], options: options) {
      cancels.increment()
      throw CancellationError()
    }
    let other = Shared(wrappedValue: OperationState<String>(), cancelling)
    await waitUntil { cancels.count == 1 && other.wrappedValue.status != .pending }
    #expect(clock.sleepers.map(\.wait) == [.garbageCheck])  // The store's one garbage check; no retry wait.
    #expect(cancels.count == 1)
    // Not cancelled by anyone: a failure like any other error, as for operation runs.
    #expect(other.wrappedValue.status == .error)
    #expect(other.wrappedValue.error is CancellationError)
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
        await waitForSuccess(holder)
      }
    }
    await waitUntil { weakRegistry == nil && weakStore == nil }
    #expect(weakRegistry == nil)
    #expect(weakStore == nil)
  }
}

/// A paged server whose pages can change: every page knows the server version it was fetched at and whether it is
/// the last.
private final class FeedServer: Sendable {
  struct Page: Sendable, Equatable {
    let id: Int
    let version: Int
    let isLast: Bool
  }

  private let state: Lock<(pageCount: Int, version: Int)>

  init(pageCount: Int) {
    state = Lock((pageCount, 1))
  }

  func change(pageCount: Int) {
    state.withLock { $0 = (pageCount, $0.version + 1) }
  }

  func page(_ id: Int) -> Page {
    state.withLock { Page(id: id, version: $0.version, isLast: id >= $0.pageCount - 1) }
  }

  func query(_ key: QueryKey) -> Query<PaginatedState<Int, Page>> {
    let options = QueryOptions(
      staleTime: .seconds(600), gcTime: .seconds(60), operation: OperationOptions(retry: .none, clock: ManualClock()))
    let nextPage: @Sendable (Page, Int) -> Int? = { page, id in page.isLast ? nil : id + 1 }
    return .paginatedQuery(key, initialPage: 0, nextPage: nextPage, options: options) { (id: Int) -> Page in
      self.page(id)
    }
  }
}

private struct VersionedPage: Sendable, Equatable {
  let id: Int
  let version: Int
}

private struct CursorPage: Sendable, Equatable {
  let cursor: String
  let next: String?
}
