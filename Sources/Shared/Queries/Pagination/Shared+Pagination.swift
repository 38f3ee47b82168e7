extension Shared {
  /// Fetches the page after the last loaded one, after the fetch already under way (a page, or a refetch of all
  /// pages, whose chain it then continues).
  ///
  /// ```swift
  /// let task = $feed.fetchNextPage()
  /// _ = try await task?.value
  /// ```
  ///
  /// Asked for while the next page is being fetched (or waits for its turn), it joins that fetch: the page after
  /// the loaded ones is the one being fetched, so it is fetched once, and this task gets its result. To load two
  /// more pages, wait for the first before asking for the second:
  ///
  /// ```swift
  /// _ = try await $feed.fetchNextPage()?.value
  /// _ = try await $feed.fetchNextPage()?.value
  /// ```
  ///
  /// A refetch of all pages under way (a new holder of a stale query, an invalidation) fetches every loaded page
  /// first; see ``QueryOptions/staleTime``. A cursor that leads back to a loaded page ends the pages.
  ///
  /// Cancelling the task stops this caller's wait at once, with a `CancellationError`; the page fetch is withdrawn
  /// if it still waits for its turn, or cancelled if it runs, unless another caller joined it.
  ///
  /// - Returns: The fetch, or `nil` when this is not a paginated query.
  @discardableResult
  public func fetchNextPage<PageID: Hashable & Sendable, Page: Sendable>()
    -> OperationTask<PageUpdate<PageID, Page>>? where Value == PaginatedState<PageID, Page>
  {
    requestPages(.nextPage)
  }

  /// Fetches the page before the first loaded one, after the fetch already under way.
  ///
  /// ```swift
  /// _ = try await $feed.fetchPreviousPage()?.value
  /// ```
  ///
  /// Asked for while the previous page is being fetched (or waits for its turn), it joins that fetch, as
  /// ``fetchNextPage()`` does; wait for it before asking for the page before that one.
  ///
  /// Cancelling the task stops this caller's wait at once; the page fetch is withdrawn if it still waits for its
  /// turn, or cancelled if it runs, unless another caller joined it.
  ///
  /// - Returns: The fetch, or `nil` when this is not a paginated query.
  @discardableResult
  public func fetchPreviousPage<PageID: Hashable & Sendable, Page: Sendable>()
    -> OperationTask<PageUpdate<PageID, Page>>? where Value == PaginatedState<PageID, Page>
  {
    requestPages(.previousPage)
  }

  /// Fetches the loaded pages again now, joining a refetch that is under way or asked for: from the first page,
  /// following `nextPage` until it returns `nil` or as many pages as are loaded were fetched. The result replaces
  /// every page, so a page the server dropped goes, and new cursors replace old ones.
  ///
  /// ```swift
  /// _ = try await $feed.refetchAll()?.value
  /// ```
  ///
  /// The refetch that ``Shared/refetch()`` and ``QueryStore/refetch(_:)-(QueryKey)`` start for a paginated query, with a task
  /// to wait for. A page fetch under way finishes first.
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
    requestPages(.refresh)
  }

  /// Asks the query for one unit of page work, after the work under way.
  private func requestPages<PageID: Hashable & Sendable, Page: Sendable>(
    _ work: QueryRecordMachine.Work
  ) -> OperationTask<PageUpdate<PageID, Page>>? where Value == PaginatedState<PageID, Page> {
    let link = root.attachment(QueryLink.self, make: QueryLink.init)
    guard let (store, key, kind) = link.target(as: Value.self), case .paginated(let paging) = kind else {
      return nil
    }
    return store.request(work, key: key, as: Value.self) { shared, context in
      try await paging.fetch(work, in: shared, attempt: context.attempt)
    }
  }
}
