import Synchronization

/// Keeps an observer registered with ``ReactiveBox/observe(_:)``; cancelling it, or freeing it, stops the observer.
///
/// ```swift
/// var tokens: [ObserverToken] = []
/// tokens.append(box.observe { print($0) })
/// tokens.removeAll()  // stops observing
/// ```
///
/// A token keeps its box alive.
public final class ObserverToken: Sendable {
  let cancellation: ObserverCancellation
  let unregister: @Sendable () -> Void

  init(cancellation: ObserverCancellation, unregister: @escaping @Sendable () -> Void) {
    self.cancellation = cancellation
    self.unregister = unregister
  }

  deinit {
    cancel()
  }

  /// Stops the observer. Calling it again does nothing.
  ///
  /// A delivery that has not reached the observer yet skips it, including one under way on this thread, so an
  /// observer that cancels another one inside its callback stops it for the current change too. A delivery on
  /// another thread that has already started calling the observer finishes that call.
  public func cancel() {
    if !cancellation.isCancelled.exchange(true, ordering: .acquiringAndReleasing) {
      unregister()
    }
  }

  /// Whether ``cancel()`` has been called.
  public var isCancelled: Bool {
    cancellation.isCancelled.load(ordering: .acquiring)
  }
}
