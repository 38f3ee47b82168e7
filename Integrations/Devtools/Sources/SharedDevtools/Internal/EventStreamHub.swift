import NIOCore
import Synchronization

/// The event streams a running server has open: at most ``maximumStreams`` of them, each with an outbox bounded in
/// bytes. Every stream gets the same encoded frames (a snapshot is encoded once per change, whatever the number of
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
  private let state = Mutex(State())

  init(maximumStreams: Int, maximumBytesPerStream: Int) {
    self.maximumStreams = maximumStreams
    self.maximumBytesPerStream = maximumBytesPerStream
  }

  /// A new stream: its number (for ``close(_:)``), its outbox, and the sequence number of the latest event the
  /// streams were sent, so that the stream gets the recent events up to it (later ones reach it from the pump).
  func open() throws(Refusal) -> (id: Int, outbox: EventStreamOutbox, lastEventSequence: UInt64) {
    let outbox = EventStreamOutbox(maximumBytes: maximumBytesPerStream)
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

  /// Forgets the stream `id`, which ended.
  func close(_ id: Int) {
    let removed = state.withLock { state in
      let removed = state.outboxes.removeValue(forKey: id)
      if state.outboxes.isEmpty { state.latestSnapshot = nil }
      return removed
    }
    removed?.finish()
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
      return Array(state.outboxes.values)
    }
    // Each outbox takes its own lock; the frame's bytes are shared, not copied.
    for outbox in outboxes { outbox.offer(frame, latestSnapshot: frame) }
  }

  /// Sends an event to every stream, unless the streams were sent it already.
  func broadcast(event frame: ByteBuffer, sequence: UInt64) {
    let (outboxes, snapshot) = state.withLock { state -> ([EventStreamOutbox], ByteBuffer?) in
      guard sequence > state.lastEventSequence else { return ([], nil) }
      state.lastEventSequence = sequence
      return (Array(state.outboxes.values), state.latestSnapshot)
    }
    for outbox in outboxes { outbox.offer(frame, latestSnapshot: snapshot) }
  }

  /// Sends a comment that keeps every stream's connection alive.
  func broadcastKeepAlive() {
    let (outboxes, snapshot) = state.withLock { (Array($0.outboxes.values), $0.latestSnapshot) }
    for outbox in outboxes { outbox.offer(ServerSentEvent.keepAlive, latestSnapshot: snapshot) }
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

  /// How many times the open streams fell behind and had their backlog dropped for a snapshot.
  var drops: Int {
    state.withLock { Array($0.outboxes.values) }.reduce(0) { $0 + $1.drops }
  }
}
