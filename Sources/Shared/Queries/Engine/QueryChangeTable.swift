import Synchronization

/// The optimistic changes pending in a store, by query key: each key's ``OptimisticLayer`` while one of its changes
/// is pending, so that the changes outlive the value's box (a query that sleeps and wakes, a value waiting to be
/// decoded from a persisted cache) and follow the query wherever its value goes.
///
/// Asked under the store's lock (its lock is taken inside the store's, never the other way round); a store with no
/// pending change answers with one atomic load.
final class QueryChangeTable: Sendable {
  private let layers = Lock<[QueryKey: any PendingChanges]>([:])
  /// How many keys have a layer: lets the common case (none) skip the lock.
  private let count = Atomic<Int>(0)

  init() {}

  /// The layer of `key`, if it has one of state type `State`.
  func layer<State: Sendable>(for key: QueryKey, as _: State.Type) -> OptimisticLayer<State>? {
    guard count.load(ordering: .acquiring) > 0 else { return nil }
    return layers.withLock { $0[key] as? OptimisticLayer<State> }
  }

  /// The layer of `key`, made (or taken from `attached`, the one its value's box keeps) if it has none; `nil` if it
  /// has a layer of another state type.
  func layer<State: OperationTrackable>(
    makingFor key: QueryKey,
    as _: State.Type,
    attached: OptimisticLayer<State>?
  ) -> OptimisticLayer<State>? {
    layers.withLock { layers in
      if let existing = layers[key] { return existing as? OptimisticLayer<State> }
      let layer = attached ?? OptimisticLayer<State>()
      layers[key] = layer
      count.add(1, ordering: .releasing)
      return layer
    }
  }

  /// Keeps `layer`, just made for the value of `key`, as that key's layer (in place of one kept before, whose value
  /// went); the one it replaces is released after the lock. Call outside the store's lock.
  func keep<State: OperationTrackable>(_ layer: OptimisticLayer<State>, for key: QueryKey) {
    layers.withLockReleasingAfter { layers -> (result: Void, released: (any PendingChanges)?) in
      let replaced = layers.updateValue(layer, forKey: key)
      if replaced == nil { count.add(1, ordering: .releasing) }
      return ((), replaced)
    }
  }

  /// Forgets the layer of `key` if it is `layer` and no change of it is pending.
  func removeIfIdle(_ key: QueryKey, layer: some PendingChanges) {
    layers.withLockReleasingAfter { layers -> (result: Void, released: (any PendingChanges)?) in
      guard let existing = layers[key], existing === layer, !layer.isActive else { return ((), nil) }
      count.subtract(1, ordering: .releasing)
      return ((), layers.removeValue(forKey: key))
    }
  }
}

/// A query's pending optimistic changes, whatever its state type (see ``OptimisticLayer``).
protocol PendingChanges: AnyObject, Sendable {
  /// Whether a change is pending.
  var isActive: Bool { get }
}
