#if canImport(Glibc)
  import Dispatch
  import Glibc
  import Observation
  import Synchronization
  import TestSupport
  import Testing

  @testable import Reactive

  /// The table through which a thread finds its spare registrar (``ThreadSlots``), and how ``ObservationProbe``
  /// uses it: claiming, sharing, giving back and taking over entries, and taking a tracked read's spare.
  ///
  /// Threads here are made with `pthread_create` and joined, so that a test sees a thread's end (its thread-local
  /// destructors) complete. A thread's entry depends on its `pthread_t`; a test that needs an entry another thread
  /// holds makes it held by hand, with an owner no living thread has (see ``onThreadWithEntryHeld(_:)``).
  // Joining threads and waiting for them blocks: each test runs on a queue of its own, off the cooperative pool.
  @Suite(.offTheCooperativePool) struct ThreadSlotsTests {
    let probe = ObservationProbe.shared

    /// A thread whose entry another thread holds reads a box inside a tracking, through a spare under the
    /// thread-local key; the other thread ends before the read takes the spare. The read takes exactly the spare it
    /// went through, without claiming the freed entry or making a spare.
    @Test func aTrackedReadTakesTheSpareItWentThroughWhenTheEntryFreesMeanwhile() async {
      let outcome = await onThreadWithEntryHeld { entry in
        let probe = ObservationProbe.shared
        let box = ReactiveBox(0)
        var read: SpareRead?
        withObservationTracking {
          read = probe.accessThroughSpare(box, keyPath: box.observationKeyPath)
        } onChange: {
        }
        guard let read else { return "the read was not tracked" }
        guard read.entry == SpareRead.keptUnderKey else { return "the read did not use the key" }
        // The other thread ends.
        probe.threadSlots.release(entry)
        var taken: RegistrarHolder? = probe.takeSpare(read)
        weak let watched = taken
        var problems: [String] = []
        if taken !== read.spare.takeUnretainedValue() { problems.append("took another spare") }
        if pthread_getspecific(probe.spareKey) != nil { problems.append("the key still holds a spare") }
        if probe.threadSlots.owners[entry].load(ordering: .relaxed) != 0 { problems.append("claimed the entry") }
        if probe.threadSlots.spares[entry] != nil { problems.append("made a spare in the entry") }
        taken = nil
        if watched != nil { problems.append("the taken spare outlived its taker") }
        return problems.joined(separator: ", ")
      }
      #expect(outcome == "")
    }

    /// A thread whose entry another thread holds keeps its spare under the key, and keeps using it (without trying
    /// the entry again) after the entry frees; once a tracked read takes that spare, its next read takes the entry
    /// over.
    @Test func aThreadWithASpareUnderTheKeyKeepsItThenTakesOverTheFreedEntry() async {
      let outcome = await onThreadWithEntryHeld { entry in
        let probe = ObservationProbe.shared
        let thread = UInt(pthread_self())
        let box = ReactiveBox(7)
        var problems: [String] = []
        if box.value != 7 { problems.append("first read") }
        let underKey = pthread_getspecific(probe.spareKey)
        if underKey == nil { problems.append("no spare under the key") }
        // The other thread ends.
        probe.threadSlots.release(entry)
        if box.value != 7 { problems.append("second read") }
        if pthread_getspecific(probe.spareKey) != underKey { problems.append("the spare under the key changed") }
        if probe.threadSlots.owners[entry].load(ordering: .relaxed) != 0 { problems.append("claimed too early") }
        // A tracked read takes the spare under the key; the next read takes the entry over.
        let tracked = ReactiveBox(1)
        _ = withObservationTracking {
          tracked.value
        } onChange: {
        }
        if pthread_getspecific(probe.spareKey) != nil { problems.append("the tracked read left the key's spare") }
        if box.value != 7 { problems.append("third read") }
        if probe.threadSlots.owners[entry].load(ordering: .relaxed) != thread { problems.append("did not take over") }
        if probe.threadSlots.spares[entry] == nil { problems.append("no spare in the entry") }
        if pthread_getspecific(probe.spareKey) != nil { problems.append("made a spare under the key") }
        return problems.joined(separator: ", ")
      }
      #expect(outcome == "")
    }

    /// Two living threads whose `pthread_t` hash to the same entry: the first owns the entry, the second keeps its
    /// spare under the key, and both read, plain and tracked.
    @Test func twoThreadsSharingAnEntryBothRead() async throws {
      // The waits and joins run on a thread of their own, never on the shared pool.
      let found = await onThreadOfItsOwn { Self.twoThreadsSharingAnEntry() }
      let (first, second) = try #require(found)
      #expect(first.readsWork && first.ownsEntry && !first.usesKey)
      #expect(second.readsWork && !second.ownsEntry && second.usesKey)
    }

    /// What each of two threads sharing an entry (one owning it, the other using a spare under the key) saw.
    struct Report: Sendable {
      var entry: Int
      var ownsEntry: Bool
      var usesKey: Bool
      var readsWork: Bool
    }

    /// Starts threads until two share an entry, one owning it; returns what each saw.
    private static func twoThreadsSharingAnEntry() -> (Report, Report)? {
      let reports = Mutex<[Report]>([])
      let release = DispatchSemaphore(value: 0)
      var threads: [JoinedThread] = []
      var pair: (Report, Report)?
      // By the pigeonhole principle two of 2 * count threads share an entry that one of them owns, unless other
      // threads hold almost every entry.
      for _ in 0..<(2 * ThreadSlots.count) {
        let done = DispatchSemaphore(value: 0)
        threads.append(
          JoinedThread {
            let probe = ObservationProbe.shared
            let box = ReactiveBox(3)
            var readsWork = box.value == 3
            let thread = pthread_self()
            let ownsEntry = probe.threadSlots.entry(of: thread) != nil
            let usesKey = pthread_getspecific(probe.spareKey) != nil
            let changed = Mutex(false)
            readsWork =
              readsWork
              && withObservationTracking {
                box.value
              } onChange: {
                changed.withLock { $0 = true }
              } == 3
            box.withLock { $0 = 4 }
            readsWork = readsWork && changed.withLock { $0 } && box.value == 4
            let report = Report(
              entry: ThreadSlots.index(of: thread), ownsEntry: ownsEntry, usesKey: usesKey, readsWork: readsWork)
            reports.withLock { $0.append(report) }
            done.signal()
            // Stays alive, so that the next thread gets another `pthread_t` and its owner stays alive.
            release.wait()
          })
        done.wait()
        pair = reports.withLock { reports in
          guard let last = reports.last else { return nil }
          return reports.dropLast().first { $0.entry == last.entry && $0.ownsEntry }.map { ($0, last) }
        }
        if pair != nil { break }
      }
      for _ in threads { release.signal() }
      for thread in threads { thread.join() }
      return pair
    }

    /// A thread's end gives its entry back and releases the spare in it.
    @Test func aThreadsEndGivesItsEntryBackAndReleasesItsSpare() async {
      let spare = WeakSpare()
      let outcome = await onThreadWithEntryHeld { entry in
        let probe = ObservationProbe.shared
        probe.threadSlots.owners[entry].store(0, ordering: .releasing)
        _ = ReactiveBox(0).value
        spare.set(probe.existingSpare()?.takeUnretainedValue())
        return probe.threadSlots.entry(of: pthread_self()) == entry ? "" : "did not claim its free entry"
      }
      #expect(outcome == "")
      #expect(spare.get() == nil, "the spare outlived its thread")
    }

    /// A thread that finds its entry already its own (left behind by a dead thread with the same `pthread_t` that
    /// read after its end gave the entry back) makes sure its own end gives the entry back.
    @Test func aThreadThatFindsItsEntryAlreadyItsOwnGivesItBackAtItsEnd() async {
      let outcome = await onThreadWithEntryHeld { entry in
        let probe = ObservationProbe.shared
        // As a dead thread with this `pthread_t` left it: owned by this thread, no spare, and nothing to give it
        // back at this thread's end.
        probe.threadSlots.owners[entry].store(UInt(pthread_self()), ordering: .relaxed)
        _ = ReactiveBox(0).value
        var problems: [String] = []
        if pthread_getspecific(probe.spareKey) != nil { problems.append("used the key") }
        if pthread_getspecific(probe.slotKey) == nil { problems.append("its end would not give the entry back") }
        return problems.joined(separator: ", ")
      }
      #expect(outcome == "")
    }

    /// The once-per-process check that tracking reaches the marker takes the spare its tracked read went through
    /// even when the marker is not reached: the tracking registered with it.
    @Test func theTrackingCheckTakesItsSpareEvenWhenTheMarkerIsNotReached() {
      let spare = WeakSpare()
      spare.set(probe.spare().spare.takeUnretainedValue())
      #expect(!ObservationProbe.detectsTracking(of: \ProbeSubject.unmarked))
      #expect(probe.existingSpare() == nil)
      #expect(spare.get() == nil, "the spare the tracking registered with was kept")
    }

    /// Claiming an entry: a free one is claimed, one's own is owned, one another thread holds is left alone.
    @Test func claimingAnEntry() {
      let slots = ThreadSlots()
      let thread = pthread_t(0x1234_5000)
      let entry = ThreadSlots.index(of: thread)
      #expect(slots.claim(for: thread) == .claimed(entry))
      #expect(slots.claim(for: thread) == .owned(entry))
      #expect(slots.entry(of: thread) == entry)
      let other = (1...).lazy.map { pthread_t(0x1234_5000 + $0 * 0x1000) }.first {
        ThreadSlots.index(of: $0) == entry
      }!
      #expect(slots.claim(for: other) == .heldByAnother)
      #expect(slots.entry(of: other) == nil)
      slots.release(entry)
      #expect(slots.claim(for: other) == .claimed(entry))
      #expect(slots.entry(of: thread) == nil)
    }
  }

  /// Runs `body(entry)` on a thread of its own, while its entry `entry` is held by an owner that is no living
  /// thread, and returns what it returns. A thread whose entry a living thread holds stays alive meanwhile (so the
  /// next thread gets another `pthread_t`) and the next one tries.
  ///
  /// Its waits and joins run on a thread of their own too (``onThreadOfItsOwn(_:)``), never on the shared pool.
  private func onThreadWithEntryHeld(_ body: @escaping @Sendable (Int) -> String) async -> String {
    await onThreadOfItsOwn { runWithEntryHeld(body) }
  }

  /// The part of ``onThreadWithEntryHeld(_:)`` that waits for and joins its threads.
  private func runWithEntryHeld(_ body: @escaping @Sendable (Int) -> String) -> String {
    let outcome = Mutex<String?>(nil)
    let release = DispatchSemaphore(value: 0)
    var parked: [JoinedThread] = []
    for _ in 0..<64 {
      let decided = DispatchSemaphore(value: 0)
      let held = Mutex(false)
      let thread = JoinedThread {
        let slots = ObservationProbe.shared.threadSlots
        let entry = ThreadSlots.index(of: pthread_self())
        // An owner no living thread has: `pthread_t` values are addresses, aligned.
        let (isHeld, _) = slots.owners[entry].compareExchange(expected: 0, desired: 1, ordering: .acquiring)
        held.withLock { $0 = isHeld }
        decided.signal()
        guard isHeld else {
          release.wait()
          return
        }
        let result = body(entry)
        // The entry is given back if the fake owner still holds it; this thread's end gives it back otherwise.
        _ = slots.owners[entry].compareExchange(expected: 1, desired: 0, ordering: .releasing)
        outcome.withLock { $0 = result }
      }
      decided.wait()
      if held.withLock({ $0 }) {
        thread.join()
        break
      }
      parked.append(thread)
    }
    for _ in parked { release.signal() }
    for thread in parked { thread.join() }
    return outcome.withLock { $0 } ?? "no thread had its entry free"
  }

  /// A thread of its own, started at once; ``join()`` returns once it has ended, its thread-local destructors run.
  private final class JoinedThread {
    private final class Body {
      let run: @Sendable () -> Void
      init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }

    private var handle = pthread_t()

    init(_ body: @escaping @Sendable () -> Void) {
      let context = Unmanaged.passRetained(Body(body)).toOpaque()
      let created = pthread_create(
        &handle, nil,
        { context in
          Unmanaged<Body>.fromOpaque(context!).takeRetainedValue().run()
          return nil
        }, context)
      precondition(created == 0, "no thread could be made")
    }

    func join() { pthread_join(handle, nil) }
  }

  /// A weak reference to a spare registrar's holder, readable from any thread.
  private final class WeakSpare: Sendable {
    private let holder = Mutex<Weak>(Weak())
    private struct Weak { weak var value: RegistrarHolder? }
    func set(_ value: RegistrarHolder?) { holder.withLock { $0.value = value } }
    func get() -> RegistrarHolder? { holder.withLock { $0.value } }
  }
#endif
