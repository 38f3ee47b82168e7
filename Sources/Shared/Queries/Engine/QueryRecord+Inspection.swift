/// What an inspection reads of a query record under the store's lock; the value is read, and the clock asked,
/// after it.
struct QueryRecordParts {
  let key: QueryKey
  let stopwatch: Stopwatch
  /// The value's root while the query is awake (held here: released after the lock).
  var root: AnyObject?
  /// A copy of the value while the query sleeps (released after the lock).
  let sleepingValue: Any?
  let isHeld: Bool
  let isEnabled: Bool
  /// When the value was fetched, with no invalidation since.
  let fetchedAt: Duration?
  let staleTime: Duration
  /// Since when nobody used the query, as the last garbage check found.
  let unusedSince: Duration?
  let gcTime: Duration
  /// The query's meta, shown as text.
  let meta: OperationMeta
}

extension QueryRecord {
  func inspectionParts() -> QueryRecordParts {
    // Asked before the copy below would count as a holder.
    let isHeld = self.isHeld
    let unusedSince: Duration? =
      if case .unusedSince(let since) = machine.use { since } else { nil }
    return QueryRecordParts(
      key: key, stopwatch: stopwatch, root: storedRootForInspection, sleepingValue: sleepingValueForInspection,
      isHeld: isHeld, isEnabled: machine.isEnabled, fetchedAt: fetchedAt, staleTime: staleTime,
      unusedSince: unusedSince, gcTime: definition.options.gcTime, meta: definition.options.meta)
  }

  func forcing(_ action: InspectorAction) -> (@Sendable () -> ForcedQueryState?)? {
    guard let shared = borrowed, case .root(let root) = shared.reference else { return nil }
    switch action {
    case .forceLoading, .forceError: break
    default: return nil
    }
    return {
      // The state is read, and a first load's state made from it (the program's `resetToInitialState`), outside the
      // lock; it is written only if nothing changed the value meanwhile (otherwise read again).
      for _ in 0..<8 {
        let (current, version) = root.box.versionedValue
        var loading = current
        if case .forceLoading = action { loading.resetToInitialState() }
        var replaced: State?
        let written = QueryFetchExecutor.writeData(into: root, ifVersion: version) { state in
          replaced = state
          switch action {
          case .forceError(let message):
            state.operation.fail(InspectedError(message: message))
          default:
            state = loading
            state.operation.beginFetch()
          }
        }
        if let written, let replaced {
          return ForcedQueryState(
            replaced: replaced, root: ObjectIdentifier(root), replacedVersion: version, version: written)
        }
      }
      return nil
    }
  }

  func restoring(_ forced: ForcedQueryState) -> (@Sendable () -> Bool)? {
    guard let shared = borrowed, case .root(let root) = shared.reference, ObjectIdentifier(root) == forced.root,
      let previous = forced.replaced as? State
    else {
      return nil
    }
    return {
      // Checked and written in one critical section: a write since the force (a fetch that ended, the program's
      // own) ended the forced state, and stays.
      QueryFetchExecutor.writeData(into: root, ifVersion: forced.version) { state in state = previous } != nil
    }
  }
}

/// The state a force replaced, the value it replaced it in, and the version the force left: restoring puts the state
/// back only into that value, and only while it is still the forced one.
struct ForcedQueryState: Sendable {
  let replaced: any Sendable
  /// The value's root.
  let root: ObjectIdentifier
  /// The version of the state replaced: an earlier force still shown then left this version.
  let replacedVersion: UInt64
  /// The version the force left.
  let version: UInt64

  /// Whether the value of `root` at `version` still shows this force.
  func isShown(root: ObjectIdentifier?, version: UInt64) -> Bool {
    self.root == root && self.version == version
  }
}
