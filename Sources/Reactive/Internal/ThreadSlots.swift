#if canImport(Glibc)
  public import Glibc
  public import Synchronization

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
    // Safe to share: allocated once for the process and never freed, and every entry is an atomic. The spares that
    // follow the owners in the same allocation are plain words, safe because only an entry's owner touches its spare
    // (`spares[entry]`): it reads and writes it only after it found itself the owner, and it gives the entry back
    // with a releasing store after clearing the spare.
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

    /// The spare of `thread`, the calling thread, and its entry, if the entry is its own and holds one.
    @inlinable
    @inline(__always)
    func spare(of thread: pthread_t) -> SpareRead? {
      let entry = Self.index(of: thread)
      guard owners[entry].load(ordering: .relaxed) == thread, let spare = spares[entry] else { return nil }
      return SpareRead(spare: spare, entry: entry)
    }

    /// The entry of `thread`, the calling thread, if it owns one.
    func entry(of thread: pthread_t) -> Int? {
      let entry = Self.index(of: thread)
      return owners[entry].load(ordering: .relaxed) == thread ? entry : nil
    }

    /// What ``claim(for:)`` found.
    enum Claim: Equatable {
      /// The entry already belongs to the calling thread.
      case owned(Int)
      /// The entry was free and now belongs to the calling thread.
      case claimed(Int)
      /// Another living thread owns the entry.
      case heldByAnother
    }

    /// Makes the entry of `thread`, the calling thread, its own if it is free.
    ///
    /// An entry another thread holds is only loaded, never written: a thread that shares an entry with a living
    /// one does not take the entry's cache line away from its owner.
    func claim(for thread: pthread_t) -> Claim {
      let entry = Self.index(of: thread)
      let owner = owners[entry].load(ordering: .relaxed)
      if owner == thread { return .owned(entry) }
      if owner != 0 { return .heldByAnother }
      // Acquiring: the spare the entry's last owner cleared at its end is seen cleared.
      let (exchanged, found) = owners[entry].compareExchange(expected: 0, desired: thread, ordering: .acquiring)
      if exchanged { return .claimed(entry) }
      return found == thread ? .owned(entry) : .heldByAnother
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
