import NIOCore
import Synchronization

/// The event streams a running server has open: at most ``maximumStreams`` of them, each with an outbox bounded in
/// bytes. A stream its page stopped reading is closed after it fell behind
/// ``EventStreamOutbox/maximumDropsWithoutReading`` times in a row, and its place freed. Every stream gets the same
/// encoded frames (a snapshot is encoded once per change, whatever the number of
/// streams), and stopping the server ends each one (a server waits for its answers to end before it stops, and an
/// event stream never ends on its own).
final class EventStreamHub: Sendable {
  /// What the hub holds; only touched under `state`'s lock.
  private struct State {
    var isClosed = false
    var nextID = 0
    var outboxes: [Int: EventStreamOutbox] = [:]
    /// The latest snapshot sent, for streams that join or fall behind.
    var latestSnapshot: ByteBuffer?
    /// The sequence number of the latest event sent to the streams.
    var lastEventSequence: UInt64 = 0
    /// The streams closed because their pages stopped reading.
    var stalledStreamsClosed = 0
    var sessionWaiter: CheckedContinuation<Void, Never>?
  }

  /// Why a stream was not opened.
  enum Refusal: Error {
    /// The server is stopping.
    case stopping
    /// ``maximumStreams`` streams are open.
    case tooManyStreams
  }

  /// The most streams open at once; one more is refused.
  let maximumStreams: Int
  /// The most bytes of frames each stream keeps waiting.
  let maximumBytesPerStream: Int
  /// The drops in a row, with nothing read between, after which a stream is closed.
  let maximumDropsWithoutReading: Int
  private let state = Mutex(State())

  init(
    maximumStreams: Int,
    maximumBytesPerStream: Int,
    maximumDropsWithoutReading: Int = DevtoolsServer.maximumDropsWithoutReading
  ) {
    self.maximumStreams = maximumStreams
    self.maximumBytesPerStream = maximumBytesPerStream
    self.maximumDropsWithoutReading = maximumDropsWithoutReading
  }

  /// A new stream: its number (for ``close(_:)``), its outbox, and the sequence number of the latest event the
  /// streams were sent, so that the stream gets the recent events up to it (later ones reach it from the pump).
  func open() throws(Refusal) -> (id: Int, outbox: EventStreamOutbox, lastEventSequence: UInt64) {
    let outbox = EventStreamOutbox(
      maximumBytes: maximumBytesPerStream, maximumDropsWithoutReading: maximumDropsWithoutReading)
    let (opened, waiter) = state.withLock {
      state -> (Result<(Int, UInt64), Refusal>, CheckedContinuation<Void, Never>?) in
      guard !state.isClosed else { return (.failure(.stopping), nil) }
      guard state.outboxes.count < maximumStreams else { return (.failure(.tooManyStreams), nil) }
      let id = state.nextID
      state.nextID += 1
      state.outboxes[id] = outbox
      if let snapshot = state.latestSnapshot { outbox.offer(snapshot, latestSnapshot: snapshot) }
      defer { state.sessionWaiter = nil }
      return (.success((id, state.lastEventSequence)), state.sessionWaiter)
    }
    waiter?.resume()
    let (id, sequence) = try opened.get()
    return (id, outbox, sequence)
  }

  /// Forgets the streams `ids`, which their pages stopped reading (their outboxes finished themselves): their places
  /// go to other pages at once, while their writers may still wait on their connections.
  private func closeStalled(_ ids: [Int]) {
    guard !ids.isEmpty else { return }
    let removed = state.withLock { state in
      let removed = ids.compactMap { state.outboxes.removeValue(forKey: $0) }
      state.stalledStreamsClosed += removed.count
      return removed
    }
    withExtendedLifetime(removed) {}
  }

  /// Offers `frame` to each of `outboxes`, and closes those that turn out stalled.
  private func offer(
    _ frame: ByteBuffer, latestSnapshot: ByteBuffer?, to outboxes: [(key: Int, value: EventStreamOutbox)]
  ) {
    var stalled: [Int] = []
    // Each outbox takes its own lock; the frame's bytes are shared, not copied.
    for (id, outbox) in outboxes where outbox.offer(frame, latestSnapshot: latestSnapshot) {
      stalled.append(id)
    }
    closeStalled(stalled)
  }

  /// Forgets the stream `id`, which ended.
  func close(_ id: Int) {
    let removed = state.withLock { $0.outboxes.removeValue(forKey: id) }
    removed?.finish()
  }

  /// Lets the latest snapshot go once no stream is open, as the pump's session ends. Kept until then: a stream that
  /// opens while the session goes on gets it at once, since the session sends only snapshots that changed.
  func endSession() {
    let released = state.withLock { state -> ByteBuffer? in
      guard state.outboxes.isEmpty else { return nil }
      defer { state.latestSnapshot = nil }
      return state.latestSnapshot
    }
    withExtendedLifetime(released) {}
  }

  /// Refuses new streams and ends every open one.
  func closeAll() {
    let (open, waiter) = state.withLock { state in
      state.isClosed = true
      defer {
        state.outboxes = [:]
        state.sessionWaiter = nil
      }
      return (Array(state.outboxes.values), state.sessionWaiter)
    }
    for outbox in open { outbox.finish() }
    waiter?.resume()
  }

  /// Sends a new snapshot to every stream.
  func broadcast(snapshot frame: ByteBuffer) {
    let outboxes = state.withLock { state in
      state.latestSnapshot = frame
      return Array(state.outboxes)
    }
    offer(frame, latestSnapshot: frame, to: outboxes)
  }

  /// Sends an event to every stream, unless the streams were sent it already.
  func broadcast(event frame: ByteBuffer, sequence: UInt64) {
    let (outboxes, snapshot) = state.withLock { state -> ([(key: Int, value: EventStreamOutbox)], ByteBuffer?) in
      guard sequence > state.lastEventSequence else { return ([], nil) }
      state.lastEventSequence = sequence
      return (Array(state.outboxes), state.latestSnapshot)
    }
    offer(frame, latestSnapshot: snapshot, to: outboxes)
  }

  /// Sends a comment that keeps every stream's connection alive.
  func broadcastKeepAlive() {
    let (outboxes, snapshot) = state.withLock { (Array($0.outboxes), $0.latestSnapshot) }
    offer(ServerSentEvent.keepAlive, latestSnapshot: snapshot, to: outboxes)
  }

  /// The sequence number of the latest event sent to the streams.
  var lastEventSequence: UInt64 { state.withLock { $0.lastEventSequence } }

  /// Whether a stream is open.
  var hasStreams: Bool { state.withLock { !$0.outboxes.isEmpty } }

  /// Whether the hub was closed.
  var isClosed: Bool { state.withLock { $0.isClosed } }

  /// Returns once a stream is open or the hub is closed.
  func waitForStreams() async {
    await withCheckedContinuation { continuation in
      let ready = state.withLock { state in
        if state.isClosed || !state.outboxes.isEmpty { return true }
        state.sessionWaiter = continuation
        return false
      }
      if ready { continuation.resume() }
    }
  }

  /// The streams open now.
  var openStreams: Int { state.withLock { $0.outboxes.count } }

  /// The bytes of frames waiting in every stream's outbox now.
  var bufferedBytes: Int {
    state.withLock { Array($0.outboxes.values) }.reduce(0) { $0 + $1.bufferedBytes }
  }

  /// The most bytes of frames that ever waited at once in one open stream's outbox.
  var highestBufferedBytes: Int {
    state.withLock { Array($0.outboxes.values) }.map(\.highestBufferedBytes).max() ?? 0
  }

  /// How many streams were closed because their pages stopped reading.
  var streamsClosedForStalling: Int { state.withLock { $0.stalledStreamsClosed } }

  /// How many times the open streams fell behind and had their backlog dropped for a snapshot.
  var drops: Int {
    state.withLock { Array($0.outboxes.values) }.reduce(0) { $0 + $1.drops }
  }
}
