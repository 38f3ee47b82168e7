/// The reference model of the paginated feed (see `PagesSimulationRunner`): what the documentation promises its
/// holders show.
///
/// - A refetch of all pages (the first holder's fetch, an invalidation of a held feed, `refetchAll`) fetches the
///   pages from the first, following `nextPage`, as many as are loaded (at least one); its result replaces every
///   page, so an edit made before it goes, and a succeeded change is then in the server's data.
/// - `fetchNextPage` adds the page after the loaded ones; the pages loaded, and their edits, stay.
/// - Optimistic changes follow the one rule (`OptimisticCache`): the feed shows its confirmed pages with each
///   pending change applied in the order its mutation started (here: its item inserted at the front of page 0 if
///   there is one and it is not there yet). A failed change is dropped; a succeeded one may show until a refetch of
///   all pages brings the server's data.
///
/// Where the docs leave a choice open, the model abstains: what the feed shows while a refetch of all pages is half
/// done (only the optimistic rule is checked then). What a refetch of all pages that fails part way leaves is not
/// modelled: the program fails only next pages.
struct SimulationPagesModel {
  struct Walk {
    var count: Int
    var fetched: [[Int]] = []
  }

  /// Whether the store keeps the feed (from its first holder on: it is never collected in a program), or its
  /// restored pages wait for it.
  var exists = false
  /// Whether the feed's pages wait, restored, for its first holder after a relaunch: an edit with `store.update`
  /// changes nothing then, an optimistic change waits with them and shows when the feed is held.
  var isWaiting = false
  var holders = 0
  /// The confirmed pages; `nil` before the first page.
  var confirmed: [[Int]]?
  var isInvalidated = false
  /// The refetch of all pages under way, or the next page being fetched.
  var walk: Walk?
  var nextPage: Int?
  /// Pending changes, in the order their mutations started: (mutation, item).
  var pending: [(mutation: Int, item: Int)] = []
  /// Items that may or may not show: succeeded changes until a refetch of all pages.
  var ambiguous: Set<Int> = []
  /// Items of failed changes, never shown again (unless the server applied them).
  var ended: Set<Int> = []
  /// Mutations that have not ended.
  var unfinished: [Int: Int] = [:]

  var isIdle: Bool { walk == nil && nextPage == nil }

  /// The page the store is expected to fetch now, if any.
  var expectedFetch: Int? {
    if let walk { return walk.fetched.count }
    return nextPage
  }

  /// What the holders show: the confirmed pages with each pending change applied in order.
  var shown: [[Int]]? {
    guard var pages = confirmed else { return nil }
    for change in pending where !pages.isEmpty && !pages[0].contains(change.item) {
      pages[0].insert(change.item, at: 0)
    }
    return pages
  }

  /// A holder appears: the first page is fetched if there is none, or all pages if invalidated.
  mutating func hold() {
    holders += 1
    exists = true
    isWaiting = false
    if isIdle && (confirmed == nil || isInvalidated) { startWalk() }
  }

  mutating func release() {
    holders = max(holders - 1, 0)
  }

  mutating func startWalk() {
    let loaded = confirmed?.count ?? 0
    walk = Walk(count: min(max(loaded, 1), SimulatedPageServer.pageCount))
  }

  mutating func invalidate() {
    isInvalidated = true
    if holders > 0 && isIdle { startWalk() }
  }

  mutating func fetchNextPage() {
    guard isIdle, let loaded = confirmed?.count else { return }
    if loaded == 0 {
      startWalk()
    } else if loaded < SimulatedPageServer.pageCount {
      nextPage = loaded
    }
  }

  /// The server answered a page fetch.
  mutating func answered(page: Int, data: [Int]?) {
    if var walk {
      guard let data else { preconditionFailure("the program fails only next pages") }
      walk.fetched.append(data)
      if walk.fetched.count < walk.count {
        self.walk = walk
        return
      }
      self.walk = nil
      confirmed = walk.fetched
      isInvalidated = false
      ambiguous.removeAll()
      return
    }
    nextPage = nil
    guard let data else { return }
    confirmed?.append(data)
  }

  /// `store.update` writes the last item of page 0.
  mutating func edit(_ value: Int) {
    guard !isWaiting, var pages = confirmed, !pages.isEmpty, !pages[0].isEmpty else { return }
    pages[0][pages[0].count - 1] = value
    confirmed = pages
  }

  /// The app ended and launched again, with nothing fetched or sent: the confirmed pages, as the store last wrote
  /// them, wait in the restored cache (invalidated if they were), and nobody holds the feed.
  mutating func relaunch() {
    holders = 0
    exists = confirmed != nil
    isWaiting = confirmed != nil
  }

  mutating func mutate(_ mutation: Int, item: Int) {
    unfinished[mutation] = item
    // A query the store does not keep is left alone.
    if exists { pending.append((mutation, item)) }
  }

  mutating func mutationEnded(_ mutation: Int, succeeded: Bool) {
    guard let item = unfinished.removeValue(forKey: mutation) else { return }
    pending.removeAll { $0.mutation == mutation }
    if succeeded {
      ambiguous.insert(item)
    } else {
      ended.insert(item)
    }
  }
}
