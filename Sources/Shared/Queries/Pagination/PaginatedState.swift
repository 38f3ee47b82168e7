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
  ///
  /// Writable, to edit what the pages hold (an item inserted optimistically, an item edited or removed), one page
  /// for each of ``pageIDs``:
  ///
  /// ```swift
  /// store.setFetchedState(for: feedQuery) { feed in
  ///   if !feed.pages.isEmpty { feed.pages[0].insert(draft, at: 0) }
  /// }
  /// ```
  ///
  /// To change which pages are loaded, use ``replacePages(ids:pages:hasNextPage:hasPreviousPage:)`` or
  /// ``applySuccess(_:)``.
  ///
  /// > Important: Setting pages of another count than ``pageIDs`` stops the program: pages and their
  /// > identifiers go together.
  public var pages: [Page] {
    get { storedPages }
    set {
      storedPages = newValue
      checkPageCount()
    }
    // In place: editing one page copies neither the others nor the array.
    _modify {
      yield &storedPages
      checkPageCount()
    }
  }
  /// The pages, kept apart from ``pages`` so that the program's edits are checked and made in place.
  private var storedPages: [Page] = []
  /// The identifiers of the loaded pages, in the same order.
  public internal(set) var pageIDs: [PageID] = []
  /// Whether a page follows the last loaded one.
  public internal(set) var hasNextPage = false
  /// Whether a page comes before the first loaded one.
  public internal(set) var hasPreviousPage = false
  /// How the latest fetch went: status, error (by identity), attempt and time.
  public var operation = OperationTracking()

  /// Whether the page after the loaded ones is being fetched (``Shared/fetchNextPage()``), for a spinner at the end
  /// of a list. A refetch of every page, or the first page, shows as ``OperationTracking/isFetching`` only.
  ///
  /// ```swift
  /// if feed.isFetchingNextPage { showSpinnerBelowTheList() }
  /// ```
  public var isFetchingNextPage: Bool {
    operation.isFetching && operation.pageFetch == .next
  }

  /// Whether the page before the loaded ones is being fetched (``Shared/fetchPreviousPage()``).
  ///
  /// ```swift
  /// if feed.isFetchingPreviousPage { showSpinnerAboveTheList() }
  /// ```
  public var isFetchingPreviousPage: Bool {
    operation.isFetching && operation.pageFetch == .previous
  }

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
      precondition(ids.count == pages.count, "a page update of \(pages.count) pages for \(ids.count) identifiers")
      // The new chain, whole: a page the server dropped or a cursor it no longer hands out does not survive it.
      // Page fetches wait for a refetch of all pages, so no page fetched meanwhile is lost; one asked for during
      // it continues the new chain.
      pageIDs = ids
      storedPages = pages
      hasNextPage = hasNext
      hasPreviousPage = hasPrevious
    case .next(let id, let page, let hasNext):
      pageIDs.append(id)
      storedPages.append(page)
      hasNextPage = hasNext
    case .previous(let id, let page, let hasPrevious):
      pageIDs.insert(id, at: 0)
      storedPages.insert(page, at: 0)
      hasPreviousPage = hasPrevious
    case .none:
      break
    }
  }

  /// Replaces the loaded pages and says whether pages come after and before them, as a refetch of every page does:
  /// to write pages the program obtained itself (a cache from an earlier launch, a server push).
  ///
  /// ```swift
  /// store.setFetchedState(for: feedQuery) { feed in
  ///   feed.replacePages(ids: [0], pages: [firstPage], hasNextPage: true, hasPreviousPage: false)
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - ids: The pages' identifiers, in order: the cursors ``Shared/fetchNextPage()`` and
  ///     ``Shared/fetchPreviousPage()`` continue from.
  ///   - pages: The pages, one for each identifier.
  ///   - hasNextPage: Whether a page follows the last one.
  ///   - hasPreviousPage: Whether a page comes before the first one.
  public mutating func replacePages(ids: [PageID], pages: [Page], hasNextPage: Bool, hasPreviousPage: Bool) {
    precondition(ids.count == pages.count, "replacePages: \(pages.count) pages for \(ids.count) page identifiers")
    applySuccess(.all(ids: ids, pages: pages, hasNext: hasNextPage, hasPrevious: hasPreviousPage))
  }

  /// Stops the program when the pages and their identifiers no longer go together.
  private func checkPageCount() {
    precondition(
      storedPages.count == pageIDs.count,
      "PaginatedState.pages set to \(storedPages.count) pages for \(pageIDs.count) page identifiers; use "
        + "replacePages(ids:pages:hasNextPage:hasPreviousPage:) to change which pages are loaded")
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
