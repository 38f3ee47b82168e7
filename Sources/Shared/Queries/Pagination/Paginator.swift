/// How a paginated query finds and fetches its pages.
final class Paginator<PageID: Hashable & Sendable, Page: Sendable>: Sendable {
  let initialPage: PageID
  let nextPage: @Sendable (Page, PageID) -> PageID?
  let previousPage: @Sendable (Page, PageID) -> PageID?
  let fetch: @Sendable (PageID) async throws -> Page

  init(
    initialPage: PageID,
    nextPage: @escaping @Sendable (Page, PageID) -> PageID?,
    previousPage: @escaping @Sendable (Page, PageID) -> PageID?,
    fetch: @escaping @Sendable (PageID) async throws -> Page
  ) {
    self.initialPage = initialPage
    self.nextPage = nextPage
    self.previousPage = previousPage
    self.fetch = fetch
  }

  /// Fetches the loaded pages again: from the first, following ``nextPage``, until it returns `nil` or as many pages
  /// as are loaded were fetched (just the initial page when none is loaded).
  func refetchAll(_ current: PaginatedState<PageID, Page>) async throws -> PageUpdate<PageID, Page> {
    var walk = RefetchAllWalk(from: current.pageIDs.first ?? initialPage, limit: current.pageIDs.count)
    var pages: [Page] = []
    while true {
      switch walk.step {
      case .fetch(let id):
        let page = try await fetch(id)
        pages.append(page)
        walk.fetched(next: nextPage(page, id))
      case .finished(let next):
        // A walk fetches at least its first page before it finishes.
        let hasPrevious = previousPage(pages[0], walk.ids[0]) != nil
        return .all(ids: walk.ids, pages: pages, hasNext: next != nil, hasPrevious: hasPrevious)
      }
    }
  }
}
