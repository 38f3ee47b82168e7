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

extension PageUpdate: Equatable where Page: Equatable {}
