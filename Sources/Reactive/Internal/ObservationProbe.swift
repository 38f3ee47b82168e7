import Observation
public import Synchronization

/// Tells a box whether Apple's Observation has ever tracked it, so an untracked box skips the registrar on writes.
///
/// Telling the registrar about a write costs tens of nanoseconds even when nobody listens, several times the cost
/// of the write itself. A box therefore reads through a key path that carries its probe as a subscript argument.
/// When a read happens inside `withObservationTracking` (or `Observations`), the tracking machinery records the key
/// path in a set, which hashes it, which hashes the probe: the probe then sets ``isTracked`` and from that moment
/// every write of that box goes through the registrar. Outside tracking, a read only pays the registrar's check of
/// its thread-local state.
///
/// The first box checks once per process that the tracking machinery really hashes the key path; if it ever stops
/// doing so, every probe starts out tracked and boxes always talk to the registrar: slower, never wrong.
@usableFromInline
final class ObservationProbe: Hashable, Sendable {
  /// Whether writes must go through the registrar. Only ever goes from `false` to `true`.
  @usableFromInline
  let isTracked: Atomic<Bool>

  init(isTracked: Bool) {
    self.isTracked = Atomic(isTracked)
  }

  /// A probe for a new box: untracked, unless this process's tracking cannot be detected.
  @usableFromInline
  static func make() -> ObservationProbe {
    ObservationProbe(isTracked: !trackingIsDetectable)
  }

  @usableFromInline
  static func == (lhs: ObservationProbe, rhs: ObservationProbe) -> Bool {
    lhs === rhs
  }

  @usableFromInline
  func hash(into hasher: inout Hasher) {
    isTracked.store(true, ordering: .relaxed)
    hasher.combine(ObjectIdentifier(self))
  }

  /// Whether a read inside `withObservationTracking` reaches the probe; checked once per process.
  static let trackingIsDetectable: Bool = {
    let subject = ProbeSubject()
    let probe = ObservationProbe(isTracked: false)
    let keyPath = \ProbeSubject.[probe]
    withObservationTracking {
      subject.registrar.access(subject, keyPath: keyPath)
    } onChange: {
    }
    return probe.isTracked.load(ordering: .relaxed)
  }()
}

/// The smallest observable type, used only by ``ObservationProbe/trackingIsDetectable``.
private final class ProbeSubject: Observable, Sendable {
  let registrar = ObservationRegistrar()

  subscript(probe: ObservationProbe) -> Int { 0 }
}
