extension SharedReaderKey {
  /// A paginated query named `key`: it starts with `initialPage`, and `nextPage` / `previousPage` name the pages
  /// around a loaded one (`nil`: there is none).
  ///
  /// - Parameters:
  ///   - key: The query's name.
  ///   - initialPage: The first page to load.
  ///   - nextPage: The page after a loaded page, or `nil` at the end.
  ///   - previousPage: The page before a loaded page, or `nil` at the start.
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
    options: QueryOptions? = nil,
    fileID: String = #fileID,
    line: Int = #line,
    _ fetch: @escaping @Sendable (PageID) async throws -> Page
  ) -> Self where Self == Query<PaginatedState<PageID, Page>> {
    let paginator = Paginator(
      initialPage: initialPage, nextPage: nextPage, previousPage: previousPage, fetch: fetch)
    return Query(
      key: key, options: options,
      fetch: { shared, _ in try await paginator.refetchAll(shared.wrappedValue) },
      fetcherLocation: CodeLocation(fileID: fileID, line: line),
      kind: .paginated { work, shared in try await paginator.fetch(work, from: shared.wrappedValue) })
  }
}
