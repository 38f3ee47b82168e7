import Foundation
import Hummingbird
import SharedState
import Synchronization

/// Feeds one page's event stream: the registry's recent events, then each new one as it is published, and a fresh
/// snapshot at once, soon after an event (within a tenth of a second) and otherwise whenever a key changed (checked
/// every half second), so a change that publishes no event (a value written) still shows within a second.
struct EventStreamPump: Sendable {
  let inspector: SharedInspector
  let bufferLimit: Int

  /// How often the pump looks whether a snapshot is due.
  static let tick: Duration = .milliseconds(100)
  /// How often a snapshot is taken when no event came.
  static let snapshotInterval: Duration = .milliseconds(500)
  /// How long the stream may stay silent before a comment keeps it (and the connection) alive.
  static let keepAliveInterval: Duration = .seconds(15)

  /// Runs until cancelled: when the page goes away or the server stops.
  ///
  /// The inspector is attached before the first snapshot is sent: an event published after the page received its
  /// first snapshot reaches the page.
  func run(into continuation: AsyncStream<ByteBuffer>.Continuation) async {
    let eventArrived = EventFlag()
    // Attaches the inspector now; the events published from here on wait in this sequence until forwarded.
    let live = inspector.events(bufferingNewest: bufferLimit)
    await withTaskGroup(of: Void.self) { group in
      group.addTask {
        await forwardEvents(live, into: continuation, eventArrived: eventArrived)
      }
      group.addTask {
        await sendSnapshots(into: continuation, eventArrived: eventArrived)
      }
      // Either ends only when cancelled; end the other with it.
      await group.next()
      group.cancelAll()
    }
  }

  private func forwardEvents(
    _ live: InspectionEvents, into continuation: AsyncStream<ByteBuffer>.Continuation, eventArrived: EventFlag
  ) async {
    // The recent events first; those published since the sequence was made are in both, and sent once.
    var lastSent: UInt64 = 0
    for event in inspector.recentEvents {
      continuation.yield(ServerSentEvent.inspection(event))
      lastSent = event.sequence
    }
    for await event in live where event.sequence > lastSent {
      continuation.yield(ServerSentEvent.inspection(event))
      eventArrived.raise()
    }
  }

  private func sendSnapshots(
    into continuation: AsyncStream<ByteBuffer>.Continuation, eventArrived: EventFlag
  ) async {
    let clock = ContinuousClock()
    var lastKeys: Data?
    var lastSnapshot = clock.now
    var lastWrite = clock.now
    var isFirst = true
    while !Task.isCancelled {
      let now = clock.now
      if isFirst || eventArrived.lower() || now - lastSnapshot >= Self.snapshotInterval {
        isFirst = false
        lastSnapshot = now
        let snapshot = SnapshotPayload(inspector.snapshot())
        let keys = DevtoolsJSON.encode(snapshot.keys)
        if keys != lastKeys {
          lastKeys = keys
          continuation.yield(ServerSentEvent.snapshot(takenAt: snapshot.takenAt, keys: keys))
          lastWrite = now
        }
      }
      if now - lastWrite >= Self.keepAliveInterval {
        continuation.yield(ServerSentEvent.keepAlive)
        lastWrite = now
      }
      try? await Task.sleep(for: Self.tick)
    }
  }
}

/// Set by each event, taken by the next snapshot.
final class EventFlag: Sendable {
  private let flag = Atomic(false)

  func raise() { flag.store(true, ordering: .relaxed) }

  /// Whether an event came since the last call.
  func lower() -> Bool { flag.exchange(false, ordering: .relaxed) }
}

/// The frames of `text/event-stream`.
enum ServerSentEvent {
  static func inspection(_ event: InspectionEvent) -> ByteBuffer {
    frame(name: "inspection", id: String(event.sequence), data: DevtoolsJSON.encode(EventPayload(event)))
  }

  static func snapshot(takenAt: String, keys: Data) -> ByteBuffer {
    var data = Data(#"{"keys":"#.utf8)
    data += keys
    data += Data(#","takenAt":"\#(takenAt)"}"#.utf8)
    return frame(name: "snapshot", id: nil, data: data)
  }

  /// A comment line, which the page ignores.
  static let keepAlive = ByteBuffer(string: ": keep-alive\n\n")

  /// One event: its name, its id, and its data on one line (JSON has no raw line breaks).
  static func frame(name: String, id: String?, data: Data) -> ByteBuffer {
    var buffer = ByteBuffer()
    buffer.writeString("event: \(name)\n")
    if let id { buffer.writeString("id: \(id)\n") }
    buffer.writeString("data: ")
    buffer.writeBytes(data)
    buffer.writeString("\n\n")
    return buffer
  }
}
