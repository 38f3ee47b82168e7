import Reactive

/// One query's confirmed value and the optimistic changes of the mutations under way on it, in the order they
/// started: the value shown is always the confirmed value with every pending change applied again.
///
/// The rule, in one place: every write that is not an optimistic change (a fetch's value, a page, `setFetchedValue`,
/// `setFetchedState`, `update`, a holder's `withLock`, a hydration, a restore) goes to the confirmed value, and the value
/// shown is recomputed from it. A change whose mutation fails or is cancelled is dropped and the value recomputed, so
/// no undo step can touch another mutation's change; a change whose mutation succeeds becomes part of the confirmed
/// value, until the server's own data replaces it. The shown value's operation tracking is always the confirmed
/// value's: a change never shows or hides a fetch.
///
/// The store keeps the layer by the query's key while a change is pending (see ``QueryChangeTable``), so it outlives
/// the value's box: a query that sleeps and wakes, or whose value waits to be decoded from a persisted cache, gets
/// the same layer again. While the query has a box, the layer is attached to it (through the box's
/// ``AttachedLayer``) and the value and the layer change in one critical section of the box's lock
/// (``ReactiveBox/withLock(attached:_:)``); the layer's own lock orders the accesses made without a box (a query that
/// has no record yet).
// Unchecked: every stored property is read and written only under `lock`.
@usableFromInline
final class OptimisticLayer<Value: Sendable>: PendingChanges, @unchecked Sendable {
  /// A pending change: its identifier and what it does to a value.
  @usableFromInline
  struct Change: Sendable {
    @usableFromInline let id: UInt64
    @usableFromInline let apply: @Sendable (inout Value) -> Void

    @inlinable
    init(id: UInt64, apply: @escaping @Sendable (inout Value) -> Void) {
      self.id = id
      self.apply = apply
    }
  }

  @usableFromInline
  struct Contents: Sendable {
    /// The value as the store and the program last wrote it, without the pending changes; `nil` while none is
    /// pending, or while the layer waits for its query's first value.
    @usableFromInline var confirmed: Value?
    /// The pending changes, in the order their mutations started.
    @usableFromInline var changes: [Change] = []

    @inlinable
    init() {}
  }

  @usableFromInline let lock = Lock(Contents())
  /// Gives a recomputed value the confirmed value's operation tracking: made where the state type is known.
  @usableFromInline let carryTracking: @Sendable (inout Value, Value) -> Void

  @inlinable
  init(carryTracking: @escaping @Sendable (inout Value, Value) -> Void) {
    self.carryTracking = carryTracking
  }

  /// Whether a change is pending.
  @inlinable
  var isActive: Bool {
    lock.withLock { !$0.changes.isEmpty }
  }

  /// The value without the pending changes, if any is pending: what a persisted cache writes.
  @inlinable
  var confirmed: Value? {
    lock.withLock { $0.confirmed }
  }

  /// A mutation's change starts: applied to `shown` (under its box's lock) now, and again over every write until it
  /// ends.
  ///
  /// A layer whose changes wait for a value (made before its query was) takes `shown` as their confirmed value
  /// first, and shows them all.
  @inlinable
  func add(_ id: UInt64, apply: @escaping @Sendable (inout Value) -> Void, to shown: inout Value) {
    let change = Change(id: id, apply: apply)
    let waiting = lock.withLock { contents -> [Change] in
      let waiting = contents.confirmed == nil ? contents.changes : []
      if contents.confirmed == nil { contents.confirmed = shown }
      contents.changes.append(change)
      return waiting
    }
    if waiting.isEmpty {
      apply(&shown)
    } else {
      shown = recomputed(shown, with: waiting + [change])
    }
  }

  /// A mutation's change starts on a query that has no value yet: it applies when the query gets one
  /// (``adopt(_:)``).
  @inlinable
  func add(_ id: UInt64, apply: @escaping @Sendable (inout Value) -> Void) {
    lock.withLock { $0.changes.append(Change(id: id, apply: apply)) }
  }

  /// A write that is not an optimistic change: `body` runs once, on the confirmed value when a change is pending
  /// (the shown value is then recomputed from it), or on the shown value itself.
  @inlinable
  func write<Result, Failure: Error>(
    _ body: (inout Value) throws(Failure) -> Result,
    to shown: inout Value
  ) throws(Failure) -> Result {
    // Taken out of the layer while `body` runs, so that the write changes it in place, with no copy.
    guard case (var confirmed, let changes)? = take() else { return try body(&shown) }
    defer {
      shown = recomputed(confirmed, with: changes)
      lock.withLock { $0.confirmed = confirmed }
    }
    return try body(&confirmed)
  }

  /// The confirmed value, taken out of the layer (to put back), and the changes, when a change is pending.
  @inlinable
  func take() -> (Value, [Change])? {
    lock.withLock { contents in
      guard !contents.changes.isEmpty, let confirmed = contents.confirmed else { return nil }
      contents.confirmed = nil
      return (confirmed, contents.changes)
    }
  }

  /// The mutation of change `id` failed or was cancelled: the change is dropped and `shown` (under its box's lock)
  /// recomputed from the confirmed value and the changes that remain.
  @inlinable
  func drop(_ id: UInt64, in shown: inout Value) {
    let remaining = lock.withLock { contents -> (Value, [Change])? in
      guard let index = contents.changes.firstIndex(where: { $0.id == id }) else { return nil }
      contents.changes.remove(at: index)
      guard let confirmed = contents.confirmed else { return nil }
      if contents.changes.isEmpty { contents.confirmed = nil }
      return (confirmed, contents.changes)
    }
    guard let (confirmed, changes) = remaining else { return }
    shown = recomputed(confirmed, with: changes)
  }

  /// Change `id` ends where no value shows it (its query has no value yet, or another layer took over its value).
  ///
  /// - Returns: The change, for its captures to be released after every lock.
  @inlinable
  @discardableResult
  func drop(_ id: UInt64) -> Change? {
    lock.withLock { contents -> Change? in
      guard let index = contents.changes.firstIndex(where: { $0.id == id }) else { return nil }
      if contents.changes.count == 1 { contents.confirmed = nil }
      return contents.changes.remove(at: index)
    }
  }

  /// The mutation of change `id` succeeded: the change becomes part of the confirmed value, and stays in the value
  /// shown until the server's data replaces it. A query with no value yet has nothing to keep it in: the change is
  /// dropped (the success's invalidation brings the server's data).
  @inlinable
  func keep(_ id: UInt64) {
    let kept = lock.withLock { contents -> (change: Change, confirmed: Value?)? in
      guard let index = contents.changes.firstIndex(where: { $0.id == id }) else { return nil }
      let change = contents.changes.remove(at: index)
      let confirmed = contents.confirmed
      contents.confirmed = nil
      return (change, contents.changes.isEmpty ? nil : confirmed)
    }
    // Applied outside the layer's lock (it is the program's code), then put back.
    guard let kept, var confirmed = kept.confirmed else { return }
    kept.change.apply(&confirmed)
    lock.withLock { $0.confirmed = confirmed }
  }

  /// The layer's query gets a value (`shown`, under its box's lock): it becomes the confirmed value, and `shown`
  /// shows the pending changes over it.
  @inlinable
  func adopt(_ shown: inout Value) {
    let changes = lock.withLock { contents -> [Change] in
      guard !contents.changes.isEmpty else { return [] }
      contents.confirmed = shown
      return contents.changes
    }
    guard !changes.isEmpty else { return }
    shown = recomputed(shown, with: changes)
  }

  /// `confirmed` with `changes` applied in order, showing `confirmed`'s operation tracking.
  @inlinable
  func recomputed(_ confirmed: Value, with changes: [Change]) -> Value {
    var shown = confirmed
    for change in changes { change.apply(&shown) }
    carryTracking(&shown, confirmed)
    return shown
  }
}

extension OptimisticLayer where Value: OperationTrackable {
  /// A layer for a query's state.
  @inlinable
  convenience init() {
    self.init(carryTracking: { shown, confirmed in shown.operation = confirmed.operation })
  }
}
