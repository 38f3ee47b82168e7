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

  /// The keys of every query, for finding one by its identity in an inspection.
  func inspectedKeys() -> [QueryKey] {
    state.withLock { state in
      var keys: [QueryKey] = []
      keys.reserveCapacity(state.count)
      state.root.visitRecords { keys.append($0.key) }
      return keys
    }
  }

  /// Forces the value of the query named `key` into the state `action` names; returns the state it replaced, or
  /// `nil` when no awake query has that key.
  func force(_ action: InspectorAction, key: QueryKey) -> ForcedQueryState? {
    let write = state.withLock { state in state.record(named: key)?.forcing(action) }
    return write?() ?? nil
  }

  /// Puts back the state `forced` replaced in the query named `key`, if the value is still the forced one; whether
  /// it did.
  func restore(_ forced: ForcedQueryState, key: QueryKey) -> Bool {
    let write = state.withLock { state in state.record(named: key)?.restoring(forced) }
    return write?() ?? false
  }
}
