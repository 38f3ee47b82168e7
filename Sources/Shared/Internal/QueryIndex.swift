/// A node of the query tree: one key part, its children, and the query whose key ends here.
///
/// Only touched under the ``QueryStore``'s lock.
final class QueryIndexNode {
  var children: [QueryKeyPart: QueryIndexNode] = [:]
  var record: (any QueryRecordProtocol)?

  /// The node at `parts`, if it exists.
  func node(at parts: [QueryKeyPart]) -> QueryIndexNode? {
    var node = self
    for part in parts {
      guard let child = node.children[part] else { return nil }
      node = child
    }
    return node
  }

  /// The node at `parts`, made if needed.
  func makeNode(at parts: [QueryKeyPart]) -> QueryIndexNode {
    var node = self
    for part in parts {
      if let child = node.children[part] {
        node = child
      } else {
        let child = QueryIndexNode()
        node.children[part] = child
        node = child
      }
    }
    return node
  }

  /// Calls `body` with every query at or below this node.
  func visitRecords(_ body: (any QueryRecordProtocol) -> Void) {
    if let record { body(record) }
    for child in children.values { child.visitRecords(body) }
  }

  /// Removes the empty nodes along `parts`.
  func prune(_ parts: [QueryKeyPart]) {
    guard let first = parts.first, let child = children[first] else { return }
    child.prune(Array(parts.dropFirst()))
    if child.record == nil && child.children.isEmpty { children[first] = nil }
  }
}

/// What the store needs of a query without knowing its state type.
protocol QueryRecordProtocol: AnyObject {
  /// Marks the query stale; returns a refetch to run after the lock if it has holders.
  func invalidate(store: QueryStore) -> (@Sendable () -> Void)?
  /// A refetch to run after the lock.
  func makeRefetch(store: QueryStore) -> @Sendable () -> Void
  /// Records a finished fetch.
  func didFetch(_ stopwatch: Stopwatch)
  /// One garbage check; `true` once the query has gone unused for a whole `gcTime`.
  func checkUnused() -> Bool
  /// What a trigger needs to decide whether to refetch; `nil` when nobody holds the query.
  func candidate(store: QueryStore) -> QueryCandidate?
  /// Grows with every invalidation; a fetch that began in an older generation does not make the query fresh.
  var generation: UInt64 { get }
  /// Notes a use, so garbage collection counts a whole gcTime from now.
  func touch()
}

/// A held query and what tells whether it is stale.
struct QueryCandidate {
  let fetchedAt: Stopwatch?
  let staleTime: Duration
  let refetch: @Sendable () -> Void
}

/// One cached query: its value (held strongly, so it outlives its holders until collected) and its freshness.
///
/// Only touched under the ``QueryStore``'s lock.
final class QueryRecord<State: OperationTrackable>: QueryRecordProtocol {
  static var checksPerGCTime: Int { 4 }

  let query: Query<State>
  private var root: SharedRoot<State>
  var fetchedAt: Stopwatch?
  var isInvalidated = false
  private(set) var generation: UInt64 = 0
  private var unusedChecks = 0

  init(query: Query<State>, root: SharedRoot<State>) {
    self.query = query
    self.root = root
  }

  var shared: Shared<State> { Shared(reference: .root(root)) }

  /// Whether only this record refers to the value: no holder, iteration, observer or running fetch.
  private var isUnused: Bool { isKnownUniquelyReferenced(&root) }

  func touch() {
    unusedChecks = 0
  }

  func invalidate(store: QueryStore) -> (@Sendable () -> Void)? {
    isInvalidated = true
    generation &+= 1
    touch()
    return isUnused ? nil : makeRefetch(store: store)
  }

  func makeRefetch(store: QueryStore) -> @Sendable () -> Void {
    let shared = self.shared
    let query = self.query
    return { store.fetch(query, shared: shared) }
  }

  func didFetch(_ stopwatch: Stopwatch) {
    fetchedAt = stopwatch
    isInvalidated = false
  }

  func candidate(store: QueryStore) -> QueryCandidate? {
    guard !isUnused else { return nil }
    return QueryCandidate(
      fetchedAt: isInvalidated ? nil : fetchedAt, staleTime: query.options.staleTime,
      refetch: makeRefetch(store: store))
  }

  func checkUnused() -> Bool {
    guard isUnused else {
      unusedChecks = 0
      return false
    }
    unusedChecks += 1
    // Unused at this check and at the next `checksPerGCTime`: a whole gcTime has passed since it was last used.
    return unusedChecks > Self.checksPerGCTime
  }
}
