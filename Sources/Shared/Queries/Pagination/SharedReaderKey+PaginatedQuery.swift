extension SharedReaderKey {
  /// A paginated query named `key`: it starts with `initialPage`, and `nextPage` / `previousPage` name the pages
  /// around a loaded one (`nil`: there is none).
  ///
  /// ```swift
  /// func showFeed(api: API) {
  ///   let nextPage: @Sendable ([Post], Int) -> Int? = { page, id in page.isEmpty ? nil : id + 1 }
  ///   let previousPage: @Sendable ([Post], Int) -> Int? = { _, id in id > 0 ? id - 1 : nil }
  ///   @Shared(
  ///     .paginatedQuery(["feed"], initialPage: 0, nextPage: nextPage, previousPage: previousPage, maxPages: 3) { id in
  ///       try await api.feed(page: id)
  ///     })
  ///   var feed = PaginatedState<Int, [Post]>()
  ///   $feed.fetchNextPage()
  /// }
  /// ```
  ///
  /// With `maxPages`, a page fetched past the limit drops as many pages from the other end: fetching the next page
  /// drops the first, fetching the previous page drops the last, and ``PaginatedState/hasPreviousPage`` /
  /// ``PaginatedState/hasNextPage`` then say whether a page comes before or after the pages kept (so give a
  /// query that drops its first pages a `previousPage`, to fetch them again). A refetch of all pages fetches at most
  /// `maxPages`.
  ///
  /// A store that persists its cache (``QueryStore/persistCache(_:)``) keeps the pages with their identifiers when
  /// `PageID` and `Page` are `Codable`, and shows them at once after a relaunch; a restore keeps at most `maxPages`,
  /// the first ones, as a refetch of all pages would.
  ///
  /// A refetch of all pages retries a page that fails on its own, as ``QueryOptions/operation`` says: the pages
  /// fetched before it are kept, and the retry goes on from that page.
  ///
  /// - Parameters:
  ///   - key: The query's name.
  ///   - initialPage: The first page to load.
  ///   - nextPage: The page after a loaded page, or `nil` at the end.
  ///   - previousPage: The page before a loaded page, or `nil` at the start.
  ///   - maxPages: The most pages kept (at least 1), or `nil` to keep every page fetched.
  ///   - options: Caching, refetching and retrying; the store's ``QueryStore/defaultOptions`` when omitted.
  ///   - fileID: Where the fetcher is written (filled in for you).
  ///   - line: The line of the fetcher (filled in for you).
  ///   - fetch: Fetches one page.
  /// - Returns: The query key.
  public static func paginatedQuery<PageID: Hashable & Sendable, Page: Sendable>(
    _ key: QueryKey,
    initialPage: PageID,
    nextPage: @escaping @Sendable (Page, PageID) -> PageID?,
    previousPage: @escaping @Sendable (Page, PageID) -> PageID? = { _, _ in nil },
    maxPages: Int? = nil,
    options: QueryOptions? = nil,
    fileID: String = #fileID,
    line: Int = #line,
    _ fetch: @escaping @Sendable (PageID) async throws -> Page
  ) -> Self where Self == Query<PaginatedState<PageID, Page>> {
    precondition(maxPages.map { $0 >= 1 } ?? true, "A paginated query keeps at least one page, not \(maxPages ?? 0)")
    let paginator = Paginator(
      initialPage: initialPage, nextPage: nextPage, previousPage: previousPage, maxPages: maxPages, fetch: fetch)
    return Query(
      key: key, options: options,
      fetch: { shared, context in try await paginator.fetch(.refresh, in: shared, attempt: context.attempt) },
      fetcherLocation: CodeLocation(fileID: fileID, line: line),
      kind: .paginated(paginator))
  }
}
