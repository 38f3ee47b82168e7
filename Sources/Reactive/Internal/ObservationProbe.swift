public import Observation
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
/// a spare registrar of the reading thread (one per thread, see ``spare()``), under ``keyPath``, a key path that
/// carries a ``TrackingMarker`` as a subscript argument. When a read happens inside `withObservationTracking` (or
/// `Observations`), the tracking machinery records the key path in a set, which hashes it, which hashes the
/// marker, which sets ``RegistrarHolder/reached`` of the reading thread's spare. A read that finds its spare
/// reached takes that spare as its box's own registrar, and from then on the box reads and writes through it.
/// Outside tracking, a read pays a look-up of the thread's spare, Observation's check of its thread-local state,
/// and a store and a load of the spare's flag.
///
/// Every read and change is reported with the probe as its subject: Observation only uses the key path and the
/// registrar, and the probe's type is not generic, so reaching its conformance costs nothing.
///
/// Why a spare per thread rather than one shared by every box: the tracking also registers its `onChange` with
/// the registrar the read went through, and only that registrar's end (or a change it announces) lets the
/// registration go. A spare shared for ever would keep the `onChange` of every tracked box that was freed without
/// changing, and all it captured, for ever. The spare a tracked read went through holds no registration but that
/// read's (the thread's next read gets a new spare), so it becomes the box's own registrar and ends with the box,
/// as the registrar of an `@Observable` object does.
///
/// The flag is the reading thread's own: other threads' tracking never marks it, so an untracked read never gets
/// a registrar, and a tracked read is never missed. A marker hashed outside a read (when the tracking registers,
/// or when a tracked box tells its registrar of a change) may set the flag of the thread's spare; every read
/// clears it before going through the spare.
///
/// The first box checks once per process that tracking really hashes the key path; if it ever stops doing so,
/// every box starts out tracked and always has a registrar.
@usableFromInline
final class ObservationProbe: Observable, Sendable {
  /// The thread-local slot of each thread's spare registrar (a retained ``RegistrarHolder``).
  @usableFromInline let spareKey: pthread_key_t

  /// The key path through which every box reports reads and changes to Observation, with the probe as subject.
  // Key paths are immutable once made, and this one captures only a marker, which is Sendable; `KeyPath` simply
  // does not declare the conformance.
  @usableFromInline
  nonisolated(unsafe) let keyPath: KeyPath<ObservationProbe, Int>

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
    keyPath = \ObservationProbe.[marker: TrackingMarker(spareKey: key)]
  }

  /// The value under ``keyPath``; Observation never reads it.
  subscript(marker marker: TrackingMarker) -> Int { 0 }

  /// The calling thread's spare registrar, made on first use; the thread keeps it until it ends or a tracked
  /// read takes it (``takeSpare()``).
  @inlinable
  @inline(__always)
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

  /// Reports a read through the calling thread's spare registrar, and tells whether Observation tracked it.
  @inlinable
  @inline(__always)
  func accessThroughSpare() -> Bool {
    spare()._withUnsafeGuaranteedRef { spare in
      spare.reached.store(false, ordering: .relaxed)
      spare.registrar.access(self, keyPath: keyPath)
      return spare.reached.load(ordering: .relaxed)
    }
  }

  /// The one probe of the process.
  @usableFromInline
  static let shared = ObservationProbe()

  /// Whether a read inside `withObservationTracking` reaches the marker; checked once per process.
  @usableFromInline
  static let trackingIsDetectable: Bool = {
    var reached = false
    withObservationTracking {
      reached = shared.accessThroughSpare()
    } onChange: {
    }
    // The tracking registered with the spare: let it end with the spare.
    if reached { _ = shared.takeSpare() }
    return reached
  }()
}

/// The subscript argument of ``ObservationProbe/keyPath``: hashing it marks the calling thread's spare registrar
/// as reached by a tracking.
@usableFromInline
final class TrackingMarker: Hashable, Sendable {
  let spareKey: pthread_key_t

  init(spareKey: pthread_key_t) {
    self.spareKey = spareKey
  }

  @usableFromInline
  static func == (lhs: TrackingMarker, rhs: TrackingMarker) -> Bool {
    lhs === rhs
  }

  @usableFromInline
  func hash(into hasher: inout Hasher) {
    if let spare = pthread_getspecific(spareKey) {
      Unmanaged<RegistrarHolder>.fromOpaque(spare)._withUnsafeGuaranteedRef {
        $0.reached.store(true, ordering: .relaxed)
      }
    }
    hasher.combine(ObjectIdentifier(self))
  }
}
