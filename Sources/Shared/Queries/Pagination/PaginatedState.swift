/// The shared state of a paginated query: the pages loaded so far, in order, and whether there are more.
///
/// ```swift
/// func showFeed(api: API) {
///   let nextPage: @Sendable ([Post], Int) -> Int? = { page, id in page.isEmpty ? nil : id + 1 }
///   @Shared(.paginatedQuery(["feed"], initialPage: 0, nextPage: nextPage) { id in try await api.feed(page: id) })
///   var feed = PaginatedState<Int, [Post]>()
///
///   $feed.fetchNextPage()
///   print(feed.pages, feed.hasNextPage)  // [[Post]], one element per page
/// }
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

  /// Puts the state back as ``init()`` makes it: no pages, idle, no error, no failures.
  ///
  /// ```swift
  /// feed.resetToInitialState()  // feed.pages == [], feed.status == .idle
  /// ```
  public mutating func resetToInitialState() {
    self = Self()
  }
}

extension PaginatedState: Equatable where Page: Equatable {}
