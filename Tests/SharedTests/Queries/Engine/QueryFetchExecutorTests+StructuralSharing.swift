import Foundation
import TestSupport
import Testing

@testable import SharedState

/// A post the server sends as a new instance at each fetch: its identity tells which fetch the shown value came from.
private final class SharedPost: Identifiable, Equatable, Sendable {
  let id: Int
  let title: String

  init(_ id: Int, _ title: String) {
    self.id = id
    self.title = title
  }

  static func == (lhs: SharedPost, rhs: SharedPost) -> Bool { lhs.id == rhs.id && lhs.title == rhs.title }
}

/// A server whose fetches build new instances of the posts it holds now; its fetches can be held.
private final class SharedPostServer: Sendable {
  let titles = Lock<[Int: String]>([1: "one", 2: "two"])
  let fetches = Counter()
  private let gate = Lock<Gate?>(nil)

  func hold() -> Gate {
    let held = Gate()
    gate.withLock { $0 = held }
    return held
  }

  func posts() async -> [SharedPost] {
    fetches.increment()
    if let gate = gate.withLock({ $0 }) { await gate.wait() }
    return titles.withLock { titles in titles.keys.sorted().map { SharedPost($0, titles[$0]!) } }
  }

  func post() async -> SharedPost { await posts()[0] }

  func postQuery(_ clock: ManualClock, sharing: Bool = true) -> Query<OperationState<SharedPost>> {
    var options = queryStoreOptions(clock)
    options.structuralSharing = sharing
    return .query(["post"], options: options) { await self.post() }
  }

  func listQuery(_ clock: ManualClock) -> Query<OperationState<[SharedPost]>> {
    .query(["posts"], options: queryStoreOptions(clock)) { await self.posts() }
  }

  func feedQuery(_ clock: ManualClock) -> Query<PaginatedState<Int, [SharedPost]>> {
    let options = queryStoreOptions(clock)
    let nextPage: @Sendable ([SharedPost], Int) -> Int? = { _, id in id < 1 ? id + 1 : nil }
    return .paginatedQuery(["feed"], initialPage: 0, nextPage: nextPage, options: options) { (id: Int) in
      let posts = await self.posts()
      return id == 0 ? posts : [SharedPost(9, "archive")]
    }
  }
}

/// Holds `query` and waits for its first value (made in a plain function: see `HeldQuery`).
private func loaded<State: OperationTrackable>(_ initial: State, _ query: Query<State>) async -> Shared<State> {
  let holder = Shared(wrappedValue: initial, query)
  await waitForSettledSuccess(holder)
  return holder
}

/// Refetches `holder` and waits until the refetch has ended.
private func refetched<State: OperationTrackable>(_ holder: Shared<State>, clock: ManualClock) async {
  clock.advance(by: .seconds(1))
  let before = holder.wrappedValue.operation.dataUpdatedAt
  #expect(holder.refetch())
  var values = holder.values.makeAsyncIterator()
  while let state = await values.next(),
    state.operation.isFetching || !state.operation.status.isSuccess || state.operation.dataUpdatedAt == before
  {}
}

/// Structural sharing: a fetched value equal to the one shown keeps the shown instance, and a list keeps its
/// unchanged elements.
extension QueryFetchExecutorTests {
  @Test func anEqualRefetchKeepsTheShownInstanceAndShowsTheFetchEnded() async throws {
    let clock = ManualClock()
    let server = SharedPostServer()
    let post = await loaded(OperationState<SharedPost>(), server.postQuery(clock))
    let first = try #require(post.wrappedValue.value)
    let firstFetched = post.wrappedValue.operation.dataUpdatedAt
    await refetched(post, clock: clock)
    #expect(server.fetches.count == 2)
    #expect(post.wrappedValue.value === first)
    #expect(post.wrappedValue.operation.dataUpdatedAt != firstFetched)
    #expect(!post.wrappedValue.isFetching)
  }

  @Test func anEqualRefetchTellsNoObserverOfTheValueButTellsHoldersOfTheState() async throws {
    let clock = ManualClock()
    let server = SharedPostServer()
    let post = await loaded(OperationState<SharedPost>(), server.postQuery(clock))
    let titles = post.select { $0.value?.title }
    let selected = Collector<String?>()
    let selection = titles.observe { selected.append($0) }
    let ended = Collector<Bool>()
    let states = post.observe { state in if !state.isFetching { ended.append(true) } }
    await refetched(post, clock: clock)
    await waitUntil { !ended.elements.isEmpty }
    // Observers hear changes in order: had the equal refetch told the selection, it would come first.
    server.titles.withLock { $0[1] = "one, edited" }
    await refetched(post, clock: clock)
    await waitUntil { !selected.elements.isEmpty }
    #expect(selected.elements == ["one, edited"])
    withExtendedLifetime((selection, states)) {}
  }

  @Test func anUnequalRefetchShowsTheNewInstance() async throws {
    let clock = ManualClock()
    let server = SharedPostServer()
    let post = await loaded(OperationState<SharedPost>(), server.postQuery(clock))
    let first = try #require(post.wrappedValue.value)
    server.titles.withLock { $0[1] = "one, edited" }
    await refetched(post, clock: clock)
    #expect(post.wrappedValue.value !== first)
    #expect(post.wrappedValue.value?.title == "one, edited")
  }

  @Test func withoutStructuralSharingEveryRefetchShowsItsOwnInstance() async throws {
    let clock = ManualClock()
    let server = SharedPostServer()
    let post = await loaded(OperationState<SharedPost>(), server.postQuery(clock, sharing: false))
    let first = try #require(post.wrappedValue.value)
    await refetched(post, clock: clock)
    #expect(post.wrappedValue.value !== first)
    #expect(post.wrappedValue.value == first)
  }

  @Test func aRefetchedListKeepsTheElementsThatDidNotChange() async throws {
    let clock = ManualClock()
    let server = SharedPostServer()
    let list = await loaded(OperationState<[SharedPost]>(), server.listQuery(clock))
    let first = try #require(list.wrappedValue.value)
    server.titles.withLock { $0[2] = "two, edited" }
    await refetched(list, clock: clock)
    let second = try #require(list.wrappedValue.value)
    #expect(second.map(\.title) == ["one", "two, edited"])
    #expect(second[0] === first[0])
    #expect(second[1] !== first[1])
    // A post added keeps the others too.
    server.titles.withLock { $0[0] = "zero" }
    await refetched(list, clock: clock)
    let third = try #require(list.wrappedValue.value)
    #expect(third.map(\.id) == [0, 1, 2])
    #expect(third[1] === first[0])
    #expect(third[2] === second[1])
  }

  @Test func aRefetchedFeedKeepsThePagesThatDidNotChange() async throws {
    let clock = ManualClock()
    let server = SharedPostServer()
    let feed = await loaded(PaginatedState<Int, [SharedPost]>(), server.feedQuery(clock))
    _ = try await feed.fetchNextPage()?.value
    let pages = feed.wrappedValue.pages
    #expect(pages.count == 2)
    server.titles.withLock { $0[2] = "two, edited" }
    await refetched(feed, clock: clock)
    let refetched = feed.wrappedValue.pages
    #expect(refetched[0].map(\.title) == ["one", "two, edited"])
    #expect(refetched[0][0] === pages[0][0])
    #expect(refetched[0][1] !== pages[0][1])
    #expect(refetched[1][0] === pages[1][0])
  }

  @Test func anEqualRefetchUnderAnOptimisticChangeKeepsTheConfirmedInstanceAndTheChange() async throws {
    let clock = ManualClock()
    let server = SharedPostServer()
    let post = await loaded(OperationState<SharedPost>(), server.postQuery(clock))
    let first = try #require(post.wrappedValue.value)
    let cache = OptimisticCache(store: SharedRegistry.current.queries)
    let changed = cache.update(["post"], as: OperationState<SharedPost>.self) { $0.value = SharedPost(1, "draft") }
    #expect(changed == .updated)
    await refetched(post, clock: clock)
    // The change still shows over the confirmed value the refetch kept.
    #expect(post.wrappedValue.value?.title == "draft")
    cache.changes.undo()
    #expect(post.wrappedValue.value === first)
    #expect(!post.wrappedValue.isFetching)
  }

  @Test func anEqualRefetchThatAnInvalidationOvertakesKeepsTheInstanceThroughTheRefetchThatFollows() async throws {
    let clock = ManualClock()
    let server = SharedPostServer()
    let post = await loaded(OperationState<SharedPost>(), server.postQuery(clock))
    let first = try #require(post.wrappedValue.value)
    let gate = server.hold()
    #expect(post.refetch())
    await waitUntil { server.fetches.count == 2 }
    #expect(SharedRegistry.current.queries.invalidate(matching: ["post"]) == 1)
    gate.open()
    await waitUntil { server.fetches.count == 3 }
    await waitForSettledSuccess(post)
    #expect(post.wrappedValue.value === first)
    #expect(!post.wrappedValue.isFetching)
  }
}
