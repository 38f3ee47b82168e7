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
/// a spare registrar of the reading thread (one per thread, see ``spare()``), under a key path that carries the
/// probe's ``marker`` as a subscript argument (one key path per value type). When a read happens inside
/// `withObservationTracking` (or `Observations`), the tracking machinery records the key path in a set, which
/// hashes it, which hashes the marker, which sets ``RegistrarHolder/reached`` of the reading thread's spare. A
/// read that finds its spare reached takes that spare as its box's own registrar and publishes it
/// (``PublishedRegistrar``): from then on the box's reads and writes go straight to it, finding it without the
/// lock, the probe or a spare. Outside tracking, a read pays a look-up of the thread's spare (on Linux, `pthread_self()` and one
/// entry of ``threadSlots``), Observation's check of its thread-local state, and a store and a load of the spare's
/// flag.
///
/// What that costs is measured by `Benchmarks --instruction-probe` (instructions per read, beside a bare `Mutex`
/// read; the figures, with their date, are in `Benchmarks/README.md`). Most of what a tracked read adds to the lock is Observation's `access` (in libswiftObservation, whose
/// thread-local state a shared library reaches through the dynamic linker's `__tls_get_addr`), plus the look-up of
/// the box's `Observable` conformance and the call. Only `access` can tell whether a tracking runs on the calling
/// thread, so every read makes it. What an untracked read adds is the spare's look-up and flag.
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
final class ObservationProbe: Sendable {
  /// The thread-local slot of each thread's spare registrar (a retained ``RegistrarHolder``), for threads whose
  /// ``threadSlots`` entry another thread holds.
  @usableFromInline let spareKey: pthread_key_t

  #if canImport(Glibc)
    /// Where most threads keep their spare: a table indexed by a hash of `pthread_self()`, cheaper to reach than
    /// `pthread_getspecific`. Each entry belongs to at most one living thread; a thread whose entry another
    /// thread holds keeps its spare under ``spareKey`` instead.
    @usableFromInline let threadSlots = ThreadSlots()
    /// The thread-local slot that only tells a thread's end to give its ``threadSlots`` entry back.
    let slotKey: pthread_key_t
  #endif

  /// The subscript argument of every key path through which boxes report reads and changes to Observation.
  @usableFromInline let marker = TrackingMarker()

  private init() {
    var key = pthread_key_t()
    // A thread that ends releases its spare.
    var created = pthread_key_create(&key) { spare in
      #if canImport(Darwin)
        Unmanaged<RegistrarHolder>.fromOpaque(spare).release()
      #else
        if let spare { Unmanaged<RegistrarHolder>.fromOpaque(spare).release() }
      #endif
    }
    precondition(created == 0, "no thread-local slot is left for Observation's spare registrars")
    spareKey = key
    #if canImport(Glibc)
      // A thread that ends gives its table entry back, with the spare in it.
      created = pthread_key_create(&key) { entry in
        if let entry { ObservationProbe.shared.threadSlots.release(Int(bitPattern: entry) - 1) }
      }
      precondition(created == 0, "no thread-local slot is left for Observation's spare registrars")
      slotKey = key
    #endif
  }

  /// The calling thread's spare registrar and where it keeps it, made on first use; the thread keeps it until it
  /// ends or a tracked read takes it (``takeSpare(_:)``).
  @inlinable
  @inline(__always)
  func spare() -> SpareRead {
    #if canImport(Glibc)
      if let spare = threadSlots.spare(of: pthread_self()) { return spare }
      return slowSpare()
    #else
      if let stored = pthread_getspecific(spareKey) {
        return SpareRead(spare: Unmanaged.fromOpaque(stored), entry: SpareRead.keptUnderKey)
      }
      return makeSpare()
    #endif
  }

  #if canImport(Glibc)
    /// The calling thread's spare when its table entry holds none: the one under ``spareKey`` if it has one (so a
    /// thread whose entry another thread holds does not try to claim it on every read), otherwise a new one in its
    /// entry if the entry is its own or free, otherwise a new one under ``spareKey``.
    @usableFromInline
    @inline(never)
    func slowSpare() -> SpareRead {
      if let stored = pthread_getspecific(spareKey) {
        return SpareRead(spare: Unmanaged.fromOpaque(stored), entry: SpareRead.keptUnderKey)
      }
      let thread = pthread_self()
      switch threadSlots.claim(for: thread) {
      case .owned(let entry):
        // The entry may be one a dead thread with the same `pthread_t` left behind (it read after its end gave the
        // entry back): make sure this thread's end gives it back.
        if pthread_getspecific(slotKey) == nil,
          pthread_setspecific(slotKey, UnsafeRawPointer(bitPattern: entry + 1)) != 0
        {
          threadSlots.release(entry)
          return makeSpare()
        }
        return fillEntry(entry)
      case .claimed(let entry):
        guard pthread_setspecific(slotKey, UnsafeRawPointer(bitPattern: entry + 1)) == 0 else {
          // Without the slot, this thread's end would not give the entry back.
          threadSlots.release(entry)
          return makeSpare()
        }
        return fillEntry(entry)
      case .heldByAnother:
        return makeSpare()
      }
    }

    /// Puts a new spare in `entry`, the calling thread's own.
    private func fillEntry(_ entry: Int) -> SpareRead {
      let made = Unmanaged.passRetained(RegistrarHolder())
      threadSlots.spares[entry] = made
      return SpareRead(spare: made, entry: entry)
    }
  #endif

  /// The calling thread's spare, if it has one; never makes one.
  func existingSpare() -> Unmanaged<RegistrarHolder>? {
    #if canImport(Glibc)
      let thread = pthread_self()
      if let entry = threadSlots.entry(of: thread), let spare = threadSlots.spares[entry] { return spare }
    #endif
    return pthread_getspecific(spareKey).map { Unmanaged.fromOpaque($0) }
  }

  /// Gives the calling thread a new spare registrar under ``spareKey``; kept out of ``spare()`` so that its common
  /// path stays short.
  @usableFromInline
  @inline(never)
  func makeSpare() -> SpareRead {
    let made = Unmanaged.passRetained(RegistrarHolder())
    let stored = pthread_setspecific(spareKey, made.toOpaque())
    precondition(stored == 0, "no memory is left for Observation's spare registrar of this thread")
    return SpareRead(spare: made, entry: SpareRead.keptUnderKey)
  }

  /// Hands the spare a tracked read went through (`read`, from ``accessThroughSpare(_:keyPath:)`` on the calling
  /// thread) to the caller: the tracking may register with it, so it must live exactly as long as the box read.
  /// Takes it from where the read found it; never claims an entry or makes a spare. The thread makes a new spare on
  /// its next read.
  @usableFromInline
  func takeSpare(_ read: SpareRead) -> RegistrarHolder {
    #if canImport(Glibc)
      if read.entry != SpareRead.keptUnderKey {
        precondition(
          threadSlots.spares[read.entry]?.toOpaque() == read.spare.toOpaque(), "a spare registrar left its entry")
        // The entry's reference moves to the caller.
        threadSlots.spares[read.entry] = nil
        return read.spare.takeRetainedValue()
      }
    #endif
    precondition(pthread_getspecific(spareKey) == read.spare.toOpaque(), "a spare registrar left its slot")
    // The slot's reference moves to the caller.
    pthread_setspecific(spareKey, nil)
    return read.spare.takeRetainedValue()
  }

  /// Reports a read of `keyPath` of `subject` through the calling thread's spare registrar; returns the spare it
  /// went through if Observation tracked the read, `nil` otherwise.
  @inlinable
  @inline(__always)
  func accessThroughSpare<Subject: Observable, Member>(
    _ subject: Subject, keyPath: KeyPath<Subject, Member>
  ) -> SpareRead? {
    let read = spare()
    return access(subject, keyPath: keyPath, through: read) ? read : nil
  }

  /// Reports a read of `keyPath` of `subject` through `read`, the calling thread's spare, and tells whether a
  /// tracking reached the marker.
  @inlinable
  @inline(__always)
  func access<Subject: Observable, Member>(
    _ subject: Subject, keyPath: KeyPath<Subject, Member>, through read: SpareRead
  ) -> Bool {
    read.spare._withUnsafeGuaranteedRef { spare in
      spare.reached.store(false, ordering: .relaxed)
      spare.registrar.access(subject, keyPath: keyPath)
      return spare.reached.load(ordering: .relaxed)
    }
  }

  /// The one probe of the process.
  @usableFromInline
  static let shared = ObservationProbe()

  /// Whether a read inside `withObservationTracking` reaches the marker; checked once per process.
  @usableFromInline
  static let trackingIsDetectable = detectsTracking(of: \ProbeSubject.[shared.marker])

  /// Whether a tracked read of `keyPath` through the calling thread's spare reaches the marker. The tracking
  /// registers with the spare whether or not it does, so the spare is taken either way and ends here, with the
  /// registration.
  static func detectsTracking(of keyPath: KeyPath<ProbeSubject, Int>) -> Bool {
    let subject = ProbeSubject()
    let read = shared.spare()
    var reached = false
    withObservationTracking {
      reached = shared.access(subject, keyPath: keyPath, through: read)
    } onChange: {
    }
    _ = shared.takeSpare(read)
    return reached
  }

  /// Key paths already made, by value type: making one with an argument costs about a microsecond.
  private static let keyPaths = Lock<[ObjectIdentifier: AnyKeyPath]>([:])

  /// The key path through which boxes of `Value` report reads and changes to Observation.
  @usableFromInline
  static func keyPath<Value: Sendable>(for type: ReactiveBox<Value>.Type) -> KeyPath<ReactiveBox<Value>, Value> {
    let made = keyPaths.withLock { keyPaths in
      if let existing = keyPaths[ObjectIdentifier(type)] { return existing }
      let keyPath: AnyKeyPath = \ReactiveBox<Value>.[observationMarker: shared.marker]
      keyPaths[ObjectIdentifier(type)] = keyPath
      return keyPath
    }
    return unsafeDowncast(made, to: KeyPath<ReactiveBox<Value>, Value>.self)
  }
}
