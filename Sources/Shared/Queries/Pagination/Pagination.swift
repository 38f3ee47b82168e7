/// The shared state of a paginated query: the pages loaded so far, in order, and whether there are more.
///
/// ```swift
/// @Shared(
///   .paginatedQuery(["feed"], initialPage: 0, nextPage: { page, id in page.isEmpty ? nil : id + 1 }) { id in
///     try await api.feed(page: id)
///   }
/// ) var feed = PaginatedState<Int, [Post]>()
///
/// $feed.fetchNextPage()
/// feed.pages          // [[Post]], one element per page
/// feed.hasNextPage
/// ```
@dynamicMemberLookup
public struct PaginatedState<PageID: Hashable & Sendable, Page: Sendable>: OperationTrackable {
  /// The loaded pages, in order.
  public internal(set) var pages: [Page] = []
  /// The identifiers of the loaded pages, in the same order.
  public internal(set) var pageIDs: [PageID] = []
  /// Whether a page follows the last loaded one.
  public internal(set) var hasNextPage = false
  /// Whether a page comes before the first loaded one.
  public internal(set) var hasPreviousPage = false
  /// How the latest fetch went: status, error (by identity), attempt and time.
  public var operation = OperationTracking()

  /// No pages yet.
  public init() {}

  /// A member of ``operation``, read and written through the state: `feed.status`, `feed.error`, `feed.attempt`,
  /// `feed.updatedAt`.
  ///
  /// ```swift
  /// if feed.status.isPending { showSpinner() }
  /// ```
  ///
  /// - Parameter keyPath: The member of ``OperationTracking``.
  /// - Returns: Its value.
  @inlinable
  public subscript<Member>(dynamicMember keyPath: WritableKeyPath<OperationTracking, Member>) -> Member {
    get { operation[keyPath: keyPath] }
    set { operation[keyPath: keyPath] = newValue }
  }

  /// Puts a fetched page (or a full refetch) into the state.
  ///
  /// A page after or before the loaded ones is added at that end; a refetch of all pages replaces every page, so a
  /// page the server dropped, or a cursor it no longer hands out, does not survive it.
  ///
  /// ```swift
  /// feed.applySuccess(.next(id: 2, page: posts, hasNext: true))
  /// ```
  ///
  /// - Parameter update: What was fetched.
  public mutating func applySuccess(_ update: PageUpdate<PageID, Page>) {
    switch update {
    case .all(let ids, let pages, let hasNext, let hasPrevious):
      // The new chain, whole: a page the server dropped or a cursor it no longer hands out does not survive it.
      // Page fetches wait for a refetch of all pages, so no page fetched meanwhile is lost; one asked for during
      // it continues the new chain.
      pageIDs = ids
      self.pages = pages
      hasNextPage = hasNext
      hasPreviousPage = hasPrevious
    case .next(let id, let page, let hasNext):
      pageIDs.append(id)
      pages.append(page)
      hasNextPage = hasNext
    case .previous(let id, let page, let hasPrevious):
      pageIDs.insert(id, at: 0)
      pages.insert(page, at: 0)
      hasPreviousPage = hasPrevious
    case .none:
      break
    }
  }
}

/// What one fetch of a paginated query produced.
public enum PageUpdate<PageID: Hashable & Sendable, Page: Sendable>: Sendable {
  /// Every page, fetched again from the first; replaces the loaded pages.
  case all(ids: [PageID], pages: [Page], hasNext: Bool, hasPrevious: Bool)
  /// A page after the last one.
  case next(id: PageID, page: Page, hasNext: Bool)
  /// A page before the first one.
  case previous(id: PageID, page: Page, hasPrevious: Bool)
  /// Nothing: there was no page to fetch.
  case none
}

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

extension SharedKey {
  /// A paginated query named `key`: it starts with `initialPage`, and `nextPage` / `previousPage` name the pages
  /// around a loaded one (`nil`: there is none).
  ///
  /// - Parameters:
  ///   - key: The query's name.
  ///   - initialPage: The first page to load.
  ///   - nextPage: The page after a loaded page, or `nil` at the end.
  ///   - previousPage: The page before a loaded page, or `nil` at the start.
  ///   - options: Caching, refetching and retrying.
  ///   - fileID: Where the fetcher is written (filled in for you).
  ///   - line: The line of the fetcher (filled in for you).
  ///   - fetch: Fetches one page.
  /// - Returns: The query key.
  public static func paginatedQuery<PageID: Hashable & Sendable, Page: Sendable>(
    _ key: QueryKey,
    initialPage: PageID,
    nextPage: @escaping @Sendable (Page, PageID) -> PageID?,
    previousPage: @escaping @Sendable (Page, PageID) -> PageID? = { _, _ in nil },
    options: QueryOptions = QueryOptions(),
    fileID: String = #fileID,
    line: Int = #line,
    _ fetch: @escaping @Sendable (PageID) async throws -> Page
  ) -> Self where Self == Query<PaginatedState<PageID, Page>> {
    let paginator = Paginator(
      initialPage: initialPage, nextPage: nextPage, previousPage: previousPage, fetch: fetch)
    return Query(
      key: key, options: options,
      fetch: { shared, _ in try await paginator.refetchAll(shared.wrappedValue) },
      source: "\(fileID):\(line)", behavior: paginator)
  }
}

extension Shared {
  /// Fetches the page after the last loaded one, after the fetch already under way (a page, or a refetch of all
  /// pages, whose chain it then continues).
  ///
  /// ```swift
  /// let task = $feed.fetchNextPage()
  /// _ = try await task?.value
  /// ```
  ///
  /// A refetch of all pages under way (a new holder of a stale query, an invalidation) fetches every loaded page
  /// first; see ``QueryOptions/staleTime``. A cursor that leads back to a loaded page ends the pages.
  ///
  /// Cancelling the task stops this caller's wait at once, with a `CancellationError`; the page fetch is withdrawn
  /// if it still waits for its turn, or cancelled if it runs.
  ///
  /// - Returns: The fetch, or `nil` when this is not a paginated query.
  @discardableResult
  public func fetchNextPage<PageID: Hashable & Sendable, Page: Sendable>()
    -> OperationTask<PageUpdate<PageID, Page>>? where Value == PaginatedState<PageID, Page>
  {
    requestPages(.nextPage) { paginator, shared in
      let state = shared.wrappedValue
      guard let last = state.pages.last, let lastID = state.pageIDs.last else {
        return try await paginator.refetchAll(state)
      }
      // A cursor that leads back to a loaded page ends the pages.
      guard let id = paginator.nextPage(last, lastID), !state.pageIDs.contains(id) else { return .none }
      let page = try await paginator.fetch(id)
      let next = paginator.nextPage(page, id)
      return .next(id: id, page: page, hasNext: next.map { $0 != id && !state.pageIDs.contains($0) } ?? false)
    }
  }

  /// Fetches the page before the first loaded one, after the fetch already under way.
  ///
  /// Cancelling the task stops this caller's wait at once; the page fetch is withdrawn if it still waits for its
  /// turn, or cancelled if it runs.
  ///
  /// - Returns: The fetch, or `nil` when this is not a paginated query.
  @discardableResult
  public func fetchPreviousPage<PageID: Hashable & Sendable, Page: Sendable>()
    -> OperationTask<PageUpdate<PageID, Page>>? where Value == PaginatedState<PageID, Page>
  {
    requestPages(.previousPage) { paginator, shared in
      let state = shared.wrappedValue
      guard let first = state.pages.first, let firstID = state.pageIDs.first else {
        return try await paginator.refetchAll(state)
      }
      guard let id = paginator.previousPage(first, firstID), !state.pageIDs.contains(id) else { return .none }
      let page = try await paginator.fetch(id)
      let previous = paginator.previousPage(page, id)
      return .previous(
        id: id, page: page, hasPrevious: previous.map { $0 != id && !state.pageIDs.contains($0) } ?? false)
    }
  }

  /// Fetches the loaded pages again, after the fetch already under way: from the first page, following `nextPage`
  /// until it returns `nil` or as many pages as are loaded were fetched. The result replaces every page, so a page
  /// the server dropped goes, and new cursors replace old ones. Joins a refetch that is asked for or under way.
  ///
  /// Cancelling the task stops this caller's wait at once. The refetch itself is cancelled (or withdrawn, while
  /// it waits for its turn) only if nobody else needs it: not when another caller joined it, nor when an
  /// invalidation of a held query relies on it.
  ///
  /// - Returns: The fetch, or `nil` when this is not a paginated query.
  @discardableResult
  public func refetchAll<PageID: Hashable & Sendable, Page: Sendable>()
    -> OperationTask<PageUpdate<PageID, Page>>? where Value == PaginatedState<PageID, Page>
  {
    requestPages(.refresh) { paginator, shared in
      try await paginator.refetchAll(shared.wrappedValue)
    }
  }

  private func requestPages<PageID: Hashable & Sendable, Page: Sendable>(
    _ work: QueryRecordMachine.Work,
    _ body: @escaping @Sendable (Paginator<PageID, Page>, Self) async throws -> PageUpdate<PageID, Page>
  ) -> OperationTask<PageUpdate<PageID, Page>>? where Value == PaginatedState<PageID, Page> {
    let link = root.attachment(QueryLink.self, make: QueryLink.init)
    guard let paginator = link.behavior as? Paginator<PageID, Page>, let (store, key) = link.target else {
      return nil
    }
    return store.request(work, key: key, as: Value.self) { shared, _ in try await body(paginator, shared) }
  }
}

extension PageUpdate: Equatable where Page: Equatable {}
extension PaginatedState: Equatable where Page: Equatable {}
