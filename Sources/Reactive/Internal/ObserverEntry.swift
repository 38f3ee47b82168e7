/// One registered observer.
@usableFromInline
struct ObserverEntry<Value: Sendable>: Sendable {
  @usableFromInline let id: UInt64
  @usableFromInline let callback: @Sendable (Value) -> Void
  @usableFromInline let cancellation: ObserverCancellation

  @inlinable
  init(id: UInt64, callback: @escaping @Sendable (Value) -> Void, cancellation: ObserverCancellation) {
    self.id = id
    self.callback = callback
    self.cancellation = cancellation
  }
}
