import Synchronization

/// What the tasks that watch one listening connection found, shared with the loop that makes it again: whether its
/// `LISTEN` took effect, and why this side closed it, when it did (the `LISTEN` or a keepalive check got no answer
/// in time).
final class ListenerWatch: Sendable {
  private let started = Atomic<Bool>(false)
  private let closedBecause = Mutex<SharedPostgresError.Cause?>(nil)

  /// The `LISTEN` took effect.
  func listenStarted() {
    started.store(true, ordering: .releasing)
  }

  /// Whether the `LISTEN` took effect.
  var hasStarted: Bool {
    started.load(ordering: .acquiring)
  }

  /// This side is closing the connection for `cause`; the first reason given is kept.
  func closing(because cause: SharedPostgresError.Cause) {
    closedBecause.withLock { if $0 == nil { $0 = cause } }
  }

  /// Why this side closed the connection, or `nil` when it did not.
  var closeCause: SharedPostgresError.Cause? {
    closedBecause.withLock { $0 }
  }
}
