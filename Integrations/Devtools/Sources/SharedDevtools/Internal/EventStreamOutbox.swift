import NIOCore
import Synchronization

/// One page's event stream: the frames waiting to be written, bounded in bytes.
///
/// A page that reads slower than frames come (or not at all) never makes the program hold more than
/// ``maximumBytes`` for it: when a frame would pass the bound, every waiting frame is dropped and the latest snapshot
/// takes their place, so the page catches up from a whole picture instead of a backlog. A snapshot larger than the
/// bound is kept alone (the bound is then that one snapshot, whose bytes every stream shares).
///
/// A page that falls behind ``maximumDropsWithoutReading`` times in a row without taking a single frame between is
/// taken for stalled (it reads nothing): the outbox lets its frames go and finishes, and its offer says so, so that
/// the hub gives the stream's place to another page.
final class EventStreamOutbox: Sendable {
  /// What the outbox holds; only touched under `state`'s lock.
  private struct State {
    var frames: [ByteBuffer] = []
    var bytes = 0
    var highestBytes = 0
    var drops = 0
    /// The drops since the writer last took a frame.
    var dropsWithoutReading = 0
    var waiter: CheckedContinuation<ByteBuffer?, Never>?
    var isFinished = false

    /// What to do after the lock with a frame offered to the stream.
    enum OfferAction {
      case none
      case resume(CheckedContinuation<ByteBuffer?, Never>, ByteBuffer)
      /// The stream fell behind too often without reading: it is finished, its frames let go (after the lock).
      case stalled([ByteBuffer])
    }

    mutating func offer(
      _ frame: ByteBuffer, latestSnapshot: ByteBuffer?, limit: Int, maximumDropsWithoutReading: Int
    ) -> OfferAction {
      guard !isFinished else { return .none }
      if let waiter {
        self.waiter = nil
        return .resume(waiter, frame)
      }
      if bytes + frame.readableBytes > limit && !frames.isEmpty {
        // Behind: drop the backlog, and start again from the latest snapshot (the offered one, when it is one).
        drops += 1
        dropsWithoutReading += 1
        if dropsWithoutReading >= maximumDropsWithoutReading {
          // No waiter here (it would have taken the frame): nobody is left to resume.
          isFinished = true
          defer {
            frames = []
            bytes = 0
          }
          return .stalled(frames)
        }
        frames = [latestSnapshot ?? frame]
      } else {
        frames.append(frame)
      }
      bytes = frames.reduce(0) { $0 + $1.readableBytes }
      highestBytes = max(highestBytes, bytes)
      return .none
    }

    enum NextAction {
      case frame(ByteBuffer?)
      case wait
    }

    mutating func next(_ continuation: CheckedContinuation<ByteBuffer?, Never>) -> NextAction {
      if !frames.isEmpty {
        let frame = frames.removeFirst()
        bytes -= frame.readableBytes
        dropsWithoutReading = 0
        return .frame(frame)
      }
      if isFinished { return .frame(nil) }
      waiter = continuation
      return .wait
    }

    mutating func finish() -> CheckedContinuation<ByteBuffer?, Never>? {
      isFinished = true
      defer { waiter = nil }
      return waiter
    }
  }

  /// The most bytes of frames a stream keeps waiting (see the type's discussion for a larger snapshot).
  let maximumBytes: Int
  /// The drops in a row, with no frame taken between, that finish the stream.
  let maximumDropsWithoutReading: Int
  private let state = Mutex(State())

  init(maximumBytes: Int, maximumDropsWithoutReading: Int = DevtoolsServer.maximumDropsWithoutReading) {
    precondition(maximumDropsWithoutReading >= 1, "A stream is finished after at least one drop")
    self.maximumBytes = maximumBytes
    self.maximumDropsWithoutReading = maximumDropsWithoutReading
  }

  /// Puts `frames` first, before anything offered so far: the events a page missed before it connected.
  func prepend(_ frames: [ByteBuffer]) {
    guard !frames.isEmpty else { return }
    state.withLock { state in
      state.frames.insert(contentsOf: frames, at: 0)
      state.bytes += frames.reduce(0) { $0 + $1.readableBytes }
      state.highestBytes = max(state.highestBytes, state.bytes)
    }
  }

  /// Queues `frame`, or hands it to the waiting writer; drops the backlog for `latestSnapshot` past the bound.
  ///
  /// - Returns: Whether this offer found the stream stalled and finished it (see the type's discussion).
  @discardableResult
  func offer(_ frame: ByteBuffer, latestSnapshot: ByteBuffer?) -> Bool {
    let action = state.withLock {
      $0.offer(
        frame, latestSnapshot: latestSnapshot, limit: maximumBytes,
        maximumDropsWithoutReading: maximumDropsWithoutReading)
    }
    switch action {
    case .none:
      return false
    case .resume(let waiter, let frame):
      waiter.resume(returning: frame)
      return false
    case .stalled(let released):
      withExtendedLifetime(released) {}
      return true
    }
  }

  /// The next frame to write, waiting for one; `nil` once the stream is finished and every frame was taken, or when
  /// the writing task is cancelled (which finishes the stream).
  func next() async -> ByteBuffer? {
    await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        let action = state.withLock { $0.next(continuation) }
        if case .frame(let frame) = action { continuation.resume(returning: frame) }
      }
    } onCancel: {
      finish()
    }
  }

  /// Ends the stream: a waiting writer gets `nil`, and so does the next one once the frames are written.
  func finish() {
    let waiter = state.withLock { $0.finish() }
    waiter?.resume(returning: nil)
  }

  /// The bytes of frames waiting now.
  var bufferedBytes: Int { state.withLock { $0.bytes } }

  /// The most bytes of frames that ever waited at once.
  var highestBufferedBytes: Int { state.withLock { $0.highestBytes } }

  /// How many times the stream fell behind and its backlog was dropped for a snapshot.
  var drops: Int { state.withLock { $0.drops } }
}
