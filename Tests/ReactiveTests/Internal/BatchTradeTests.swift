import Testing

@testable import Reactive

/// A consumer under `.all` takes its subscriber's values in batches, trading its emptied batch for them.
@Suite struct BatchTradeTests {
  @Test func batchesKeepEveryValueInOrderAndTheSubscriberReusesTheEmptiedStorage() {
    var state = BoxState(value: 0)
    let handle = state.subscribe(limit: .max)
    var batch = RingBuffer<Int>()
    var received: [Int] = []
    for round in 0..<5 {
      for _ in 0..<6 {
        state.value += 1
        _ = state.didChange()
      }
      #expect(state.takeAll(handle, into: &batch))
      let subscriberBuffer = state.listeners?.subscribers.withElement(handle) { $0.buffer }
      #expect(subscriberBuffer?.isEmpty == true)
      if round > 0 {
        // From the second batch on, the subscriber holds the storage the consumer emptied: 8 slots, as the batch
        // it got, so the next six changes allocate nothing.
        #expect(subscriberBuffer?.capacity == 8)
        #expect(batch.capacity == 8)
      }
      while let value = batch.popFirst() { received.append(value) }
    }
    #expect(received == Array(0...30))
  }

  @Test func anEmptySubscriberLeavesTheBatchAsItWas() {
    var state = BoxState(value: 0)
    let handle = state.subscribe(limit: .max)
    var batch = RingBuffer<Int>()
    #expect(state.takeAll(handle, into: &batch))
    #expect(batch.popFirst() == 0)
    let capacity = batch.capacity
    #expect(!state.takeAll(handle, into: &batch))
    #expect(batch.isEmpty)
    #expect(batch.capacity == capacity)
  }

  @Test func theReusedStorageStaysSmall() {
    #expect(RingBuffer<Int>.reusedCapacity == 64)  // `Int?` takes 16 bytes
    #expect(RingBuffer<[UInt8]>.reusedCapacity == 128)  // `[UInt8]?` takes 8
    #expect(RingBuffer<SIMD64<Int>>.reusedCapacity == 4)  // 520 bytes: at least 4 all the same
  }
}
