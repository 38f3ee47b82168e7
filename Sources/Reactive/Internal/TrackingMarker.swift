import Synchronization

/// The subscript argument of ``ObservationProbe/keyPath``: hashing it marks the calling thread's spare registrar
/// as reached by a tracking.
@usableFromInline
final class TrackingMarker: Hashable, Sendable {
  init() {}

  @usableFromInline
  static func == (lhs: TrackingMarker, rhs: TrackingMarker) -> Bool {
    lhs === rhs
  }

  @usableFromInline
  func hash(into hasher: inout Hasher) {
    ObservationProbe.shared.existingSpare()?._withUnsafeGuaranteedRef { $0.reached.store(true, ordering: .relaxed) }
    hasher.combine(ObjectIdentifier(self))
  }
}
