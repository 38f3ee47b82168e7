extension PaginatedState {
  /// What the paginated query has to show, as one enumeration whose cases carry its pages, so that a `switch` over
  /// it has the loaded pages in hand.
  ///
  /// ```swift
  /// func render(_ feed: PaginatedState<Int, [Post]>) -> String {
  ///   switch feed.phase {
  ///   case .idle, .loading(nil): "Loading the feed…"
  ///   case .loading(let pages?): "\(pages.count) pages, reloading…"
  ///   case .loaded(let pages): feed.hasNextPage ? "\(pages.count) pages, and more" : "\(pages.count) pages"
  ///   case .failed(let error, let pages): "\(pages?.count ?? 0) pages; failed with \(error)"
  ///   }
  /// }
  /// ```
  ///
  /// Its value is ``pages``, in order. No page is no value (`nil` beside a first load or a failure,
  /// ``OperationPhase/idle`` before any fetch), except after a success: a query that succeeded with no pages is
  /// ``OperationPhase/loaded(_:)`` with an empty list. Fetching the next or previous page, and refetching every page,
  /// keep the query's status, so a feed on screen stays ``OperationPhase/loaded(_:)`` while
  /// ``OperationTracking/isFetching`` is `true`. See ``OperationPhase`` for every case.
  @inlinable
  public var phase: OperationPhase<[Page]> {
    OperationPhase(operation, value: pages.isEmpty && !operation.status.isSuccess ? nil : pages)
  }
}
