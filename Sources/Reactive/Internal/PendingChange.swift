/// A change queued for the observers, and the newest observer that existed when it was made.
@usableFromInline
struct PendingChange<Value: Sendable>: Sendable {
  @usableFromInline let value: Value
  @usableFromInline let lastObserverID: UInt64

  @inlinable
  init(value: Value, lastObserverID: UInt64) {
    self.value = value
    self.lastObserverID = lastObserverID
  }
}
