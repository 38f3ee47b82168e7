import Foundation
import Synchronization

/// Looks inside a registry while its program runs: a snapshot of every key, a stream of what happens to them, and
/// actions on queries. What a devtools panel is built on.
///
/// ```swift
/// let inspector = SharedRegistry.current.inspector
/// for key in inspector.snapshot().keys where key.kind == .query {
///   print(key.name, key.operation?.status.rawValue ?? "-", key.query?.isStale == true ? "stale" : "fresh")
/// }
/// ```
///
/// An inspector costs nothing while it is not attached: the engines check one flag before doing anything for it.
/// It is attached while a sequence from ``events(bufferingNewest:)`` exists; then fetches, invalidations, mutations'
/// runs, loads and saves publish ``InspectionEvent``s, numbered in the order they were published, and the last
/// ``historyLimit`` of them stay in ``recentEvents``. A snapshot can be taken at any time, attached or not.
///
/// > Important: Nothing of the program runs under a lock of the inspector's: values are summarized (encoded, or
/// > described) and errors described after every lock is released.
public final class SharedInspector: Sendable {
  /// How many events ``recentEvents`` keeps.
  public let historyLimit: Int

  /// The registry's instrument (see ``SharedRegistry/instrument``), kept here so that every engine the inspector
  /// reaches reaches it too.
  let instruments = SharedInstruments()
  /// How many streams are attached; the engines' one check.
  private let attachedCount = Atomic<Int>(0)
  private let state = Lock(State())
  /// The registry inspected; set once, as the registry is made.
  private let owner = Lock(WeakOwner())

  private struct WeakOwner {
    weak var registry: SharedRegistry?
  }

  private struct State {
    var streams: [Int: AsyncStream<InspectionEvent>.Continuation] = [:]
    var nextStream = 0
    var sequence: UInt64 = 0
    /// The recent events, oldest first; trimmed to the limit when it holds twice as many.
    var history: [InspectionEvent] = []
    var dropped = 0
    /// The registry's mutation queues, held weakly.
    var queues: [ObjectIdentifier: WeakQueue] = [:]
    /// The states the inspector's forcing actions replaced, by query, for ``InspectorAction/restore``.
    var forced: [QueryKey: ForcedQueryState] = [:]
  }

  init(historyLimit: Int = 500) {
    self.historyLimit = max(historyLimit, 0)
  }

  /// Inspects `registry` from now on.
  func inspect(_ registry: SharedRegistry) {
    owner.withLock { $0.registry = registry }
  }

  /// The registry inspected, while it exists.
  var registry: SharedRegistry? {
    owner.withLock { $0.registry }
  }

  // MARK: Events

  /// Whether an inspector is attached: whether events are recorded.
  public var isAttached: Bool {
    attachedCount.load(ordering: .relaxed) > 0
  }

  /// The events from now on; the inspector stays attached while the sequence exists.
  ///
  /// ```swift
  /// let events = SharedRegistry.current.inspector.events()
  /// Task {
  ///   for await event in events { print(event.key, event.kind.name) }
  /// }
  /// ```
  ///
  /// - Parameter limit: How many events an iteration that falls behind keeps, the newest; older ones are dropped
  ///   and counted in ``droppedEventCount``. At least 1.
  /// - Returns: The events, in the order they were published.
  public func events(bufferingNewest limit: Int = 256) -> InspectionEvents {
    let (stream, continuation) = AsyncStream<InspectionEvent>.makeStream(
      bufferingPolicy: .bufferingNewest(max(limit, 1)))
    let id = state.withLock { state -> Int in
      let id = state.nextStream
      state.nextStream += 1
      state.streams[id] = continuation
      return id
    }
    attachedCount.add(1, ordering: .relaxed)
    continuation.onTermination = { [weak self] _ in self?.detach(id) }
    return InspectionEvents(stream: stream)
  }

  private func detach(_ id: Int) {
    let removed = state.withLock { $0.streams.removeValue(forKey: id) }
    if removed != nil { attachedCount.subtract(1, ordering: .relaxed) }
  }

  /// The last events recorded while an inspector was attached, oldest first: at most ``historyLimit``.
  public var recentEvents: [InspectionEvent] {
    state.withLock { Array($0.history.suffix(historyLimit)) }
  }

  /// How many events were dropped from a stream that fell behind its buffer.
  public var droppedEventCount: Int {
    state.withLock { $0.dropped }
  }

  /// Publishes an event about the key `key` if an inspector is attached. The parts are made only then, after the
  /// check: call outside every lock (a summary runs the program's code).
  @inline(__always)
  func publish(_ key: @autoclosure () -> String, _ kind: @autoclosure () -> InspectionEvent.Kind) {
    guard attachedCount.load(ordering: .relaxed) > 0 else { return }
    record(key: key(), kind: kind())
  }

  // MARK: Mutation queues

  /// A mutation queue, held weakly.
  struct WeakQueue {
    weak var queue: MutationQueue?
  }

  /// Lists `queue` in the snapshots while it exists.
  func track(_ queue: MutationQueue) {
    state.withLock { state in
      state.queues = state.queues.filter { $0.value.queue != nil }
      state.queues[ObjectIdentifier(queue)] = WeakQueue(queue: queue)
    }
  }

  /// The registry's mutation queues that still exist (released after the lock by the caller).
  var trackedQueues: [MutationQueue] {
    state.withLock { $0.queues.values.compactMap(\.queue) }
  }

  // MARK: Forced states

  /// The states the inspector's forces replaced, by query.
  var forcedStates: [QueryKey: ForcedQueryState] {
    state.withLock { $0.forced }
  }

  /// Forgets the states kept for `keys`, whose values no longer show their force; released after the lock.
  func forget(_ keys: [QueryKey]) {
    guard !keys.isEmpty else { return }
    state.withLockReleasingAfter { state in
      (result: (), released: keys.compactMap { state.forced.removeValue(forKey: $0) })
    }
  }

  /// Keeps `forced`, the state a force replaced; when it replaced an earlier force's state, keeps that one's state
  /// with this force's version (restoring goes back to the state from before the first of forces in a row). An
  /// earlier force that a write ended (a fetch, the program's own) is dropped: restoring never goes back past a
  /// newer value. What is dropped is released after the lock.
  func keepForced(_ forced: ForcedQueryState, for key: QueryKey) {
    let dropped = state.withLock { state -> ForcedQueryState? in
      // An earlier force of the same value, still shown when this one replaced it: its state is the one to restore.
      guard let earlier = state.forced[key], earlier.root == forced.root, earlier.version == forced.replacedVersion
      else {
        let dropped = state.forced[key]
        state.forced[key] = forced
        return dropped
      }
      state.forced[key] = ForcedQueryState(
        replaced: earlier.replaced, root: forced.root, replacedVersion: earlier.replacedVersion,
        version: forced.version)
      return forced
    }
    withExtendedLifetime(dropped) {}
  }

  /// Forgets the state kept for `key`, and returns it (to release after the lock).
  @discardableResult
  func forget(_ key: QueryKey) -> ForcedQueryState? {
    state.withLock { $0.forced.removeValue(forKey: key) }
  }

  private func record(key: String, kind: InspectionEvent.Kind) {
    state.withLock { state in
      guard !state.streams.isEmpty else { return }
      state.sequence += 1
      // Dated under the lock: the dates follow the numbers.
      let event = InspectionEvent(sequence: state.sequence, date: Date(), key: key, kind: kind)
      state.history.append(event)
      if state.history.count >= historyLimit * 2 { state.history.removeFirst(state.history.count - historyLimit) }
      // Delivered under the lock, so every stream gets the events in the order of their numbers. A stream's buffer
      // holds no code of the program's: yielding runs none.
      for continuation in state.streams.values {
        if case .dropped = continuation.yield(event) { state.dropped += 1 }
      }
    }
  }
}
