/// One consumer of ``ReactiveBox/Values``: its pending values and, while it waits, its continuation.
@usableFromInline
struct Subscriber<Value: Sendable>: Sendable {
  @usableFromInline var buffer = RingBuffer<Value>()
  @usableFromInline let limit: Int
  @usableFromInline var waiter: UnsafeContinuation<Value?, Never>?

  @inlinable
  init(limit: Int) {
    self.limit = limit
  }
}
