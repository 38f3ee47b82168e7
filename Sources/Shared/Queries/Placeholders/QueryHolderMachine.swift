/// The decisions of a ``QueryHolder``: which query's changes it shows, the value it keeps from the keys it held
/// before, and the order in which what it shows is written.
///
/// The machine has no lock, task or value box: the holder asks it under its lock, one event at a time, reading the
/// held query's state under that lock, and writes what it returns after the lock. A change of a query the holder has
/// moved away from is ignored, and every write carries a sequence number, so that writes that race after the lock
/// never put an older decision over a newer one.
///
/// Rules it keeps:
/// - While the held query has a value, that value shows, not flagged.
/// - While it has none, the last value of a key held before shows, flagged (when keeping previous values), else the
///   placeholder, flagged, else nothing.
/// - The previous value is dropped once the held query has a value of its own.
struct QueryHolderMachine<Value: Sendable> {
  /// One held query: it grows with each move.
  typealias Generation = UInt64

  /// What to show, and its place in the order of writes.
  struct Publication {
    /// Write `shown` only if no write with a greater sequence came first.
    let sequence: UInt64
    let shown: ShownState<Value>
  }

  let keepsPreviousValue: Bool
  let placeholder: Value?
  private(set) var generation: Generation = 0
  /// The value of a key held before, shown while the held query has none.
  private(set) var previous: Value?
  private var sequence: UInt64 = 0

  init(keepsPreviousValue: Bool, placeholder: Value?) {
    self.keepsPreviousValue = keepsPreviousValue
    self.placeholder = placeholder
  }

  /// The holder moves to another query; `leaving` is the state of the query it held until now (`nil` for the
  /// first). Returns the new query's generation and a previous value to release after the lock.
  mutating func moved(leaving: OperationState<Value>?) -> (generation: Generation, released: Value?) {
    generation += 1
    guard keepsPreviousValue else { return (generation, nil) }
    // The key left had no value of its own: what showed for it (the value before it) keeps showing.
    guard let value = leaving?.value else { return (generation, nil) }
    defer { previous = value }
    return (generation, previous)
  }

  /// The query of `generation` changed; `state` is the held query's state, read under the holder's lock. Returns
  /// what to show (`nil` when the holder has moved on since), and a previous value to release after the lock.
  mutating func changed(
    _ generation: Generation,
    state: OperationState<Value>
  ) -> (publication: Publication?, released: Value?) {
    guard generation == self.generation else { return (nil, nil) }
    sequence += 1
    var released: Value?
    if state.value != nil, previous != nil {
      released = previous
      previous = nil
    }
    let shown = ShownState(state, placeholder: previous ?? placeholder)
    return (Publication(sequence: sequence, shown: shown), released)
  }
}
