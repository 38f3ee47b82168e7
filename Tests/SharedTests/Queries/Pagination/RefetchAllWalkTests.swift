import Foundation
import Synchronization
import TestSupport
import Testing

@testable import SharedState

/// A refetch of every loaded page walks the server's chain as it is now: pages it dropped go, new cursors are
/// followed, and a page asked for meanwhile continues the new chain.
@Suite(.freshRegistry) struct RefetchAllWalkTests {
  @Test func refetchingAllPagesAfterTheServerDropsAPageDropsItToo() async throws {
    let server = FeedServer(pageCount: 3)
    let feed = Shared(wrappedValue: PaginatedState<Int, FeedServer.Page>(), server.query(["shrinks"]))
    await waitForSettledSuccess(feed)
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
    await waitForSettledSuccess(feed)
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
    await waitForSettledSuccess(feed)
    _ = try await feed.fetchNextPage()?.value
    _ = try await feed.fetchNextPage()?.value
    #expect(feed.wrappedValue.pageIDs == ["start", "e1-1", "e1-2"])
    epoch.withLock { $0 = 2 }
    _ = try await feed.refetchAll()?.value
    #expect(feed.wrappedValue.pageIDs == ["start", "e2-1", "e2-2"])
    #expect(feed.wrappedValue.pages.map(\.cursor) == ["start", "e2-1", "e2-2"])
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
    await waitForSettledSuccess(feed)
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

private struct CursorPage: Sendable, Equatable {
  let cursor: String
  let next: String?
}
