import Reactive
import Synchronization

/// The readers behind ``QueryStore/mutationStates(matching:)``: each keeps what
/// ``QueryStore/mutations(matching:)`` returns for its filter, read again whenever a run of a mutation its filter's
/// key reaches starts or ends, or a mutation state under such a key is freed.
///
/// A reader is read again outside every lock (its filter's predicate is the app's code), by one thread at a time:
/// an event that comes while a thread reads it only counts a new generation, and the reading thread, once it has
/// written what it read, reads again until no event came in between. So the reader's writes come in order, and the
/// last one always follows the last event. A reading that lists the same runs in the same states as the reader
/// shows is not written.
///
/// Readers are kept weakly, as ``QueryActivityTracker`` keeps its: one nobody holds any more is dropped the next
/// time an event looks at the readers. While there is none, an event costs one relaxed atomic load.
final class MutationStatesTracker: Sendable {
  /// Whether the tracker keeps a reader: written under ``state``'s lock, read by every event first.
  private let hasReaders = Atomic<Bool>(false)
  private let state = Lock(State())

  private struct State: ~Copyable {
    var readers: [Int: Reader] = [:]
    var nextID = 0
  }

  /// The value of ``QueryStore/mutationStates(matching:)`` for one call, while someone holds it.
  private struct Reader {
    let filter: MutationFilter
    /// Reads the runs the filter reaches (``QueryStore/mutations(matching:)``); call outside every lock.
    let read: @Sendable () -> [MutationSnapshot]
    weak var box: ReactiveBox<[MutationSnapshot]>?
    /// How many events concerned the reader: a reading is current only if no event came after it started.
    var generation: UInt64 = 0
    /// Whether a thread is reading the reader again (and will until it is current).
    var isReading = true
  }

  /// A reading to make after the lock.
  private struct Reading {
    let id: Int
    let generation: UInt64
    let read: @Sendable () -> [MutationSnapshot]
    let box: ReactiveBox<[MutationSnapshot]>
  }

  init() {}

  /// A new reader of the runs `filter` reaches, as `read` lists them, read once before it is returned.
  func reader(
    of filter: MutationFilter,
    read: @escaping @Sendable () -> [MutationSnapshot]
  ) -> ReactiveBox<[MutationSnapshot]> {
    let box = ReactiveBox<[MutationSnapshot]>([])
    let reading = state.withLockReleasingAfter {
      state -> (result: Reading, released: (dropped: [Reader], loaded: [ReactiveBox<[MutationSnapshot]>])) in
      let dropped = Self.dropReadersNobodyHolds(in: &state)
      let id = state.nextID
      state.nextID += 1
      state.readers[id] = Reader(filter: filter, read: read, box: box)
      hasReaders.store(true, ordering: .relaxed)
      return (Reading(id: id, generation: 0, read: read, box: box), dropped)
    }
    readUntilCurrent(reading)
    return box
  }

  /// A run of the mutation named `key` (`nil`: a mutation state held under another kind of key) started or ended,
  /// or the mutation state of `key` was freed: every reader whose filter's key reaches it reads again. Call after
  /// the change shows in the mutation's state, outside every lock.
  func changed(_ key: QueryKey?) {
    guard let key, hasReaders.load(ordering: .relaxed) else { return }
    let readings = state.withLockReleasingAfter {
      state -> (result: [Reading], released: (dropped: [Reader], loaded: [ReactiveBox<[MutationSnapshot]>])) in
      let released = Self.dropReadersNobodyHolds(in: &state)
      var readings: [Reading] = []
      for (id, reader) in state.readers where reader.filter.reaches(key) {
        // Loaded before, in `released.loaded`: this reference is not the last, and the box is let go after the lock.
        guard let box = reader.box else { continue }
        state.readers[id]?.generation &+= 1
        if reader.isReading { continue }  // Its reading thread reads again.
        state.readers[id]?.isReading = true
        readings.append(Reading(id: id, generation: reader.generation &+ 1, read: reader.read, box: box))
      }
      if state.readers.isEmpty { hasReaders.store(false, ordering: .relaxed) }
      return (readings, released)
    }
    for reading in readings { readUntilCurrent(reading) }
  }

  /// How many readers the tracker keeps, the ones nobody holds any more and not yet dropped included.
  var readerCount: Int {
    state.withLock { $0.readers.count }
  }

  /// Reads the runs for `reading`'s reader and writes them, again until no event came since the last reading
  /// started; then the reader may be read by the next event's thread.
  private func readUntilCurrent(_ first: Reading) {
    var reading = first
    while true {
      // The app's predicate runs here, outside every lock: it may even run a mutation, whose events only count a
      // generation while this thread reads.
      var runs = reading.read()
      // Read without Observation: the thread may be inside the app's tracking of something else.
      if !runs.showsSameRuns(as: reading.box.versionedValue.value) {
        // The runs replaced are released after the box's lock: they hold the app's arguments and results.
        reading.box.withLock { swap(&$0, &runs) }
      }
      let next = state.withLock { state -> UInt64? in
        guard let reader = state.readers[reading.id] else { return nil }
        guard reader.generation != reading.generation else {
          state.readers[reading.id]?.isReading = false
          return nil
        }
        return reader.generation
      }
      guard let next else { return }
      reading = Reading(id: reading.id, generation: next, read: reading.read, box: reading.box)
    }
  }

  /// Removes the readers nobody holds and returns them, to release after the lock (their filters hold the app's
  /// predicates and key parts), with the boxes of the others, loaded to find out: let go after the lock too, since
  /// the last holder may let go meanwhile and a box's runs hold the app's arguments and results. Call under the lock.
  private static func dropReadersNobodyHolds(
    in state: inout State
  ) -> (dropped: [Reader], loaded: [ReactiveBox<[MutationSnapshot]>]) {
    var dropped: [Reader] = []
    var loaded: [ReactiveBox<[MutationSnapshot]>] = []
    for (id, reader) in state.readers {
      if let box = reader.box {
        loaded.append(box)
      } else if let removed = state.readers.removeValue(forKey: id) {
        dropped.append(removed)
      }
    }
    return (dropped, loaded)
  }
}

extension [MutationSnapshot] {
  /// Whether `other` lists the same runs, in the same order and states: by key, run number, status and times. A
  /// run's arguments never change, and its result and error change only with its status and end.
  func showsSameRuns(as other: [MutationSnapshot]) -> Bool {
    guard count == other.count else { return false }
    return zip(self, other).allSatisfy { run, shown in
      run.runID == shown.runID && run.status == shown.status && run.startedAt == shown.startedAt
        && run.endedAt == shown.endedAt && run.key == shown.key
    }
  }
}
