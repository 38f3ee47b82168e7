import Synchronization

/// Whether the last keepalive check of the listening connection was answered, shared between the checking loop and
/// the task that waits for the answer.
final class KeepaliveAnswer: Sendable {
  private let answered = Atomic<Bool>(true)

  /// Takes the answer for a new check: whether the previous one was answered.
  func takeForNewCheck() -> Bool {
    answered.exchange(false, ordering: .acquiringAndReleasing)
  }

  /// The check was answered.
  func answer() {
    answered.store(true, ordering: .releasing)
  }
}
