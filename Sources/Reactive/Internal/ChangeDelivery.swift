/// What a change must do once the lock is released.
@usableFromInline
struct ChangeDelivery<Value: Sendable>: Sendable {
  /// Consumers waiting for the next value: each is resumed with ``value``.
  @usableFromInline var waiters: [UnsafeContinuation<Value?, Never>] = []
  /// Values that buffers dropped, released after the lock.
  @usableFromInline var released: [Value] = []
  /// The observers this thread must call, or `nil` when there are none or another thread is calling them.
  @usableFromInline var observers: [ObserverEntry<Value>]?
  @usableFromInline let value: Value

  @inlinable
  init(value: Value) {
    self.value = value
  }
}
