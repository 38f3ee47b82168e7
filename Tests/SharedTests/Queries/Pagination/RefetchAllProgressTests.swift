import Foundation
import Synchronization
import TestSupport
import Testing

@testable import SharedState

/// A refetch of every page retries a page that fails on its own, with the query's retry policy.
@Suite(.freshRegistry) struct RefetchAllProgressTests {
  /// Pages 0, 1 and 2; the fetcher records every page it fetches and fails while `failing` says so.
  private final class Server: Sendable {
    let fetched = Collector<Int>()
    /// How many more times each page fails.
    let failing = Lock<[Int: Int]>([:])

    func fetch(_ id: Int) throws -> [Int] {
      fetched.append(id)
      let fails = failing.withLock { failing -> Bool in
        guard let left = failing[id], left > 0 else { return false }
        failing[id] = left - 1
        return true
      }
      if fails { throw TestFailure() }
      return [id]
    }

    func query(retries: Int, clock: ManualClock) -> Query<PaginatedState<Int, [Int]>> {
      let options = QueryOptions(
        staleTime: .seconds(600), gcTime: .seconds(60),
        operation: OperationOptions(retry: .constant(retries: retries, delay: .seconds(1)), clock: clock))
      let nextPage: @Sendable ([Int], Int) -> Int? = { _, id in id < 2 ? id + 1 : nil }
      return .paginatedQuery(["retried"], initialPage: 0, nextPage: nextPage, options: options) { id in
        try self.fetch(id)
      }
    }
  }

  /// Loads pages 0, 1 and 2.
  private func loadThreePages(_ feed: Shared<PaginatedState<Int, [Int]>>) async throws {
    var values = feed.values.makeAsyncIterator()
    while let state = await values.next(), !state.status.isSuccess {}
    _ = try await feed.fetchNextPage()?.value
    _ = try await feed.fetchNextPage()?.value
  }

  @Test func aRefetchOfAllPagesRetriesOnlyThePageThatFailed() async throws {
    let clock = ManualClock()
    let server = Server()
    let feed = Shared(wrappedValue: PaginatedState<Int, [Int]>(), server.query(retries: 3, clock: clock))
    try await loadThreePages(feed)
    #expect(feed.wrappedValue.pageIDs == [0, 1, 2])
    let before = server.fetched.elements.count
    server.failing.withLock { $0[2] = 2 }
    let refetch = feed.refetchAll()
    for _ in 1...2 {
      await clock.waitForSleepers(2)  // The garbage check and the wait before the retry.
      clock.advance(by: .seconds(1))
    }
    _ = try await refetch?.value
    // 0, 1, 2 failing twice, 2 again: 5 fetches where restarting the walk took 9.
    #expect(Array(server.fetched.elements.dropFirst(before)) == [0, 1, 2, 2, 2])
    #expect(feed.wrappedValue.pageIDs == [0, 1, 2])
    #expect(feed.wrappedValue.pages == [[0], [1], [2]])
    #expect(feed.wrappedValue.status.isSuccess)
  }

  @Test func aRefetchAfterOneThatFailedForGoodStartsFromTheFirstPage() async throws {
    let clock = ManualClock()
    let server = Server()
    let feed = Shared(wrappedValue: PaginatedState<Int, [Int]>(), server.query(retries: 1, clock: clock))
    try await loadThreePages(feed)
    let before = server.fetched.elements.count
    server.failing.withLock { $0[1] = 2 }
    let failed = feed.refetchAll()
    await clock.waitForSleepers(2)
    clock.advance(by: .seconds(1))
    let result = await failed?.result
    #expect(throws: TestFailure.self) { try result?.get() }
    #expect(feed.wrappedValue.status == .error)
    #expect(feed.wrappedValue.pageIDs == [0, 1, 2])  // A failed refetch keeps the pages.
    _ = try await feed.refetchAll()?.value
    #expect(Array(server.fetched.elements.dropFirst(before)) == [0, 1, 1, 0, 1, 2])
    #expect(feed.wrappedValue.status.isSuccess)
  }

  @Test func aRetryResumesOnlyTheAttemptsOfItsOwnFetch() async {
    let progress = RefetchAllProgress<Int, [Int]>()
    let first = progress.begin(attempt: 1)
    var walk = RefetchAllWalk(from: 0, limit: 3)
    walk.fetched(next: 1)
    progress.save(.init(walk: walk, pages: [[0]]), ticket: first.ticket)
    let retry = progress.begin(attempt: 2)
    #expect(retry.resumed?.walk.step == .fetch(1))
    #expect(retry.resumed?.pages == [[0]])
    // The attempt a timeout left behind cannot change what the next retry resumes.
    progress.save(.init(walk: RefetchAllWalk(from: 5, limit: 1), pages: []), ticket: first.ticket)
    #expect(progress.begin(attempt: 3).resumed?.walk.step == .fetch(1))
    // The first attempt of another fetch forgets it.
    #expect(progress.begin(attempt: 1).resumed == nil)
    #expect(progress.begin(attempt: 2).resumed == nil)
  }
}
