import TestSupport
import Testing

@testable import Reactive

@Suite struct ValuesTests {
  @Test func firstElementIsTheCurrentValue() async {
    let box = ReactiveBox(41)
    box.withLock { $0 += 1 }
    for policy in [BufferingPolicy.latest, .all, .bounded(3)] {
      var iterator = box.values(buffering: policy).makeAsyncIterator()
      #expect(await iterator.next() == 42)
    }
  }

  @Test func allKeepsEveryChangeInOrder() async {
    let box = ReactiveBox(0)
    var iterator = box.values(buffering: .all).makeAsyncIterator()
    for _ in 0..<100 { box.withLock { $0 += 1 } }
    var received: [Int] = []
    for _ in 0...100 { received.append(await iterator.next()!) }
    #expect(received == Array(0...100))
  }

  @Test func allKeepsEveryChangeOfBurstsLargerThanTheStorageAConsumerHandsBack() async {
    let box = ReactiveBox(0)
    var iterator = box.values(buffering: .all).makeAsyncIterator()
    var received: [Int] = []
    var written = 0
    // Bursts around the size of the storage a consumer hands back to its subscriber (64 values of `Int`), and
    // much larger: each batch is taken whole and the next one arrives in full.
    for burst in [1, 63, 64, 65, 500, 3, 64, 1_000, 2] {
      for _ in 0..<burst { box.withLock { $0 += 1 } }
      written += burst
      while received.last != written { received.append(await iterator.next()!) }
    }
    #expect(received == Array(0...written))
  }

  @Test func latestCoalescesAndEndsOnTheNewestValue() async {
    let box = ReactiveBox(0)
    var iterator = box.values.makeAsyncIterator()
    #expect(await iterator.next() == 0)
    for _ in 0..<1_000 { box.withLock { $0 += 1 } }
    #expect(await iterator.next() == 1_000)
    box.finish()
    #expect(await iterator.next() == nil)
  }

  @Test func latestNeverGoesBackwardsUnderConcurrentWrites() async {
    let box = ReactiveBox(0)
    let writers = 4
    let writes = 5_000
    let final = writers * writes
    let consumer = Task {
      var received: [Int] = []
      for await value in box.values {
        received.append(value)
        if value == final { break }
      }
      return received
    }
    await waitUntil { box.subscriberCount == 1 }
    await withTaskGroup(of: Void.self) { group in
      for _ in 0..<writers {
        group.addTask { for _ in 0..<writes { box.withLock { $0 += 1 } } }
      }
    }
    let received = await consumer.value
    #expect(received.last == final)
    #expect(zip(received, received.dropFirst()).allSatisfy { $0 < $1 })
  }

  @Test func boundedKeepsTheNewestValues() async {
    let box = ReactiveBox(0)
    var iterator = box.values(buffering: .bounded(3)).makeAsyncIterator()
    for _ in 0..<10 { box.withLock { $0 += 1 } }
    var received: [Int] = []
    for _ in 0..<3 { received.append(await iterator.next()!) }
    #expect(received == [8, 9, 10])
    box.finish()
    #expect(await iterator.next() == nil)
  }

  @Test func subscribingWhileWritingNeverLosesAValueUnderAll() async {
    let box = ReactiveBox(0)
    let writers = 4
    let writes = 2_500
    let final = writers * writes
    let sequences = await withTaskGroup(of: [Int].self) { group in
      for _ in 0..<writers {
        group.addTask {
          for _ in 0..<writes { box.withLock { $0 += 1 } }
          return []
        }
      }
      for _ in 0..<16 {
        group.addTask {
          await Task.yield()
          var received: [Int] = []
          for await value in box.values(buffering: .all) {
            received.append(value)
            if value == final { break }
          }
          return received
        }
      }
      var sequences: [[Int]] = []
      for await sequence in group where !sequence.isEmpty { sequences.append(sequence) }
      return sequences
    }
    #expect(sequences.count == 16)
    for received in sequences {
      // Every write adds one, so a subscriber that lost or reordered a value would show a gap.
      #expect(received == Array(received[0]...final))
    }
  }

  @Test func hundredConsumersEachReceiveEveryValueInOrder() async {
    let box = ReactiveBox(0)
    let changes = 1_000
    await withTaskGroup(of: [Int].self) { group in
      for _ in 0..<100 {
        group.addTask {
          var received: [Int] = []
          for await value in box.values(buffering: .all) {
            received.append(value)
            if value == changes { break }
          }
          return received
        }
      }
      await waitUntil { box.subscriberCount == 100 }
      for _ in 0..<changes { box.withLock { $0 += 1 } }
      var count = 0
      for await received in group {
        #expect(received == Array(0...changes))
        count += 1
      }
      #expect(count == 100)
    }
    #expect(box.subscriberCount == 0)
  }

  @Test func cancellingAWaitingConsumerEndsItAndUnregisters() async {
    let box = ReactiveBox(0)
    let consumer = Task {
      var received: [Int] = []
      for await value in box.values { received.append(value) }
      return received
    }
    await waitUntil { box.waitingSubscriberCount == 1 }
    consumer.cancel()
    #expect(await consumer.value == [0])
    #expect(box.subscriberCount == 0)
  }

  @Test func aCancelledTaskEndsItsIterationAtOnce() async {
    let box = ReactiveBox(0)
    let consumer = Task {
      withUnsafeCurrentTask { $0?.cancel() }
      var count = 0
      for await _ in box.values { count += 1 }
      return count
    }
    #expect(await consumer.value == 0)
    #expect(box.subscriberCount == 0)
  }

  @Test func breakingOutOfALoopUnregisters() async {
    let box = ReactiveBox(0)
    for await value in box.values where value == 0 { break }
    #expect(box.subscriberCount == 0)
  }

  @Test func droppingAnIteratorUnregisters() {
    let box = ReactiveBox(0)
    do {
      let iterator = box.values(buffering: .all).makeAsyncIterator()
      #expect(box.subscriberCount == 1)
      withExtendedLifetime(iterator) {}
    }
    #expect(box.subscriberCount == 0)
  }

  @Test func finishEndsWaitingConsumersAndDrainsBufferedOnes() async {
    let box = ReactiveBox(0)
    let waiting = Task {
      var received: [Int] = []
      for await value in box.values { received.append(value) }
      return received
    }
    await waitUntil { box.waitingSubscriberCount == 1 }
    var buffered = box.values(buffering: .all).makeAsyncIterator()
    box.withLock { $0 = 1 }
    box.withLock { $0 = 2 }
    await waitUntil { box.waitingSubscriberCount == 1 }
    box.finish()
    let waitingReceived = await waiting.value
    #expect(waitingReceived.last == 2)
    var drained: [Int] = []
    while let value = await buffered.next() { drained.append(value) }
    #expect(drained == [0, 1, 2])
    #expect(box.subscriberCount == 0)
  }

  @Test func anIterationAfterFinishYieldsTheCurrentValueAndEnds() async {
    let box = ReactiveBox(5)
    box.finish()
    var received: [Int] = []
    for await value in box.values { received.append(value) }
    #expect(received == [5])
  }

  @Test func theBoxIsFreedAfterItsConsumersAreCancelled() async {
    weak var weakBox: ReactiveBox<Int>?
    do {
      let box = ReactiveBox(0)
      weakBox = box
      let consumers = (0..<10).map { _ in
        Task { for await _ in box.values(buffering: .all) {} }
      }
      await waitUntil { box.waitingSubscriberCount == 10 }
      for consumer in consumers { consumer.cancel() }
      for consumer in consumers { await consumer.value }
      #expect(box.subscriberCount == 0)
    }
    #expect(weakBox == nil)
  }

  @Test func aConsumerMayWriteTheBoxItIterates() async {
    let box = ReactiveBox(0)
    var received: [Int] = []
    for await value in box.values(buffering: .all) {
      received.append(value)
      if value < 3 { box.withLock { $0 += 1 } } else { break }
    }
    #expect(received == [0, 1, 2, 3])
  }
}
