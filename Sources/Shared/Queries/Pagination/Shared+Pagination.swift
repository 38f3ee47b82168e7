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
