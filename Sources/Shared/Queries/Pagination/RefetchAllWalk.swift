/// The steps of a refetch of every loaded page: from the first page, following `nextPage`, until it returns `nil` or
/// as many pages as were loaded are fetched again.
///
/// The walk only decides; its caller fetches each page and asks `nextPage` outside any lock. Pages that the server
/// no longer has, and cursors it no longer hands out, are not in the result: it is the new chain, whole.
struct RefetchAllWalk<PageID: Hashable & Sendable>: Sendable {
  /// What to do next.
  enum Step: Equatable, Sendable {
    /// Fetch this page.
    case fetch(PageID)
    /// Done; `next` is the page after the last one fetched, if any (never a page the walk fetched).
    case finished(next: PageID?)
  }

  /// How many pages the walk fetches at most.
  let limit: Int
  /// The pages fetched so far, in order.
  private(set) var ids: [PageID] = []
  /// The next step.
  private(set) var step: Step

  /// A walk from `first` over at most `limit` pages (at least one).
  init(from first: PageID, limit: Int) {
    self.limit = max(1, limit)
    step = .fetch(first)
  }

  /// The page of the current step was fetched, and `nextPage` named `next` after it.
  mutating func fetched(next: PageID?) {
    guard case .fetch(let id) = step else { return }
    ids.append(id)
    // A cursor that comes back to a page already walked ends the chain: there is no page after it.
    guard let next, !ids.contains(next) else {
      step = .finished(next: nil)
      return
    }
    step = ids.count < limit ? .fetch(next) : .finished(next: next)
  }
}
