public import Synchronization

/// Set when an observer is cancelled, so a delivery already under way skips it.
@usableFromInline
final class ObserverCancellation: Sendable {
  @usableFromInline let isCancelled = Atomic<Bool>(false)

  @inlinable
  init() {}
}
