/// What an inspection reads of a query record under the store's lock; the value is read, and the clock asked,
/// after it.
struct QueryRecordParts {
  let key: QueryKey
  let epoch: Stopwatch
  /// The value's root while the query is awake (held here: released after the lock).
  let root: AnyObject?
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
}

extension QueryRecord {
  func inspectionParts() -> QueryRecordParts {
    // Asked before the copy below would count as a holder.
    let isHeld = self.isHeld
    let unusedSince: Duration? =
      if case .unusedSince(let since) = machine.use { since } else { nil }
    return QueryRecordParts(
      key: key, epoch: epoch, root: storedRootForInspection, sleepingValue: sleepingValueForInspection,
      isHeld: isHeld, isEnabled: machine.isEnabled, fetchedAt: fetchedAt, staleTime: staleTime,
      unusedSince: unusedSince, gcTime: definition.options.gcTime)
  }

  func forcing(_ action: InspectorAction) -> (@Sendable () -> (any Sendable)?)? {
    guard let shared = borrowed else { return nil }
    let write: @Sendable (inout State) -> Void
    switch action {
    case .forceLoading:
      write = { state in
        state.resetToInitialState()
        state.operation.beginFetch()
      }
    case .forceError(let message):
      write = { state in state.operation.fail(InspectedError(message: message)) }
    default:
      return nil
    }
    return { () -> (any Sendable)? in
      var previous: State?
      QueryStore.writeData(into: shared) { state in
        previous = state
        write(&state)
      }
      return previous
    }
  }

  func restoring(_ previous: any Sendable) -> (@Sendable () -> Void)? {
    guard let shared = borrowed, let previous = previous as? State else { return nil }
    return {
      QueryStore.writeData(into: shared) { state in state = previous }
    }
  }
}
