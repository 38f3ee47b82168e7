/// Whether Apple's Observation tracks a box, and the registrars that must live exactly as long as the box.
///
/// The state machine of a box's Observation, kept in ``BoxState`` under the box's lock. Its two events are a
/// tracked read (``trackedRead(through:)``) and a change (``changed()``); each returns what the box must do once
/// the lock is released. It never calls Observation itself.
///
/// A tracked read may arrive with the spare registrar of the reading thread that it went through (see
/// ``ObservationProbe``): the tracking may register with that spare, so the box must keep it until it ends. The
/// first spare becomes the box's registrar; one that arrives later (another thread's first tracked read, racing)
/// is kept beside it and never told about a change, since the tracking that read through it also registered with
/// the box's registrar.
@usableFromInline
enum ObservationState {
  /// Nothing has tracked the box: it has no registrar, and its writes tell Observation nothing.
  case untracked
  /// Observation has tracked the box: every change is told to `registrar`; `kept` only lives as long as the box.
  case tracked(registrar: RegistrarHolder, kept: [RegistrarHolder])

  /// What a tracked read must do after the lock.
  @usableFromInline
  enum TrackedReadAction {
    /// Register the read with this registrar.
    case register(with: RegistrarHolder)
  }

  /// What a change must do after the lock.
  @usableFromInline
  enum ChangeAction {
    /// Tell this registrar `willSet`, then `didSet`.
    case tell(RegistrarHolder)
    /// Nothing tracks the box.
    case none
  }

  /// A read made inside Observation's tracking, through the thread's `spare` registrar or through none.
  @usableFromInline
  mutating func trackedRead(through spare: RegistrarHolder?) -> TrackedReadAction {
    switch self {
    case .untracked:
      let registrar = spare ?? RegistrarHolder()
      self = .tracked(registrar: registrar, kept: [])
      return .register(with: registrar)
    case .tracked(let registrar, var kept):
      if let spare {
        // Let go of the stored array first, so that it grows in place.
        self = .untracked
        kept.append(spare)
        self = .tracked(registrar: registrar, kept: kept)
      }
      return .register(with: registrar)
    }
  }

  /// A change made to the box's value.
  @usableFromInline
  func changed() -> ChangeAction {
    switch self {
    case .untracked: return .none
    case .tracked(let registrar, _): return .tell(registrar)
    }
  }

  /// Whether Observation has tracked the box.
  @usableFromInline
  var isTracked: Bool {
    if case .tracked = self { true } else { false }
  }
}
