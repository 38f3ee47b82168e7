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
/// read that finds its spare reached takes that spare as its box's own registrar, and from then on the box reads
/// and writes through it. Outside tracking, a read pays a look-up of the thread's spare (on Linux, `pthread_self()`
/// and one entry of ``threadSlots``), Observation's check of its thread-local state, and a store and a load of the
/// spare's flag.
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

  /// The calling thread's spare registrar, made on first use; the thread keeps it until it ends or a tracked
  /// read takes it (``takeSpare()``).
  @inlinable
  @inline(__always)
  func spare() -> Unmanaged<RegistrarHolder> {
    #if canImport(Glibc)
      if let spare = threadSlots.spare(of: pthread_self()) { return spare }
      return slowSpare()
    #else
      if let stored = pthread_getspecific(spareKey) { return Unmanaged.fromOpaque(stored) }
      return makeSpare()
    #endif
  }

  #if canImport(Glibc)
    /// The calling thread's spare when its table entry holds none: a new one in its entry if the entry is its own
    /// or free, otherwise the one under ``spareKey``.
    @usableFromInline
    @inline(never)
    func slowSpare() -> Unmanaged<RegistrarHolder> {
      let thread = pthread_self()
      switch threadSlots.claim(for: thread) {
      case .owned(let entry):
        let made = Unmanaged.passRetained(RegistrarHolder())
        threadSlots.spares[entry] = made
        return made
      case .claimed(let entry):
        pthread_setspecific(slotKey, UnsafeRawPointer(bitPattern: entry + 1))
        let made = Unmanaged.passRetained(RegistrarHolder())
        threadSlots.spares[entry] = made
        return made
      case .heldByAnother:
        if let stored = pthread_getspecific(spareKey) { return Unmanaged.fromOpaque(stored) }
        return makeSpare()
      }
    }
  #endif

  /// The calling thread's spare, if it has one; never makes one.
  func existingSpare() -> Unmanaged<RegistrarHolder>? {
    #if canImport(Glibc)
      let thread = pthread_self()
      if let entry = threadSlots.entry(of: thread) { return threadSlots.spares[entry] }
    #endif
    return pthread_getspecific(spareKey).map { Unmanaged.fromOpaque($0) }
  }

  /// Gives the calling thread a new spare registrar under ``spareKey``; kept out of ``spare()`` so that its common
  /// path stays short.
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
    #if canImport(Glibc)
      if let entry = threadSlots.entry(of: pthread_self()), let spare = threadSlots.spares[entry] {
        // The entry's reference moves to the caller.
        threadSlots.spares[entry] = nil
        return spare.takeRetainedValue()
      }
    #endif
    let spare = spare()
    // The slot's reference moves to the caller.
    pthread_setspecific(spareKey, nil)
    return spare.takeRetainedValue()
  }

  /// Reports a read of `keyPath` of `subject` through the calling thread's spare registrar, and tells whether
  /// Observation tracked it.
  @inlinable
  @inline(__always)
  func accessThroughSpare<Subject: Observable, Member>(
    _ subject: Subject, keyPath: KeyPath<Subject, Member>
  ) -> Bool {
    spare()._withUnsafeGuaranteedRef { spare in
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
  static let trackingIsDetectable: Bool = {
    let subject = ProbeSubject()
    var reached = false
    withObservationTracking {
      reached = shared.accessThroughSpare(subject, keyPath: \ProbeSubject.[shared.marker])
    } onChange: {
    }
    // The tracking registered with the spare: let it end with the spare.
    if reached { _ = shared.takeSpare() }
    return reached
  }()

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

/// The smallest observable type, used only by ``ObservationProbe/trackingIsDetectable``.
private final class ProbeSubject: Observable, Sendable {
  subscript(marker: TrackingMarker) -> Int { 0 }
}

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

#if canImport(Glibc)
  /// A table of spare registrars, one entry per living thread that holds one, indexed by a hash of the thread's
  /// `pthread_self()` (see ``ObservationProbe``).
  ///
  /// An entry's owner is written only by a thread claiming a free entry for itself, and by its owner's end; its
  /// spare is read and written only by its owner. So a thread that finds itself as an entry's owner may use the
  /// spare without a lock.
  @usableFromInline
  struct ThreadSlots: Sendable {
    /// How many entries the table has; a power of two.
    @usableFromInline static var count: Int { 256 }

    /// Each entry's owner, as `pthread_self()` of a living thread, or zero.
    // Allocated once for the process and never freed; each entry is an atomic.
    @usableFromInline nonisolated(unsafe) let owners: UnsafeMutablePointer<Atomic<UInt>>
    /// Each entry's spare, right after the owners in the same allocation; only the entry's owner touches it.
    @inlinable var spares: UnsafeMutablePointer<Unmanaged<RegistrarHolder>?> {
      UnsafeMutableRawPointer(owners + Self.count).assumingMemoryBound(to: Unmanaged<RegistrarHolder>?.self)
    }

    init() {
      // One allocation: the owners, then the spares, both word-sized.
      owners = UnsafeMutableRawPointer.allocate(byteCount: 2 * Self.count * 8, alignment: 8)
        .bindMemory(to: Atomic<UInt>.self, capacity: Self.count)
      for entry in 0..<Self.count { (owners + entry).initialize(to: Atomic(0)) }
      UnsafeMutableRawPointer(owners + Self.count).initializeMemory(
        as: Unmanaged<RegistrarHolder>?.self, repeating: nil, count: Self.count)
    }

    /// The entry the thread `thread` may own.
    @inlinable
    @inline(__always)
    static func index(of thread: pthread_t) -> Int {
      Int(truncatingIfNeeded: (UInt64(thread) &* 0x9E37_79B9_7F4A_7C15) &>> 56)
    }

    /// The spare of `thread`, the calling thread, if its entry is its own and holds one.
    @inlinable
    @inline(__always)
    func spare(of thread: pthread_t) -> Unmanaged<RegistrarHolder>? {
      let entry = Self.index(of: thread)
      guard owners[entry].load(ordering: .relaxed) == thread else { return nil }
      return spares[entry]
    }

    /// The entry of `thread`, the calling thread, if it owns one.
    func entry(of thread: pthread_t) -> Int? {
      let entry = Self.index(of: thread)
      return owners[entry].load(ordering: .relaxed) == thread ? entry : nil
    }

    /// What ``claim(for:)`` found.
    enum Claim {
      /// The entry already belongs to the calling thread.
      case owned(Int)
      /// The entry was free and now belongs to the calling thread.
      case claimed(Int)
      /// Another living thread owns the entry.
      case heldByAnother
    }

    /// Makes the entry of `thread`, the calling thread, its own if it is free.
    func claim(for thread: pthread_t) -> Claim {
      let entry = Self.index(of: thread)
      // Acquiring: the spare the entry's last owner cleared at its end is seen cleared.
      let (exchanged, owner) = owners[entry].compareExchange(
        expected: 0, desired: thread, ordering: .acquiring)
      if exchanged { return .claimed(entry) }
      return owner == thread ? .owned(entry) : .heldByAnother
    }

    /// Gives `entry` back at the end of its owner, the calling thread, releasing the spare in it.
    func release(_ entry: Int) {
      let spare = spares[entry]
      spares[entry] = nil
      // Releasing: the next owner sees the entry's spare cleared.
      owners[entry].store(0, ordering: .releasing)
      spare?.release()
    }
  }
#endif
