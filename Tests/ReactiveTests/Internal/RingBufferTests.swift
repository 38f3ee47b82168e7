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
