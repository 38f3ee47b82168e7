import Foundation
import NIOCore
import SharedState
import Synchronization

/// Feeds every page's event stream, once for all of them: while a stream is open, the registry's events as they are
/// published, and a fresh snapshot soon after an event (within a tick) and otherwise whenever a key changed (checked
/// every ``Timing/snapshotInterval``), so a change that publishes no event (a value written) still shows within a
/// second. A snapshot is taken and encoded once per check, whatever the number of streams, and sent only when it
/// differs from the one before.
struct EventStreamPump: Sendable {
  /// How often the pump looks, and waits.
  struct Timing: Sendable {
    /// How often the pump looks whether a snapshot is due.
    var tick: Duration = .milliseconds(100)
    /// How often a snapshot is taken when no event came.
    var snapshotInterval: Duration = .milliseconds(500)
    /// How long the streams may stay silent before a comment keeps them (and their connections) alive.
    var keepAliveInterval: Duration = .seconds(15)
  }

  let inspector: SharedInspector
  let hub: EventStreamHub
  let eventBufferLimit: Int
  let timing: Timing
  let counters: PumpCounters

  /// Runs until the hub closes (or the task is cancelled): attaches the registry's inspector while a stream is open.
  func run() async {
    while !Task.isCancelled {
      await hub.waitForStreams()
      if hub.isClosed || Task.isCancelled { return }
      await runWhileStreamsAreOpen()
    }
  }

  /// One session: from the first stream opened to the last one closed. The inspector is attached before the first
  /// snapshot is sent: an event published after a page received its first snapshot reaches the page.
  private func runWhileStreamsAreOpen() async {
    let eventArrived = EventFlag()
    // Attaches the inspector now; the events published from here on wait in this sequence until forwarded.
    let live = inspector.events(bufferingNewest: eventBufferLimit)
    await withTaskGroup(of: Void.self) { group in
      group.addTask {
        await forwardEvents(live, eventArrived: eventArrived)
      }
      group.addTask {
        await sendSnapshots(eventArrived: eventArrived)
      }
      // The snapshots end when no stream is left (or at cancellation); the events end with them.
      await group.next()
      group.cancelAll()
    }
    hub.endSession()
  }

  private func forwardEvents(_ live: InspectionEvents, eventArrived: EventFlag) async {
    // The recent events first; those published since the sequence was made are in both, and sent once.
    for event in inspector.recentEvents {
      hub.broadcast(event: ServerSentEvent.inspection(event), sequence: event.sequence)
    }
    for await event in live {
      hub.broadcast(event: ServerSentEvent.inspection(event), sequence: event.sequence)
      eventArrived.raise()
    }
  }

  private func sendSnapshots(eventArrived: EventFlag) async {
    let clock = ContinuousClock()
    var lastKeys: Data?
    var lastSnapshot = clock.now
    var lastWrite = clock.now
    var isFirst = true
    while !Task.isCancelled && hub.hasStreams {
      let now = clock.now
      if isFirst || eventArrived.lower() || now - lastSnapshot >= timing.snapshotInterval {
        isFirst = false
        lastSnapshot = now
        counters.checked()
        let snapshot = SnapshotPayload(inspector.snapshot())
        let keys = DevtoolsJSON.encode(snapshot.keys)
        counters.encoded()
        if keys != lastKeys {
          lastKeys = keys
          hub.broadcast(snapshot: ServerSentEvent.snapshot(takenAt: snapshot.takenAt, keys: keys))
          counters.sent()
          lastWrite = now
        }
      }
      if now - lastWrite >= timing.keepAliveInterval {
        hub.broadcastKeepAlive()
        lastWrite = now
      }
      try? await Task.sleep(for: timing.tick)
    }
  }
}

/// What the pump did, for the tests and the README's numbers.
final class PumpCounters: Sendable {
  private let snapshotChecks = Atomic(0)
  private let snapshotsEncoded = Atomic(0)
  private let snapshotsSent = Atomic(0)

  func checked() { snapshotChecks.add(1, ordering: .relaxed) }
  func encoded() { snapshotsEncoded.add(1, ordering: .relaxed) }
  func sent() { snapshotsSent.add(1, ordering: .relaxed) }

  /// The times the pump looked whether the registry changed.
  var checks: Int { snapshotChecks.load(ordering: .relaxed) }
  /// The snapshots taken and encoded, once for every stream.
  var encodedSnapshots: Int { snapshotsEncoded.load(ordering: .relaxed) }
  /// The snapshots sent to the streams (those that differed from the one before).
  var sentSnapshots: Int { snapshotsSent.load(ordering: .relaxed) }
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
