/// A node of the query tree: one key part, its children, and the query whose key ends here.
///
/// Only touched under the ``QueryStore``'s lock.
final class QueryIndexNode {
  // Unchecked: only touched under the store's lock, which already excludes overlapping accesses; the runtime check
  // cost about a fifth of an invalidation's visit of each matched query.
  @exclusivity(unchecked) var children: [QueryKeyPart: QueryIndexNode] = [:]
  @exclusivity(unchecked) var record: (any QueryRecordProtocol)?

  /// The node at `parts`, if it exists.
  func node(at parts: [any Hashable & Sendable]) -> QueryIndexNode? {
    var node = self
    for part in parts {
      guard let child = node.children[QueryKeyPart(part)] else { return nil }
      node = child
    }
    return node
  }

  /// The node at `parts`, made if needed.
  func makeNode(at parts: [any Hashable & Sendable]) -> QueryIndexNode {
    var node = self
    // Through the table's in-place access: a new part is hashed once, not once to look and once to insert.
    for part in parts { node = Self.child(in: &node.children[QueryKeyPart(part)]) }
    return node
  }

  /// The node in `slot`, made there if it is empty.
  private static func child(in slot: inout QueryIndexNode?) -> QueryIndexNode {
    if let child = slot { return child }
    let child = QueryIndexNode()
    slot = child
    return child
  }

  /// Calls `body` with every query at or below this node.
  func visitRecords(_ body: (any QueryRecordProtocol) -> Void) {
    if let record { body(record) }
    // A leaf (most matched queries) iterates no table.
    guard !children.isEmpty else { return }
    for child in children.values { child.visitRecords(body) }
  }

  /// Removes the empty nodes along `parts`.
  func prune(_ parts: ArraySlice<any Hashable & Sendable>) {
    guard let first = parts.first.map(QueryKeyPart.init), let child = children[first] else { return }
    child.prune(parts.dropFirst())
    if child.record == nil && child.children.isEmpty { children[first] = nil }
  }
}
