import Foundation
import Synchronization
import TestSupport
import Testing

@testable import SharedState

private struct PublishFailure: Error {}

/// A mutation's optimistic changes to cached queries: shown at once, kept through the queries' fetches while it
/// runs, kept when it succeeds, undone exactly when it fails or is cancelled, with its context handed to its
/// callbacks.
@Suite(.freshRegistry) struct OptimisticMutationTests {
  /// A feed of posts on a server the test changes; its page fetches can be held.
  private final class Server: Sendable {
    let posts = Lock<[Int]>([3, 2, 1])
    let fetches = Counter()
    private let gate = Lock<Gate?>(nil)

    func hold() -> Gate {
      let held = Gate()
      gate.withLock { $0 = held }
      return held
    }

    func release() { gate.withLock { $0 = nil } }

    func feed(_ clock: ManualClock) -> Query<PaginatedState<Int, [Int]>> {
      let options = QueryOptions(
        staleTime: .seconds(600), gcTime: .seconds(60), operation: OperationOptions(retry: .none, clock: clock))
      let nextPage: @Sendable ([Int], Int) -> Int? = { _, id in id < 1 ? id + 1 : nil }
      return .paginatedQuery(["feed"], initialPage: 0, nextPage: nextPage, options: options) { (id: Int) -> [Int] in
        self.fetches.increment()
        if let gate = self.gate.withLock({ $0 }) { await gate.wait() }
        // Page 0: the posts; page 1: an archive page.
        return id == 0 ? self.posts.withLock { $0 } : [0]
      }
    }
  }

  /// Inserts `post` at the top of the feed's first page, and takes it out again.
  private static func insert(_ post: Int) -> OptimisticUpdate<PaginatedState<Int, [Int]>> {
    OptimisticUpdate(
      apply: { feed in if !feed.pages.isEmpty { feed.pages[0].insert(post, at: 0) } },
      rollback: { feed in if !feed.pages.isEmpty { feed.pages[0].removeAll { $0 == post } } })
  }

  private static func publishing(_ post: Int) -> OptimisticMutation<Int, String> {
    OptimisticMutation { (post: Int, cache: OptimisticCache) -> String in
      let changed = cache.update(["feed"], as: PaginatedState<Int, [Int]>.self, insert(post))
      return changed.isUpdated ? "inserted \(post)" : "nothing cached"
    }
  }

  private func loadedFeed(_ server: Server, clock: ManualClock) async throws -> Shared<PaginatedState<Int, [Int]>> {
    let feed = Shared(wrappedValue: PaginatedState<Int, [Int]>(), server.feed(clock))
    _ = try await feed.fetchValue()
    return feed
  }

  @Test func aChangeShowsBeforeMutateReturnsAndAFailureUndoesItAndHandsOverTheContext() async throws {
    let clock = ManualClock()
    let server = Server()
    let feed = try await loadedFeed(server, clock: clock)
    let publish = Shared(value: MutationState<Int, Int>())
    let gate = Gate()
    let heard = Collector<String>()
    let task = publish.mutate(4, optimistic: Self.publishing(4)) { _ in
      await gate.wait()
      throw PublishFailure()
    } onError: { _, context in
      heard.append("onError \(context), feed \(feed.wrappedValue.pages[0])")
    } onSettled: { _, context in
      heard.append("onSettled \(context)")
    }
    #expect(feed.wrappedValue.pages == [[4, 3, 2, 1]])
    gate.open()
    _ = await task.result
    #expect(feed.wrappedValue.pages == [[3, 2, 1]])
    // The callbacks see the feed without the change, and get what the start step returned.
    #expect(heard.elements == ["onError inserted 4, feed [3, 2, 1]", "onSettled inserted 4"])
  }

  @Test func aSuccessKeepsTheChangeAndTheServersDataReplacesIt() async throws {
    let clock = ManualClock()
    let server = Server()
    let feed = try await loadedFeed(server, clock: clock)
    let publish = Shared(value: MutationState<Int, Int>())
    let contexts = Collector<String>()
    let task = publish.mutate(4, invalidates: [["feed"]], optimistic: Self.publishing(4)) { post in
      server.posts.withLock { $0.insert(post, at: 0) }
      return post
    } onSuccess: { _, context in
      contexts.append(context)
    }
    _ = try await task.value
    #expect(contexts.elements == ["inserted 4"])
    // The invalidation's refetch brings the server's feed, with the post in it once.
    await waitUntil { server.fetches.count == 2 && !feed.wrappedValue.isFetching }
    #expect(feed.wrappedValue.pages == [[4, 3, 2, 1]])
  }

  @Test func aFetchThatEndsWhileTheMutationRunsDoesNotWipeOutTheChange() async throws {
    let clock = ManualClock()
    let server = Server()
    let feed = try await loadedFeed(server, clock: clock)
    let publish = Shared(value: MutationState<Int, Int>())
    let fetchGate = server.hold()
    _ = feed.refetchAll()  // Under way as the mutation starts.
    await waitUntil { server.fetches.count == 2 }
    let mutationGate = Gate()
    let task = publish.mutate(4, optimistic: Self.publishing(4)) { _ in
      await mutationGate.wait()
      throw PublishFailure()
    }
    server.posts.withLock { $0.insert(9, at: 0) }  // The server changed meanwhile.
    fetchGate.open()
    await waitUntil { !feed.wrappedValue.isFetching }
    #expect(feed.wrappedValue.pages == [[4, 9, 3, 2, 1]])  // The server's data, with the change on top.
    mutationGate.open()
    _ = await task.result
    #expect(feed.wrappedValue.pages == [[9, 3, 2, 1]])
  }

  @Test func aPageFetchedWhileTheMutationRunsDoesNotRepeatTheChange() async throws {
    let clock = ManualClock()
    let server = Server()
    let feed = try await loadedFeed(server, clock: clock)
    let publish = Shared(value: MutationState<Int, Int>())
    let gate = Gate()
    let task = publish.mutate(4, optimistic: Self.publishing(4)) { post in
      await gate.wait()
      return post
    }
    _ = try await feed.fetchNextPage()?.value
    #expect(feed.wrappedValue.pages == [[4, 3, 2, 1], [0]])
    gate.open()
    _ = try await task.value
    #expect(feed.wrappedValue.pages == [[4, 3, 2, 1], [0]])
  }

  @Test func undoingOneMutationKeepsAnothersChange() async throws {
    let clock = ManualClock()
    let server = Server()
    let feed = try await loadedFeed(server, clock: clock)
    let first = Shared(value: MutationState<Int, Int>())
    let second = Shared(value: MutationState<Int, Int>())
    let firstGate = Gate()
    let secondGate = Gate()
    let failing = first.mutate(4, optimistic: Self.publishing(4)) { _ in
      await firstGate.wait()
      throw PublishFailure()
    }
    let succeeding = second.mutate(5, optimistic: Self.publishing(5)) { post in
      await secondGate.wait()
      return post
    }
    #expect(feed.wrappedValue.pages == [[5, 4, 3, 2, 1]])
    firstGate.open()
    _ = await failing.result
    #expect(feed.wrappedValue.pages == [[5, 3, 2, 1]])
    secondGate.open()
    _ = try await succeeding.value
    #expect(feed.wrappedValue.pages == [[5, 3, 2, 1]])
  }

  @Test func undoingLeavesTheFetchingFlagsAsTheyAreNow() async throws {
    let clock = ManualClock()
    let server = Server()
    let feed = try await loadedFeed(server, clock: clock)
    let publish = Shared(value: MutationState<Int, Int>())
    let mutationGate = Gate()
    let task = publish.mutate(4, optimistic: Self.publishing(4)) { _ in
      await mutationGate.wait()
      throw PublishFailure()
    }
    #expect(!feed.wrappedValue.isFetching)  // Not fetching when the change was made.
    let fetchGate = server.hold()
    _ = feed.refetchAll()
    await waitUntil { server.fetches.count == 2 }
    mutationGate.open()
    _ = await task.result
    #expect(feed.wrappedValue.pages == [[3, 2, 1]])
    #expect(feed.wrappedValue.isFetching)  // The refetch under way still shows.
    fetchGate.open()
    await waitUntil { !feed.wrappedValue.isFetching }
  }

  @Test func aCancelledMutationIsUndone() async throws {
    let clock = ManualClock()
    let server = Server()
    let feed = try await loadedFeed(server, clock: clock)
    let publish = Shared(value: MutationState<Int, Int>())
    let settled = Collector<String>()
    let task = publish.mutate(4, optimistic: Self.publishing(4)) { post in
      try await clock.sleep(for: .seconds(60))
      return post
    } onSettled: { result, context in
      if case .failure(let error) = result, error is CancellationError { settled.append("cancelled, \(context)") }
    }
    #expect(feed.wrappedValue.pages == [[4, 3, 2, 1]])
    task.cancel()
    _ = await task.result
    await waitUntil { !settled.elements.isEmpty }
    #expect(feed.wrappedValue.pages == [[3, 2, 1]])
    #expect(settled.elements == ["cancelled, inserted 4"])
  }

  @Test func aQueryTheStoreDoesNotKeepIsLeftAlone() async throws {
    let publish = Shared(value: MutationState<Int, Int>())
    let contexts = Collector<String>()
    _ = try await publish.mutate(4, optimistic: Self.publishing(4)) { post in
      post
    } onSuccess: { _, context in
      contexts.append(context)
    }.value
    #expect(contexts.elements == ["nothing cached"])
    #expect(!SharedRegistry.current.queries.contains(["feed"]))
  }
}
