/// How a paginated query finds and fetches its pages.
final class Paginator<PageID: Hashable & Sendable, Page: Sendable>: QueryPaging, Sendable {
  typealias State = PaginatedState<PageID, Page>

  let initialPage: PageID
  let nextPage: @Sendable (Page, PageID) -> PageID?
  let previousPage: @Sendable (Page, PageID) -> PageID?
  /// The most pages kept, or `nil` for no limit.
  let maxPages: Int?
  let fetch: @Sendable (PageID) async throws -> Page

  init(
    initialPage: PageID,
    nextPage: @escaping @Sendable (Page, PageID) -> PageID?,
    previousPage: @escaping @Sendable (Page, PageID) -> PageID?,
    maxPages: Int?,
    fetch: @escaping @Sendable (PageID) async throws -> Page
  ) {
    self.initialPage = initialPage
    self.nextPage = nextPage
    self.previousPage = previousPage
    self.maxPages = maxPages
    self.fetch = fetch
  }

  /// Does one attempt (numbered `attempt`) of one unit of page work into `shared`, from its state when the attempt
  /// began.
  ///
  /// A retry of a refetch of every page goes on from the page that failed: the pages fetched before it are kept.
  func fetch(
    _ work: QueryRecordMachine.Work,
    in shared: Shared<State>,
    attempt: Int
  ) async throws -> PageUpdate<PageID, Page> {
    let progress = shared.root.attachment(RefetchAllProgress<PageID, Page>.self, make: RefetchAllProgress.init)
    let (ticket, resumed) = progress.begin(attempt: attempt)
    let current = shared.wrappedValue
    let refetch = { try await self.refetchAll(current, resuming: resumed, progress: progress, ticket: ticket) }
    switch work {
    case .refresh: return try await refetch()
    case .nextPage: return try await fetchNextPage(after: current, orAll: refetch)
    case .previousPage: return try await fetchPreviousPage(before: current, orAll: refetch)
    }
  }

  /// Fetches the page after the last loaded one (all pages, through `refetchAll`, when none is loaded).
  private func fetchNextPage(
    after state: State,
    orAll refetchAll: () async throws -> PageUpdate<PageID, Page>
  ) async throws -> PageUpdate<PageID, Page> {
    guard let last = state.pages.last, let lastID = state.pageIDs.last else { return try await refetchAll() }
    // A cursor that leads back to a loaded page ends the pages.
    guard let id = nextPage(last, lastID), !state.pageIDs.contains(id) else { return .none }
    let page = try await fetch(id)
    let hasNext = nextPage(page, id).map { $0 != id && !state.pageIDs.contains($0) } ?? false
    guard let maxPages, state.pages.count >= maxPages else { return .next(id: id, page: page, hasNext: hasNext) }
    // Past the limit, the first pages go; the new first page says whether one comes before it.
    let dropped = state.pages.count + 1 - maxPages
    let ids = Array(state.pageIDs.dropFirst(dropped)) + [id]
    let pages = Array(state.pages.dropFirst(dropped)) + [page]
    let hasPrevious = previousPage(pages[0], ids[0]) != nil
    return .all(ids: ids, pages: pages, hasNext: hasNext, hasPrevious: hasPrevious)
  }

  /// Fetches the page before the first loaded one (all pages, through `refetchAll`, when none is loaded).
  private func fetchPreviousPage(
    before state: State,
    orAll refetchAll: () async throws -> PageUpdate<PageID, Page>
  ) async throws -> PageUpdate<PageID, Page> {
    guard let first = state.pages.first, let firstID = state.pageIDs.first else { return try await refetchAll() }
    guard let id = previousPage(first, firstID), !state.pageIDs.contains(id) else { return .none }
    let page = try await fetch(id)
    let hasPrevious = previousPage(page, id).map { $0 != id && !state.pageIDs.contains($0) } ?? false
    guard let maxPages, state.pages.count >= maxPages else {
      return .previous(id: id, page: page, hasPrevious: hasPrevious)
    }
    // Past the limit, the last pages go; the new last page says whether one comes after it.
    let kept = maxPages - 1
    let ids = [id] + Array(state.pageIDs.prefix(kept))
    let pages = [page] + Array(state.pages.prefix(kept))
    let hasNext = nextPage(pages[pages.count - 1], ids[ids.count - 1]) != nil
    return .all(ids: ids, pages: pages, hasNext: hasNext, hasPrevious: hasPrevious)
  }

  /// `state`, restored from a persisted cache, with the pages a refetch of every page would keep: the first
  /// ``maxPages`` (a cache written with a larger limit, or pages the program set, may hold more); the last page kept
  /// then says whether one comes after it. The program's code (``nextPage``): call outside every lock.
  func kept(restored state: State) -> State {
    guard let maxPages, state.pageIDs.count > maxPages else { return state }
    var kept = state
    let ids = Array(state.pageIDs.prefix(maxPages))
    let pages = Array(state.pages.prefix(maxPages))
    let hasNext = nextPage(pages[pages.count - 1], ids[ids.count - 1]) != nil
    kept.replacePages(ids: ids, pages: pages, hasNextPage: hasNext, hasPreviousPage: state.hasPreviousPage)
    return kept
  }

  /// Fetches the loaded pages again: from the first, following ``nextPage``, until it returns `nil` or as many pages
  /// as are loaded were fetched (just the initial page when none is loaded; never more than ``maxPages``).
  ///
  /// A walk that a failed page stopped is saved in `progress` under `ticket`; a retry passes it as `resumed`, and
  /// fetches that page again and goes on, keeping the pages fetched before it.
  private func refetchAll(
    _ current: State,
    resuming resumed: RefetchAllProgress<PageID, Page>.Saved?,
    progress: RefetchAllProgress<PageID, Page>,
    ticket: UInt64
  ) async throws -> PageUpdate<PageID, Page> {
    let limit = min(current.pageIDs.count, maxPages ?? .max)
    var run =
      resumed
      ?? RefetchAllProgress.Saved(
        walk: RefetchAllWalk(from: current.pageIDs.first ?? initialPage, limit: limit), pages: [])
    while true {
      switch run.walk.step {
      case .fetch(let id):
        let page: Page
        do {
          page = try await fetch(id)
        } catch {
          progress.save(run, ticket: ticket)
          throw error
        }
        run.pages.append(page)
        run.walk.fetched(next: nextPage(page, id))
      case .finished(let next):
        // A walk fetches at least its first page before it finishes.
        let hasPrevious = previousPage(run.pages[0], run.walk.ids[0]) != nil
        return .all(ids: run.walk.ids, pages: run.pages, hasNext: next != nil, hasPrevious: hasPrevious)
      }
    }
  }
}
