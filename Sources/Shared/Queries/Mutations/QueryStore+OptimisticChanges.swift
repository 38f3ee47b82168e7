/// Where mutations' optimistic changes meet the store: each change is kept by its query's key (see
/// ``QueryChangeTable``) and shown in the query's value wherever the value is (see ``OptimisticLayer``).
extension QueryStore {
  /// A change started: the layer that keeps it, and what the value that showed it keeps of that layer (which refers
  /// to the value weakly: a change under way does not keep a query awake), to end it without asking the store while
  /// that value lives; no value for a change waiting for its query to be made.
  ///
  /// No weak reference of its own: the value's ``AttachedLayer`` holds the one every change started on it shares.
  @usableFromInline
  struct StartedChange<State: OperationTrackable>: Sendable {
    @usableFromInline let layer: OptimisticLayer<State>
    @usableFromInline let attached: AttachedLayer<State>?

    @usableFromInline
    init(layer: OptimisticLayer<State>, attached: AttachedLayer<State>?) {
      self.layer = layer
      self.attached = attached
    }

    /// The value that showed the change, while it lives.
    @inlinable
    var root: SharedRoot<State>? { attached?.root }
  }

  /// Starts change `id` (`apply`) on the query named `key`, of state type `State`: shown at once in its value, or,
  /// for a value restored from a persisted cache and not decoded yet, as soon as its query is made. A change that
  /// `waitsForQuery` (a queued mutation's) waits for its query even when the store keeps nothing of it yet: the
  /// query a persisted cache restored later, or a holder makes later, shows it.
  ///
  /// Specialized where it is called, like the writes it makes; the store's parts are ``changedValue(_:as:)`` and
  /// ``startWaitingChange(_:on:as:waitsForQuery:apply:)``.
  ///
  /// - Returns: The change started, if the store keeps such a query (or a persisted value for it), or the change
  ///   waits for its query; otherwise `nil`, and nothing changed.
  @inlinable
  func startChange<State: OperationTrackable>(
    _ id: UInt64,
    on key: QueryKey,
    as type: State.Type,
    waitsForQuery: Bool = false,
    apply: @escaping @Sendable (inout State) -> Void
  ) -> StartedChange<State>? {
    guard let root = changedValue(key, as: type) else {
      return startWaitingChange(id, on: key, as: type, waitsForQuery: waitsForQuery, apply: apply)
        .map { StartedChange(layer: $0, attached: nil) }
    }
    // The value's layer, or one made for its first change, which the store then keeps by the query's key. The root
    // is held here, so the query cannot sleep meanwhile.
    var isMade = false
    let attached = root.box.attachment(AttachedLayer<State>.self) {
      isMade = true
      return AttachedLayer(layer: OptimisticLayer(), root: root)
    }
    if isMade { keepLayer(attached.layer, for: key) }
    // The change applies under the value's lock (the program's code, outside the store's lock).
    root.box.withLockReleasingAfter(attached: AttachedLayer<State>.self) { state, current in
      let previous = state
      (current ?? attached).layer.add(id, apply: apply, to: &state)
      return ((), previous)
    }
    return StartedChange(layer: attached.layer, attached: attached)
  }

  /// The value of the query named `key`, if the store keeps it with state type `State` (woken, if it slept).
  @usableFromInline
  func changedValue<State: OperationTrackable>(_ key: QueryKey, as _: State.Type) -> SharedRoot<State>? {
    state.withLock { state in
      guard let record = state.record(named: key, as: State.self) else { return nil }
      // Asked first: the registry a sleeping query wakes in is read through a weak reference.
      if record.isSleeping { record.wakeIfSleeping(in: registry, store: self) }
      guard case .root(let root) = record.shared.reference else { return nil }
      return root
    }
  }

  /// Keeps `layer`, just made for the value of `key`, as that key's pending changes.
  @usableFromInline
  func keepLayer<State: OperationTrackable>(_ layer: OptimisticLayer<State>, for key: QueryKey) {
    changes.keep(layer, for: key)
  }

  /// Starts change `id` on a value persisted for `key` that waits for its query (or, when the change
  /// `waitsForQuery`, on the query to come whatever the store keeps): the change is kept (in the layer returned) and
  /// shows when the query is made. `nil` when no such value waits (and the change does not wait for its query), or a
  /// query took the key meanwhile.
  @usableFromInline
  func startWaitingChange<State: OperationTrackable>(
    _ id: UInt64,
    on key: QueryKey,
    as _: State.Type,
    waitsForQuery: Bool = false,
    apply: @escaping @Sendable (inout State) -> Void
  ) -> OptimisticLayer<State>? {
    guard waitsForQuery || persistedValueWaits(for: key, as: State.self) else { return nil }
    return state.withLock { state -> OptimisticLayer<State>? in
      // Under the store's lock, so that the query cannot be made meanwhile.
      guard state.root.node(at: key.parts)?.record == nil,
        let layer = changes.layer(makingFor: key, as: State.self, attached: nil)
      else { return nil }
      layer.add(id, apply: apply)
      return layer
    }
  }

  /// Ends change `id` (started as `started`) on the query named `key`: kept in the confirmed value if its mutation
  /// succeeded (`keeps`), otherwise dropped, and the value shown recomputed.
  @inlinable
  func endChange<State: OperationTrackable>(
    _ id: UInt64,
    _ started: StartedChange<State>,
    on key: QueryKey,
    keeps: Bool
  ) {
    let layer = started.layer
    // While the value that showed the change lives, it shows the layer; once it went (the query slept, or left the
    // store), the store finds the query's value now.
    var target = started.root
    // A box the store answers with is the query's value now, whatever it was before.
    var isStoresAnswer = target == nil
    while let root = target ?? changeEndTarget(id, of: layer, on: key) {
      if keeps {
        // The value shown stays as it is: nobody is told (the layer is the query's, whichever box shows it).
        root.box.withAttachmentReleasingAfter(AttachedLayer<State>.self) {
          attached -> (result: Void, released: OptimisticLayer<State>.Change?) in
          if attached?.layer === layer {
            layer.keep(id)
            return ((), nil)
          }
          return ((), layer.drop(id))
        }
        return
      }
      let isRetired = root.box.withLockReleasingAfter(attached: AttachedLayer<State>.self) {
        state, attached -> (result: Bool, released: Any?) in
        // Another layer on the value (its query was made again since): the change is only forgotten.
        guard let attached, attached.layer === layer else { return (false, layer.drop(id)) }
        // The query fell asleep with this box, its value copied before this end: the end goes to that copy.
        if attached.isRetired && !isStoresAnswer { return (true, nil) }
        let previous = state
        layer.drop(id, in: &state)
        return (false, previous)
      }
      guard isRetired else { return }
      target = nil
      isStoresAnswer = true
    }
  }

  /// The store's part of ``endChange(_:_:on:keeps:)`` once the value that showed the change went: the query's value
  /// now (woken), or `nil` when the store keeps no such query, and then the change is dropped from `layer` here.
  @usableFromInline
  func changeEndTarget<State: OperationTrackable>(
    _ id: UInt64,
    of layer: OptimisticLayer<State>,
    on key: QueryKey
  ) -> SharedRoot<State>? {
    return state.withLockReleasingAfter { state -> (result: SharedRoot<State>?, released: Any?) in
      guard let record = state.record(named: key, as: State.self) else {
        // No query (not made yet, or removed): the change leaves the layer, and so does a layer left with none;
        // the change's captures go after the lock.
        let dropped = layer.drop(id)
        changes.removeIfIdle(key, layer: layer)
        return (nil, dropped)
      }
      record.wakeIfSleeping(in: registry, store: self)
      guard case .root(let root) = record.shared.reference else { return (nil, nil) }
      return (root, nil)
    }
  }

  /// Attaches the pending changes of `key` to `root`, a new box of the query's value (a woken query's, a new
  /// query's), and returns the layer attached. Call under the store's lock (it takes the change table's lock and the
  /// value's, in that order); a store with no pending change answers with one atomic load. Nothing of the program's
  /// runs here: a value that does not show the changes yet (a new query's) shows them after ``adopt(_:in:)``, after
  /// the lock.
  @discardableResult
  func attachLayer<State: OperationTrackable>(of key: QueryKey, to root: SharedRoot<State>) -> OptimisticLayer<State>? {
    guard let layer = changes.layer(for: key, as: State.self),
      root.box.withAttachment(
        AttachedLayer<State>.self,
        { attached in
          // A box the query fell asleep with, woken again (still alive, the registry found it): it shows the layer
          // again.
          if let attached, attached.layer === layer { attached.isRetired = false }
          return attached
        }) == nil
    else { return nil }
    _ = root.box.attachment(AttachedLayer<State>.self) { AttachedLayer(layer: layer, root: root) }
    return layer
  }

  /// The value in `root` becomes the confirmed value of the pending changes of `layer`, and shows them; call after
  /// every lock (the changes are the program's code).
  static func adopt<State: OperationTrackable>(_ layer: OptimisticLayer<State>, in root: SharedRoot<State>) {
    // What `adopt` replaces stays as the confirmed value: nothing of the program's is released under the lock.
    root.box.withLock(attached: AttachedLayer<State>.self) { state, attached in
      if attached?.layer === layer { layer.adopt(&state) }
    }
  }

  /// Whether a value persisted for `key` waits for its query, and would decode as `State`.
  private func persistedValueWaits<State: OperationTrackable>(for key: QueryKey, as _: State.Type) -> Bool {
    guard let engine = persistedCache.engine, State.self is any PersistableQueryState.Type else { return false }
    return engine.entry(for: key) != nil
  }
}
