public import Foundation

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
public struct PaginatedState<PageID: Hashable & Sendable, Page: Sendable>: OperationTrackable {
  /// The loaded pages, in order.
  public internal(set) var pages: [Page] = []
  /// The identifiers of the loaded pages, in the same order.
  public internal(set) var pageIDs: [PageID] = []
  /// Whether a page follows the last loaded one.
  public internal(set) var hasNextPage = false
  /// Whether a page comes before the first loaded one.
  public internal(set) var hasPreviousPage = false
  /// Where the latest fetch stands.
  public var operationStatus: OperationStatus = .idle
  /// The error of the last failed fetch, kept until the next success or a reset.
  public var error: (any Error)?
  /// The attempt of the running fetch, from 1.
  public var operationAttempt = 0
  /// When a fetch last changed this state.
  public var operationUpdatedAt: Date?

  /// No pages yet.
  public init() {}

  /// Puts a fetched page (or a full refetch) into the state.
  ///
  /// - Parameter update: What was fetched.
  public mutating func applySuccess(_ update: PageUpdate<PageID, Page>) {
    switch update {
    case .all(let ids, let pages, let hasNext, let hasPrevious):
      if pageIDs.isEmpty || pageIDs == ids {
        pageIDs = ids
        self.pages = pages
        hasNextPage = hasNext
        hasPreviousPage = hasPrevious
      } else {
        // Pages were added while this refetch ran: refresh the pages it fetched again and keep the others, so
        // a refetch never undoes a page fetch that settled before it.
        for (id, page) in zip(ids, pages) {
          if let index = pageIDs.firstIndex(of: id) { self.pages[index] = page }
        }
      }
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
  /// Every page, fetched again from the first.
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
  let options: QueryOptions

  init(
    initialPage: PageID,
    nextPage: @escaping @Sendable (Page, PageID) -> PageID?,
    previousPage: @escaping @Sendable (Page, PageID) -> PageID?,
    fetch: @escaping @Sendable (PageID) async throws -> Page,
    options: QueryOptions
  ) {
    self.initialPage = initialPage
    self.nextPage = nextPage
    self.previousPage = previousPage
    self.fetch = fetch
    self.options = options
  }

  /// Fetches every loaded page again, in order (just the initial page when none is loaded).
  func refetchAll(_ current: PaginatedState<PageID, Page>) async throws -> PageUpdate<PageID, Page> {
    var ids: [PageID] = []
    var pages: [Page] = []
    var id: PageID? = current.pageIDs.first ?? initialPage
    let count = max(1, current.pageIDs.count)
    while let pageID = id, pages.count < count {
      let page = try await fetch(pageID)
      ids.append(pageID)
      pages.append(page)
      id = nextPage(page, pageID)
    }
    let hasPrevious = pages.first.map { previousPage($0, ids[0]) != nil } ?? false
    return .all(ids: ids, pages: pages, hasNext: id != nil, hasPrevious: hasPrevious)
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
      initialPage: initialPage, nextPage: nextPage, previousPage: previousPage, fetch: fetch, options: options)
    return Query(
      key: key, options: options,
      fetch: { partial in try await paginator.refetchAll(partial.shared.wrappedValue) },
      source: "\(fileID):\(line)", behavior: paginator)
  }
}

extension Shared {
  /// Fetches the page after the last loaded one, after any page fetch already under way.
  ///
  /// - Returns: The fetch, or `nil` when this is not a paginated query.
  @discardableResult
  public func fetchNextPage<PageID: Hashable & Sendable, Page: Sendable>()
    -> OperationTask<PageUpdate<PageID, Page>>? where Value == PaginatedState<PageID, Page>
  {
    guard let paginator = paginator(PageID.self, Page.self) else { return nil }
    let shared = self
    return run(policy: .serial, retry: paginator.options.retry, clock: paginator.options.clock, isolation: nil) {
      let state = shared.wrappedValue
      guard let last = state.pages.last, let lastID = state.pageIDs.last else {
        return try await paginator.refetchAll(state)
      }
      guard let id = paginator.nextPage(last, lastID) else { return .none }
      let page = try await paginator.fetch(id)
      return .next(id: id, page: page, hasNext: paginator.nextPage(page, id) != nil)
    }
  }

  /// Fetches the page before the first loaded one, after any page fetch already under way.
  ///
  /// - Returns: The fetch, or `nil` when this is not a paginated query.
  @discardableResult
  public func fetchPreviousPage<PageID: Hashable & Sendable, Page: Sendable>()
    -> OperationTask<PageUpdate<PageID, Page>>? where Value == PaginatedState<PageID, Page>
  {
    guard let paginator = paginator(PageID.self, Page.self) else { return nil }
    let shared = self
    return run(policy: .serial, retry: paginator.options.retry, clock: paginator.options.clock, isolation: nil) {
      let state = shared.wrappedValue
      guard let first = state.pages.first, let firstID = state.pageIDs.first else {
        return try await paginator.refetchAll(state)
      }
      guard let id = paginator.previousPage(first, firstID) else { return .none }
      let page = try await paginator.fetch(id)
      return .previous(id: id, page: page, hasPrevious: paginator.previousPage(page, id) != nil)
    }
  }

  /// Fetches every loaded page again, in order, after any page fetch already under way.
  ///
  /// - Returns: The fetch, or `nil` when this is not a paginated query.
  @discardableResult
  public func refetchAll<PageID: Hashable & Sendable, Page: Sendable>()
    -> OperationTask<PageUpdate<PageID, Page>>? where Value == PaginatedState<PageID, Page>
  {
    guard let paginator = paginator(PageID.self, Page.self) else { return nil }
    let shared = self
    return run(policy: .serial, retry: paginator.options.retry, clock: paginator.options.clock, isolation: nil) {
      try await paginator.refetchAll(shared.wrappedValue)
    }
  }

  private func paginator<PageID: Hashable & Sendable, Page: Sendable>(
    _: PageID.Type,
    _: Page.Type
  ) -> Paginator<PageID, Page>? {
    root.attachment(QueryLink.self, make: QueryLink.init).behavior as? Paginator<PageID, Page>
  }
}
