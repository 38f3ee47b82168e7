import Observation

/// The smallest observable type, used only by ``ObservationProbe/trackingIsDetectable``.
final class ProbeSubject: Observable, Sendable {
  /// A member read through the probe's marker: the read the check makes.
  subscript(marker: TrackingMarker) -> Int { 0 }
  /// A member read without the marker: a tracking of it never reaches the marker.
  var unmarked: Int { 0 }
}
