/// The optimistic changes that mutations under way made to one query's value, and that value as the store last
/// wrote it without them: kept with the value's box, and touched only under the box's lock (through
/// `ReactiveBox.withLock(attached:_:)` and `withAttachment(_:_:)`).
///
/// While a change is active, data the store writes (a fetch's value, a yielded value, a value the program sets) is
/// written into the value without the changes, and the value shown is that plus every active change, applied again
/// in the order the mutations started: a fetch under way cannot wipe out an optimistic change, and a page fetched
/// meanwhile is not added twice to a change that inserted into the pages. The shown value's operation tracking is
/// always the latest written, never one from before a change.
// Unchecked: every stored property is read and written only under the lock of the box this layer is kept with, which
// orders every access (see above).
@usableFromInline
final class OptimisticLayer<State: OperationTrackable>: @unchecked Sendable {
  /// The value as the store last wrote it, without the active changes; `nil` while none is active.
  @usableFromInline var base: State?
  /// The active changes, in the order their mutations started.
  @usableFromInline var changes: [(id: UInt64, apply: @Sendable (inout State) -> Void)] = []

  @usableFromInline
  init() {}

  /// A mutation's change starts: applied to `shown` now, and again over every write the store makes until the
  /// change is kept or undone.
  @inlinable
  func add(_ id: UInt64, apply: @escaping @Sendable (inout State) -> Void, to shown: inout State) {
    if changes.isEmpty { base = shown }
    changes.append((id, apply))
    apply(&shown)
  }

  /// The store writes data: `write` goes into the value without the changes, and `shown` becomes that value with
  /// every active change applied again, keeping the operation tracking `write` left in `shown`.
  @inlinable
  func write(_ write: (inout State) -> Void, to shown: inout State) {
    write(&shown)
    guard var base else { return }
    write(&base)
    self.base = base
    let operation = shown.operation
    shown = base
    for change in changes { change.apply(&shown) }
    shown.operation = operation
  }

  /// The mutation of change `id` failed or was cancelled: `rollback` undoes exactly what it changed in `shown`
  /// (its operation tracking stays as it is), and the change is no longer applied.
  @inlinable
  func undo(_ id: UInt64, rollback: (inout State) -> Void, in shown: inout State) {
    guard remove(id) != nil else { return }
    let operation = shown.operation
    rollback(&shown)
    shown.operation = operation
    if changes.isEmpty { base = nil }
  }

  /// The mutation of change `id` succeeded: the change stays in the value as it is shown, and becomes part of the
  /// data later writes build on until the server's own data replaces it.
  @inlinable
  func keep(_ id: UInt64) {
    guard let change = remove(id) else { return }
    if changes.isEmpty {
      base = nil
    } else if var base {
      change.apply(&base)
      self.base = base
    }
  }

  /// Removes change `id`; returns it, or `nil` if it is not active.
  @inlinable
  func remove(_ id: UInt64) -> (id: UInt64, apply: @Sendable (inout State) -> Void)? {
    guard let index = changes.firstIndex(where: { $0.id == id }) else { return nil }
    return changes.remove(at: index)
  }
}
