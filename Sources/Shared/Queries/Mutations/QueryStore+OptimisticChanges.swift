/// Where mutations' optimistic changes meet the store: each change is kept by its query's key (see
/// ``QueryChangeTable``) and shown in the query's value wherever the value is (see ``OptimisticLayer``).
extension QueryStore {
  /// Starts change `id` (`apply`) on the query named `key`, of state type `State`: shown at once in its value, or,
  /// for a value restored from a persisted cache and not decoded yet, as soon as its query is made.
  ///
  /// - Returns: The layer that keeps the change, if the store keeps such a query (or a persisted value for it);
  ///   otherwise `nil`, and nothing changed.
  func startChange<State: OperationTrackable>(
    _ id: UInt64,
    on key: QueryKey,
    as _: State.Type,
    apply: @escaping @Sendable (inout State) -> Void
  ) -> OptimisticLayer<State>? {
    let waitsForValue = persistedValueWaits(for: key, as: State.self)
    let found = state.withLock { state -> (layer: OptimisticLayer<State>, root: SharedRoot<State>?)? in
      guard let record = Self.record(in: state, named: key, epoch: nil, as: State.self) else {
        // No query yet: a restored value waiting for its query takes the change when the query is made.
        guard waitsForValue, state.root.node(at: key.parts)?.record == nil,
          let layer = changes.layer(makingFor: key, as: State.self, attached: nil)
        else { return nil }
        // Under the store's lock, so that the query cannot be made meanwhile.
        layer.add(id, apply: apply)
        return (layer, nil)
      }
      record.touch()
      state.bounds.use(record)
      record.wakeIfSleeping(in: registry, store: self)
      guard case .root(let root) = record.shared.reference else { return nil }
      attachLayer(of: key, to: root, making: true)
      // The layer on the value (the one just attached, or the one that was).
      guard let layer = root.box.withAttachment(OptimisticLayer<State>.self, { $0 }),
        layer === changes.layer(for: key, as: State.self)
      else { return nil }
      return (layer, root)
    }
    guard let found else { return nil }
    guard let root = found.root else { return found.layer }
    // The change applies under the value's lock (the program's code, outside the store's lock); the root is held,
    // so the query cannot sleep meanwhile.
    let replaced = root.box.withLock(attached: OptimisticLayer<State>.self) { state, attached -> State in
      let previous = state
      (attached ?? found.layer).add(id, apply: apply, to: &state)
      return previous
    }
    withExtendedLifetime(replaced) {}
    return found.layer
  }

  /// Ends change `id` of `layer` on the query named `key`: kept in the confirmed value if its mutation succeeded
  /// (`keeps`), otherwise dropped, and the value shown recomputed.
  func endChange<State: OperationTrackable>(
    _ id: UInt64,
    of layer: OptimisticLayer<State>,
    on key: QueryKey,
    keeps: Bool
  ) {
    var dropped: OptimisticLayer<State>.Change?
    let root = state.withLock { state -> SharedRoot<State>? in
      guard let record = Self.record(in: state, named: key, epoch: nil, as: State.self) else {
        // No query (not made yet, or removed): the change leaves the layer, and so does a layer left with none.
        dropped = layer.drop(id)
        changes.removeIfIdle(key, layer: layer)
        return nil
      }
      record.wakeIfSleeping(in: registry, store: self)
      guard case .root(let root) = record.shared.reference else { return nil }
      return root
    }
    withExtendedLifetime(dropped) {}  // Its captures go after the lock.
    guard let root else { return }
    let replaced = root.box.withLock(attached: OptimisticLayer<State>.self) { state, attached -> State? in
      // Another layer on the value (its query was made again since): the change is only forgotten.
      guard attached === layer else {
        dropped = layer.drop(id)
        return nil
      }
      if keeps {
        layer.keep(id)
        return nil
      }
      let previous = state
      layer.drop(id, in: &state)
      return previous
    }
    withExtendedLifetime((replaced, dropped)) {}
  }

  /// Attaches the pending changes of `key` to `root`, the value's box, if it has none yet, and returns the layer
  /// attached; with `making`, a layer is made for a key that has none. Call under the store's lock (it takes the
  /// change table's lock and the value's, in that order). Nothing of the program's runs here: a value that does not
  /// show the changes yet (a new query's) shows them after ``adopt(_:in:)``, after the lock.
  @discardableResult
  func attachLayer<State: OperationTrackable>(
    of key: QueryKey,
    to root: SharedRoot<State>,
    making: Bool = false
  ) -> OptimisticLayer<State>? {
    let attached = root.box.withAttachment(OptimisticLayer<State>.self) { $0 }
    let layer =
      making
      ? changes.layer(makingFor: key, as: State.self, attached: attached)
      : changes.layer(for: key, as: State.self)
    guard let layer, attached == nil else { return nil }
    _ = root.box.attachment(OptimisticLayer<State>.self) { layer }
    return layer
  }

  /// The value in `root` becomes the confirmed value of the pending changes of `layer`, and shows them; call after
  /// every lock (the changes are the program's code).
  static func adopt<State: OperationTrackable>(_ layer: OptimisticLayer<State>, in root: SharedRoot<State>) {
    // What `adopt` replaces stays as the confirmed value: nothing of the program's is released under the lock.
    root.box.withLock(attached: OptimisticLayer<State>.self) { state, attached in
      if attached === layer { layer.adopt(&state) }
    }
  }

  /// Whether a value persisted for `key` waits for its query, and would decode as `State`.
  private func persistedValueWaits<State: OperationTrackable>(for key: QueryKey, as _: State.Type) -> Bool {
    guard State.self is any PersistableQueryState.Type, let engine = persistedCache.engine else { return false }
    return engine.entry(for: key) != nil
  }
}
