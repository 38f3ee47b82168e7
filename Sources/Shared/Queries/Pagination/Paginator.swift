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

  /// Does one unit of page work from `current`, the state when its turn came.
  func fetch(
    _ work: QueryRecordMachine.Work,
    from current: PaginatedState<PageID, Page>
  ) async throws -> PageUpdate<PageID, Page> {
    switch work {
    case .refresh: try await refetchAll(current)
    case .nextPage: try await fetchNextPage(after: current)
    case .previousPage: try await fetchPreviousPage(before: current)
    }
  }

  /// Fetches the page after the last loaded one (all pages when none is loaded).
  private func fetchNextPage(after state: PaginatedState<PageID, Page>) async throws -> PageUpdate<PageID, Page> {
    guard let last = state.pages.last, let lastID = state.pageIDs.last else {
      return try await refetchAll(state)
    }
    // A cursor that leads back to a loaded page ends the pages.
    guard let id = nextPage(last, lastID), !state.pageIDs.contains(id) else { return .none }
    let page = try await fetch(id)
    let next = nextPage(page, id)
    return .next(id: id, page: page, hasNext: next.map { $0 != id && !state.pageIDs.contains($0) } ?? false)
  }

  /// Fetches the page before the first loaded one (all pages when none is loaded).
  private func fetchPreviousPage(
    before state: PaginatedState<PageID, Page>
  ) async throws -> PageUpdate<PageID, Page> {
    guard let first = state.pages.first, let firstID = state.pageIDs.first else {
      return try await refetchAll(state)
    }
    guard let id = previousPage(first, firstID), !state.pageIDs.contains(id) else { return .none }
    let page = try await fetch(id)
    let previous = previousPage(page, id)
    return .previous(
      id: id, page: page, hasPrevious: previous.map { $0 != id && !state.pageIDs.contains($0) } ?? false)
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
