import NIOCore
import Testing

@testable import SharedDevtools

@Suite struct EventStreamOutboxTests {
  @Test func framesWaitInOrderUntilTaken() async {
    let outbox = EventStreamOutbox(maximumBytes: 100)
    outbox.offer(ByteBuffer(string: "a"), latestSnapshot: nil)
    outbox.offer(ByteBuffer(string: "b"), latestSnapshot: nil)
    #expect(outbox.bufferedBytes == 2)
    #expect(await outbox.next().map { String(buffer: $0) } == "a")
    #expect(await outbox.next().map { String(buffer: $0) } == "b")
    #expect(outbox.bufferedBytes == 0)
  }

  @Test func pastTheBoundTheBacklogGivesWayToTheLatestSnapshot() async {
    let outbox = EventStreamOutbox(maximumBytes: 10)
    let snapshot = ByteBuffer(string: "snapshot")
    outbox.offer(ByteBuffer(string: "event1"), latestSnapshot: snapshot)
    outbox.offer(ByteBuffer(string: "event2"), latestSnapshot: snapshot)
    #expect(outbox.drops == 1)
    #expect(outbox.bufferedBytes == snapshot.readableBytes)
    #expect(outbox.highestBufferedBytes <= 10)
    outbox.finish()
    #expect(await outbox.next().map { String(buffer: $0) } == "snapshot")
    #expect(await outbox.next() == nil)
  }

  @Test func aSnapshotLargerThanTheBoundIsKeptAlone() async {
    let outbox = EventStreamOutbox(maximumBytes: 4)
    outbox.offer(ByteBuffer(string: "ev"), latestSnapshot: nil)
    let large = ByteBuffer(string: "a large snapshot")
    outbox.offer(large, latestSnapshot: large)
    #expect(outbox.bufferedBytes == large.readableBytes)
    outbox.finish()
    #expect(await outbox.next() == large)
    #expect(await outbox.next() == nil)
  }

  @Test func aWaitingWriterGetsTheNextFrameAtOnce() async {
    let outbox = EventStreamOutbox(maximumBytes: 10)
    async let next = outbox.next()
    // The writer may or may not wait yet: either way it gets the frame, which never counts as buffered for long.
    outbox.offer(ByteBuffer(string: "x"), latestSnapshot: nil)
    #expect(await next.map { String(buffer: $0) } == "x")
  }

  @Test func aCancelledWriterEndsTheStream() async {
    let outbox = EventStreamOutbox(maximumBytes: 10)
    let writer = Task { await outbox.next() }
    writer.cancel()
    #expect(await writer.value == nil)
    outbox.offer(ByteBuffer(string: "late"), latestSnapshot: nil)
    #expect(outbox.bufferedBytes == 0)
  }

  @Test func aStreamThatFallsBehindTheLimitTimesInARowWithoutTakingAFrameIsFinished() async {
    let outbox = EventStreamOutbox(maximumBytes: 10, maximumDropsWithoutReading: 3)
    let snapshot = ByteBuffer(string: "snapshot")
    var stalled: [Bool] = []
    for index in 0..<6 {
      stalled.append(outbox.offer(ByteBuffer(string: "event\(index)"), latestSnapshot: snapshot))
    }
    // The first offer waits; each one after falls behind, and the third drop in a row finishes the stream.
    #expect(stalled == [false, false, false, true, false, false])
    #expect(outbox.drops == 3)
    #expect(outbox.bufferedBytes == 0)
    #expect(await outbox.next() == nil)
  }

  @Test func aStreamThatTakesAFrameBetweenDropsIsNeverFinished() async {
    let outbox = EventStreamOutbox(maximumBytes: 10, maximumDropsWithoutReading: 2)
    let snapshot = ByteBuffer(string: "snapshot")
    var stalled = false
    for index in 0..<10 {
      outbox.offer(ByteBuffer(string: "event!"), latestSnapshot: snapshot)
      stalled = outbox.offer(ByteBuffer(string: "event!"), latestSnapshot: snapshot) || stalled
      // The page reads one frame after each drop: slow, not stalled.
      #expect(await outbox.next() != nil, "round \(index)")
    }
    #expect(!stalled)
    #expect(outbox.drops >= 10)
    outbox.offer(ByteBuffer(string: "last"), latestSnapshot: nil)
    #expect(outbox.bufferedBytes > 0)
  }
}
