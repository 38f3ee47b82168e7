/// What one fetch of a paginated query produced.
public enum PageUpdate<PageID: Hashable & Sendable, Page: Sendable>: Sendable {
  /// Every page kept, in order; replaces the loaded pages. A refetch of all pages produces it, and so does a page
  /// fetch that went past the query's `maxPages` (its pages: the ones kept and the new one).
  case all(ids: [PageID], pages: [Page], hasNext: Bool, hasPrevious: Bool)
  /// A page after the last one.
  case next(id: PageID, page: Page, hasNext: Bool)
  /// A page before the first one.
  case previous(id: PageID, page: Page, hasPrevious: Bool)
  /// Nothing: there was no page to fetch.
  case none
}

extension PageUpdate: Equatable where Page: Equatable {}
