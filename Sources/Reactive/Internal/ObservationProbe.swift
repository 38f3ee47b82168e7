public import Observation
public import Synchronization

/// Tells a box whether Apple's Observation tracks it, so that an untracked box needs no registrar at all.
///
/// A registrar costs about 140 bytes, and telling it about a write costs tens of nanoseconds even when nobody
/// listens, several times the cost of the write itself. So an untracked box has no registrar: its reads go through
/// one ``sentinel`` registrar shared by every box, with a key path that carries a probe as a subscript argument
/// (one key path per value type). When a read happens inside `withObservationTracking` (or `Observations`), the
/// tracking machinery records the key path in a set, which hashes it, which hashes the probe, which counts one
/// ``hits``. A read that sees the count move gives its box a registrar of its own, registers the read with it,
/// and from then on the box reads and writes through that registrar. Outside tracking, a read only pays the
/// sentinel's check of its thread-local state and two relaxed loads.
///
/// Another thread's tracking can move the count during an untracked read; that box then gets a registrar for
/// nothing: slower, never wrong. A tracked read is never missed. The sentinel never announces a change, so the
/// tracking it joins is only ever ended by the box's own registrar or by the tracker itself.
///
/// The first box checks once per process that tracking really hashes the key path; if it ever stops doing so,
/// every box starts out tracked and always has a registrar.
@usableFromInline
final class ObservationProbe: Hashable, Sendable {
  /// How many times tracking has hashed a probe in this process.
  @usableFromInline
  let hits = Atomic<Int>(0)

  private init() {}

  /// The registrar every untracked box reads through; it is never told about a change.
  @usableFromInline
  let sentinel = ObservationRegistrar()

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
  private static let keyPaths = Lock<[ObjectIdentifier: AnyKeyPath]>([:])

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
