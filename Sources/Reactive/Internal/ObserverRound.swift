/// What the thread delivering to observers does next.
@usableFromInline
enum ObserverRound<Value: Sendable>: Sendable {
  /// Call these observers with this value.
  case deliver([ObserverEntry<Value>], Value)
  /// Nothing is queued; release what the queue held, after the lock.
  case done(RingBuffer<PendingChange<Value>>)
}
