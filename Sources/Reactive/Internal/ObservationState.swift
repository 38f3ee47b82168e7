/// Whether Apple's Observation tracks a box, and the registrars that must live exactly as long as the box.
///
/// The state machine of a box's Observation, kept in ``BoxState`` under the box's lock. Its one event is a box's
/// first tracked read on a thread (``trackedRead(through:)``), which returns what the box must do once the lock is
/// released. It never calls Observation itself.
///
/// A first tracked read arrives with the spare registrar of the reading thread that it went through (see
/// ``ObservationProbe``): the tracking may register with that spare, so the box must keep it until it ends. The
/// first spare becomes the box's registrar, which the box publishes (``PublishedRegistrar``): from then on, reads
/// and changes go straight to it, without this machine. A spare that arrives later (another thread's first tracked
/// read, racing) is kept beside it and never told about a change, since the tracking that read through it also
/// registered with the box's registrar.
@usableFromInline
enum ObservationState {
  /// Nothing has tracked the box: it has no registrar, and its writes tell Observation nothing.
  case untracked
  /// Observation has tracked the box: every change is told to `registrar`; `kept` only lives as long as the box.
  case tracked(registrar: RegistrarHolder, kept: [RegistrarHolder])

  /// What a tracked read must do after the lock.
  @usableFromInline
  enum TrackedReadAction {
    /// Register the read with this registrar, the box's own, published for the box's later reads and changes.
    case register(with: RegistrarHolder)
  }

  /// A read made inside Observation's tracking, through the reading thread's `spare` registrar.
  @usableFromInline
  mutating func trackedRead(through spare: RegistrarHolder) -> TrackedReadAction {
    switch self {
    case .untracked:
      self = .tracked(registrar: spare, kept: [])
      return .register(with: spare)
    case .tracked(let registrar, var kept):
      // Let go of the stored array first, so that it grows in place.
      self = .untracked
      kept.append(spare)
      self = .tracked(registrar: registrar, kept: kept)
      return .register(with: registrar)
    }
  }

  /// The registrar every change is told to: the box's own, once Observation has tracked it.
  @usableFromInline
  var registrar: RegistrarHolder? {
    if case .tracked(let registrar, _) = self { registrar } else { nil }
  }
}
