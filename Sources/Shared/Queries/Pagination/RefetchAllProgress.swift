import Reactive

/// How far the refetch of every page of one paginated value got, so that a retry fetches the failed page again
/// and goes on from there instead of walking from the first page again.
///
/// Kept with the value (one per paginated value; its fetches run one at a time). Every attempt of a fetch begins
/// with ``begin(attempt:)``: the first attempt of any page work forgets what an earlier fetch left, a retry
/// takes it over. Each attempt gets a ticket, and only the latest ticket may write: an attempt its timeout left
/// behind, still fetching, cannot change what the retry resumes.
final class RefetchAllProgress<PageID: Hashable & Sendable, Page: Sendable>: Sendable {
  /// A walk and the pages it fetched so far, in its order.
  struct Saved: Sendable {
    var walk: RefetchAllWalk<PageID>
    var pages: [Page]
  }

  private struct State: ~Copyable {
    var ticket: UInt64 = 0
    var saved: Saved?
  }

  private let state = Lock(State())

  init() {}

  /// An attempt of page work begins: returns its ticket, and the walk a refetch of all pages resumes (on a retry,
  /// where the previous attempt stopped), or `nil` to start a new walk.
  func begin(attempt: Int) -> (ticket: UInt64, resumed: Saved?) {
    // The forgotten pages are released after the lock.
    let (ticket, resumed) = state.withLockReleasingAfter { state -> (result: (UInt64, Saved?), released: Saved?) in
      state.ticket += 1
      if attempt > 1 { return ((state.ticket, state.saved), nil) }
      defer { state.saved = nil }
      return ((state.ticket, nil), state.saved)
    }
    return (ticket, resumed)
  }

  /// Records where the walk stopped (a page fetch failed), if `ticket` is still the latest attempt's.
  func save(_ saved: Saved, ticket: UInt64) {
    state.withLockReleasingAfter { state -> (result: Void, released: Saved?) in
      guard state.ticket == ticket else { return ((), nil) }
      defer { state.saved = saved }
      return ((), state.saved)
    }
  }
}
