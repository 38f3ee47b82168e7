import Observation
public import Synchronization

/// Tells a box whether Apple's Observation has tracked it, so an untracked box skips the registrar on writes.
///
/// Telling the registrar about a write costs tens of nanoseconds even when nobody listens, several times the cost
/// of the write itself. So a box reads through a key path that carries a probe as a subscript argument (one key
/// path per value type, shared by every box of that type). When a read happens inside `withObservationTracking`
/// (or `Observations`), the tracking machinery records the key path in a set, which hashes it, which hashes the
/// probe, which counts one ``hits``. A read that sees the count move marks its box as tracked, and from then on
/// every write of that box goes through the registrar. Outside tracking, a read only pays the registrar's check
/// of its thread-local state and two relaxed loads.
///
/// Another thread's tracking can move the count during an untracked read; that box is then marked tracked for
/// nothing and pays the registrar on writes: slower, never wrong. A box that was tracked is never missed.
///
/// The first box checks once per process that tracking really hashes the key path; if it ever stops doing so,
/// every box starts out tracked and always talks to the registrar.
@usableFromInline
final class ObservationProbe: Hashable, Sendable {
  /// How many times tracking has hashed a probe in this process.
  @usableFromInline
  let hits = Atomic<Int>(0)

  private init() {}

  /// The one probe of the process.
  @usableFromInline
  static let shared = ObservationProbe()

  @usableFromInline
  static func == (lhs: ObservationProbe, rhs: ObservationProbe) -> Bool {
    lhs === rhs
  }

  @usableFromInline
  func hash(into hasher: inout Hasher) {
    hits.add(1, ordering: .relaxed)
    hasher.combine(ObjectIdentifier(self))
  }

  /// Whether a read inside `withObservationTracking` reaches the probe; checked once per process.
  @usableFromInline
  static let trackingIsDetectable: Bool = {
    let subject = ProbeSubject()
    let before = shared.hits.load(ordering: .relaxed)
    withObservationTracking {
      subject.registrar.access(subject, keyPath: \ProbeSubject.[shared])
    } onChange: {
    }
    return shared.hits.load(ordering: .relaxed) != before
  }()

  /// Key paths already made, by value type: making one with an argument costs about a microsecond.
  private static let keyPaths = Mutex<[ObjectIdentifier: AnyKeyPath]>([:])

  /// The key path through which boxes of `Value` report reads and writes to Observation.
  @usableFromInline
  static func keyPath<Value: Sendable>(for type: ReactiveBox<Value>.Type) -> KeyPath<ReactiveBox<Value>, Value> {
    let made = keyPaths.withLock { keyPaths in
      if let existing = keyPaths[ObjectIdentifier(type)] { return existing }
      let keyPath: AnyKeyPath = \ReactiveBox<Value>.[observationProbe: shared]
      keyPaths[ObjectIdentifier(type)] = keyPath
      return keyPath
    }
    return unsafeDowncast(made, to: KeyPath<ReactiveBox<Value>, Value>.self)
  }
}

/// The smallest observable type, used only by ``ObservationProbe/trackingIsDetectable``.
private final class ProbeSubject: Observable, Sendable {
  let registrar = ObservationRegistrar()

  subscript(probe: ObservationProbe) -> Int { 0 }
}
