extension QueryStore {
  /// What an inspection reads of every query, under the store's lock (the values, and the clocks, after it).
  func inspectionParts() -> [QueryRecordParts] {
    state.withLock { state in
      var parts: [QueryRecordParts] = []
      parts.reserveCapacity(state.count)
      state.root.visitRecords { parts.append($0.inspectionParts()) }
      return parts
    }
  }

  /// Cancels the fetches of the query named `key` and forces its value into the state `action` names; returns the
  /// state it replaced, or `nil` when no awake query has that key.
  func force(_ action: InspectorAction, key: QueryKey) -> (any Sendable)?? {
    cancel(.exactly(key))
    let write = state.withLock { state in state.root.node(at: key.parts)?.record?.forcing(action) }
    guard let write else { return nil }
    return .some(write())
  }

  /// Puts `previous` back into the value of the query named `key`; whether it could.
  func restore(_ previous: any Sendable, key: QueryKey) -> Bool {
    let write = state.withLock { state in state.root.node(at: key.parts)?.record?.restoring(previous) }
    guard let write else { return false }
    write()
    return true
  }
}
