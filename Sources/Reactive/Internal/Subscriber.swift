/// One consumer of ``ReactiveBox/Values``: its pending values and, while it waits, its continuation.
///
/// A subscriber that keeps only the newest value (`limit == 1`) holds no values: it remembers the version of the box
/// it last took and, when the box's version differs, takes the box's own value. A change then writes nothing for
/// it unless it waits, so a change costs little per consumer that is busy elsewhere.
@usableFromInline
struct Subscriber<Value: Sendable>: Sendable {
  /// The pending values of a subscriber that keeps more than one (`limit > 1`).
  @usableFromInline var buffer = RingBuffer<Value>()
  @usableFromInline let limit: Int
  /// For a subscriber that keeps only the newest value: the version of the box whose value it took last.
  @usableFromInline var takenVersion: UInt64
  @usableFromInline var waiter: UnsafeContinuation<Value?, Never>?

  /// A subscriber whose first value is `value`, the box's value at `version`.
  ///
  /// - Parameter isFinished: Whether the box has finished: then the value is buffered whatever the limit, since the
  ///   box's later changes are not the iteration's.
  @inlinable
  init(limit: Int, value: Value, version: UInt64, isFinished: Bool) {
    self.limit = limit
    // One behind, so that the current value is pending.
    self.takenVersion = version &- 1
    if limit > 1 || isFinished { buffer.append(value, limit: limit) }
  }

  /// Whether the subscriber keeps only the newest value, reading it from the box.
  @inlinable
  var keepsNewestOnly: Bool { limit == 1 }

  /// Whether the subscriber keeps only the newest value and has not taken the box's value at `version`.
  @inlinable
  func hasNewerValue(than version: UInt64) -> Bool {
    keepsNewestOnly && takenVersion != version
  }
}
