import Testing

@testable import Reactive

@Suite struct RingBufferTests {
  @Test func keepsOrderAcrossGrowthAndWrapAround() {
    var buffer = RingBuffer<Int>()
    var expected: [Int] = []
    var next = 0
    // Interleave appends and removals so the head wraps around while the storage grows.
    for round in 0..<50 {
      for _ in 0..<(round % 7 + 1) {
        buffer.append(next, limit: .max)
        expected.append(next)
        next += 1
      }
      for _ in 0..<(round % 3) {
        #expect(buffer.popFirst() == expected.removeFirst())
      }
    }
    while let value = buffer.popFirst() { #expect(value == expected.removeFirst()) }
    #expect(expected.isEmpty)
    #expect(buffer.isEmpty)
  }

  @Test func aLimitDropsTheOldest() {
    var buffer = RingBuffer<Int>()
    for value in 0..<10 { buffer.append(value, limit: 4) }
    #expect(buffer.count == 4)
    var drained: [Int] = []
    while let value = buffer.popFirst() { drained.append(value) }
    #expect(drained == [6, 7, 8, 9])
  }

  @Test func releasesWhatItHandsOut() {
    weak var weakMarker: Marker?
    var buffer = RingBuffer<Marker>()
    do {
      let marker = Marker()
      weakMarker = marker
      buffer.append(marker, limit: .max)
      buffer.append(Marker(), limit: .max)
    }
    _ = buffer.popFirst()
    #expect(weakMarker == nil)
    #expect(buffer.count == 1)
  }
}

@Suite struct SlotTableTests {
  @Test func handlesStayValidUntilRemoved() {
    var table = SlotTable<String>()
    let a = table.insert("a")
    let b = table.insert("b")
    #expect(table.remove(a) == "a")
    #expect(table.remove(a) == nil)
    let c = table.insert("c")
    #expect(table.withElement(b) { $0 } == "b")
    #expect(table.withElement(c) { $0 } == "c")
    #expect(table.withElement(a) { $0 } == nil)
    #expect(table.count == 2)
  }

  @Test func aStaleHandleNeverNamesANewerElement() {
    var table = SlotTable<String>()
    let old = table.insert("old")
    table.remove(old)
    #expect(table.isEmpty)
    let new = table.insert("new")
    #expect(table.remove(old) == nil)
    #expect(table.withElement(new) { $0 } == "new")
  }
}

@Suite struct SubscriptionHandleTests {
  @Test func anEndedIteratorLeavingLaterDoesNotUnregisterANewerOne() async {
    let box = ReactiveBox(0)
    var ended: ReactiveBox<Int>.Values.Iterator? = box.values.makeAsyncIterator()
    box.finish()
    #expect(await ended?.next() == 0)
    #expect(await ended?.next() == nil)
    #expect(box.subscriberCount == 0)
    let newer = box.values.makeAsyncIterator()
    #expect(box.subscriberCount == 1)
    ended = nil
    #expect(box.subscriberCount == 1)
    withExtendedLifetime(newer) {}
  }

  @Test func aBoundedPolicyWithoutRoomIsNamed() {
    // `values(buffering:)` stops the program with this message; the check itself is tested here.
    #expect(BufferingPolicy.bounded(0).problem == "BufferingPolicy.bounded(0) needs a limit of at least 1")
    #expect(BufferingPolicy.bounded(-3).problem != nil)
    #expect(BufferingPolicy.bounded(1).problem == nil)
    #expect(BufferingPolicy.all.problem == nil)
  }
}
