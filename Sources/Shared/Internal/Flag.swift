import Synchronization

/// A Boolean that goes from `false` to `true` once.
final class Flag: Sendable {
  private let value = Atomic<Bool>(false)

  /// Sets the flag; returns whether this call was the one that set it.
  func set() -> Bool {
    !value.exchange(true, ordering: .acquiringAndReleasing)
  }
}
