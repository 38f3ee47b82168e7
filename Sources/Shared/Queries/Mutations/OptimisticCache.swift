public import Synchronization

/// What a mutation changes in cached queries when it starts (see ``OptimisticMutation``): each change shows at
/// once in every holder of the query, lasts through the query's fetches while the mutation runs, and is undone,
/// exactly, if the mutation fails or is cancelled.
///
/// ```swift
/// func insert(_ draft: Post, into cache: OptimisticCache) {
///   cache.update(
///     ["feed"], as: PaginatedState<Int, [Post]>.self,
///     OptimisticUpdate(
///       apply: { feed in if !feed.pages.isEmpty { feed.pages[0].insert(draft, at: 0) } },
///       rollback: { feed in if !feed.pages.isEmpty { feed.pages[0].removeAll { $0.id == draft.id } } }))
/// }
/// ```
///
/// A change's `apply` runs now on the cached state, and again over every value the store writes into the query
/// until the mutation ends: a fetch under way, or one that starts meanwhile, writes the server's data, and the
/// change shows on top of it rather than being wiped out. If the mutation fails or is cancelled, `rollback` runs on
/// the state as it is then, so it undoes exactly what `apply` did and keeps every other change (another mutation's,
/// a fetch's); the state's operation tracking (its status, `isFetching`) is never rolled back. If the mutation
/// succeeds, the change stays in the value as it is shown, until the query's next fetch brings the server's data.
public struct OptimisticCache: Sendable {
  /// The store whose queries the changes are made to.
  @usableFromInline let store: QueryStore
  /// The changes made so far, to keep or undo when the mutation ends.
  @usableFromInline let changes = OptimisticChangeSet()

  init(store: QueryStore) {
    self.store = store
  }

  /// Changes the cached state of the query named `key`, of state type `type`, as `update` says.
  ///
  /// - Parameters:
  ///   - key: The query's name.
  ///   - type: The query's state type: ``OperationState`` of the value, ``PaginatedState``, or a type of your own.
  ///   - update: The change (`apply`) and how to undo it (`rollback`).
  /// - Returns: Whether the store keeps such a query; a query it does not keep is left alone.
  @inlinable
  @discardableResult
  public func update<State: OperationTrackable>(
    _ key: QueryKey,
    as type: State.Type,
    _ update: OptimisticUpdate<State>
  ) -> Bool {
    guard let shared = store.cachedShared(key, as: type), case .root(let root) = shared.reference else {
      return false
    }
    let box = root.box
    _ = box.attachment(OptimisticLayer<State>.self, make: OptimisticLayer.init)
    let id = OptimisticChangeSet.nextID.add(1, ordering: .relaxed).newValue
    let replaced = box.withLock(attached: OptimisticLayer<State>.self) { state, layer -> State in
      let previous = state
      layer?.add(id, apply: update.apply, to: &state)
      return previous
    }
    withExtendedLifetime(replaced) {}
    changes.append(
      OptimisticChangeSet.Change(
        undo: {
          let replaced = box.withLock(attached: OptimisticLayer<State>.self) { state, layer -> State in
            let previous = state
            layer?.undo(id, rollback: update.rollback, in: &state)
            return previous
          }
          withExtendedLifetime(replaced) {}
        },
        keep: { box.withAttachment(OptimisticLayer<State>.self) { $0?.keep(id) } }))
    return true
  }
}

/// The changes one mutation made, to keep or undo once, when it ends.
@usableFromInline
final class OptimisticChangeSet: Sendable {
  @usableFromInline
  init() {}

  /// A change made, with what keeping and undoing it do.
  @usableFromInline
  struct Change: Sendable {
    let undo: @Sendable () -> Void
    let keep: @Sendable () -> Void

    @usableFromInline
    init(undo: @escaping @Sendable () -> Void, keep: @escaping @Sendable () -> Void) {
      self.undo = undo
      self.keep = keep
    }
  }

  /// Identifies each change of every mutation, so that one value's changes never share an identifier.
  @usableFromInline static let nextID = Atomic<UInt64>(0)

  private let state = Lock<(changes: [Change], isEnded: Bool)>(([], false))

  @usableFromInline
  func append(_ change: Change) {
    let ended = state.withLock { state -> Bool in
      if !state.isEnded { state.changes.append(change) }
      return state.isEnded
    }
    // A change made after its mutation ended (from a start step that outlived it) is undone at once.
    if ended { change.undo() }
  }

  /// The mutation succeeded: every change stays. Only the first of `keep` and `undo` does anything.
  func keep() {
    for change in end() { change.keep() }
  }

  /// The mutation failed or was cancelled: every change is undone, the latest first.
  func undo() {
    for change in end().reversed() { change.undo() }
  }

  private func end() -> [Change] {
    state.withLock { state in
      guard !state.isEnded else { return [] }
      state.isEnded = true
      defer { state.changes = [] }
      return state.changes
    }
  }
}
