import Observation
public import Synchronization

#if canImport(Darwin)
  public import Darwin
#elseif canImport(Glibc)
  public import Glibc
#elseif canImport(Musl)
  public import Musl
#endif

/// Tells a box whether Apple's Observation tracks it, so that an untracked box needs no registrar at all.
///
/// A registrar costs about 140 bytes, and telling it about a write costs tens of nanoseconds even when nobody
/// listens, several times the cost of the write itself. So an untracked box has no registrar: its reads go through
/// a spare registrar of the reading thread (one per thread, see ``spare()``), with a key path
/// that carries a probe as a subscript argument (one key path per value type). When a read happens inside
/// `withObservationTracking` (or `Observations`), the tracking machinery records the key path in a set, which
/// hashes it, which hashes the probe, which counts one ``hits``. A read that sees the count move takes the spare
/// registrar it read through as its box's own registrar, and from then on the box reads and writes through it.
/// Outside tracking, a read pays a look-up of the thread's spare, Observation's check of its thread-local state
/// and two relaxed loads.
///
/// Why a spare per thread rather than one shared by every box: the tracking also registers its `onChange` with
/// the registrar the read went through, and only that registrar's end (or a change it announces) lets the
/// registration go. A spare shared for ever would keep the `onChange` of every tracked box that was freed without
/// changing, and all it captured, for ever. The spare a tracked read went through holds no registration but that
/// read's (the thread's next read gets a new spare), so it becomes the box's own registrar and ends with the box,
/// as the registrar of an `@Observable` object does.
///
/// Another thread's tracking can move the count during an untracked read; that box then gets a registrar for
/// nothing: slower, never wrong. A tracked read is never missed.
///
/// The first box checks once per process that tracking really hashes the key path; if it ever stops doing so,
/// every box starts out tracked and always has a registrar.
@usableFromInline
final class ObservationProbe: Hashable, Sendable {
  /// How many times tracking has hashed a probe in this process.
  @usableFromInline
  let hits = Atomic<Int>(0)

  /// The thread-local slot of each thread's spare registrar (a retained ``RegistrarHolder``).
  @usableFromInline let spareKey: pthread_key_t

  private init() {
    var key = pthread_key_t()
    // A thread that ends releases its spare.
    let created = pthread_key_create(&key) { spare in
      #if canImport(Darwin)
        Unmanaged<RegistrarHolder>.fromOpaque(spare).release()
      #else
        if let spare { Unmanaged<RegistrarHolder>.fromOpaque(spare).release() }
      #endif
    }
    precondition(created == 0, "no thread-local slot is left for Observation's spare registrars")
    spareKey = key
  }

  /// The calling thread's spare registrar, made on first use; the thread keeps it until it ends or a tracked
  /// read takes it (``takeSpare()``).
  @inlinable
  func spare() -> Unmanaged<RegistrarHolder> {
    if let stored = pthread_getspecific(spareKey) { return Unmanaged.fromOpaque(stored) }
    return makeSpare()
  }

  /// Gives the calling thread a new spare registrar; kept out of ``spare()`` so that its common path stays short.
  @usableFromInline
  @inline(never)
  func makeSpare() -> Unmanaged<RegistrarHolder> {
    let made = Unmanaged.passRetained(RegistrarHolder())
    pthread_setspecific(spareKey, made.toOpaque())
    return made
  }

  /// Hands the calling thread's spare to the caller, after a tracked read went through it: the tracking may
  /// register with it, so it must live exactly as long as the box read. The thread makes a new spare on its next
  /// read.
  @usableFromInline
  func takeSpare() -> RegistrarHolder {
    let spare = spare()
    // The slot's reference moves to the caller.
    pthread_setspecific(spareKey, nil)
    return spare.takeRetainedValue()
  }

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
