import Dispatch
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import Reactive

@Suite struct ObserverQueueTests {
  @Test func aQueuedChangeSkipsObserversRegisteredAfterIt() {
    let box = ReactiveBox(0)
    let calls = Collector<String>()
    let late = Lock<ObserverToken?>(nil)
    let first = box.observe { value in
      calls.append("first \(value)")
      if value == 1 {
        box.withLock { $0 = 2 }
        late.withLock { $0 = box.observe { calls.append("late \($0)") } }
      }
    }
    box.withLock { $0 = 1 }
    box.withLock { $0 = 3 }
    #expect(calls.elements == ["first 1", "first 2", "first 3", "late 3"])
    withExtendedLifetime(first) {}
    late.withLock { $0 = nil }
  }

  @Test func aWriterDeliversFewChangesThatAreNotItsOwn() async {
    let box = ReactiveBox(0)
    let others = 200
    let blockFirstCall = DispatchSemaphore(value: 0)
    let calls = Collector<(value: Int, onFirstWriter: Bool)>()
    let firstWriter = Lock<UInt64?>(nil)
    let token = box.observe { value in
      let onFirstWriter = firstWriter.withLock { $0 } == currentThreadID()
      calls.append((value, onFirstWriter))
      if value == 1 { blockFirstCall.wait() }
    }
    // A thread of its own, so that blocking it in the callback takes nothing from the tasks of other tests.
    let writerDone = Counter()
    let writer = Thread {
      firstWriter.withLock { $0 = currentThreadID() }
      box.withLock { $0 += 1 }  // Delivers 1, waits in the callback, then some of the others' changes.
      firstWriter.withLock { $0 = nil }
      writerDone.increment()
    }
    writer.start()
    await waitUntil { !calls.elements.isEmpty }
    for _ in 0..<others { box.withLock { $0 += 1 } }  // Queued behind the blocked delivery.
    blockFirstCall.signal()
    await waitUntil { writerDone.count == 1 }
    await waitUntil { calls.elements.count == others + 1 }
    let all = calls.elements
    #expect(all.map(\.value) == Array(1...(others + 1)))
    let deliveredByFirstWriter = all.filter(\.onFirstWriter).count
    #expect(deliveredByFirstWriter <= 1 + ReactiveBox<Int>.queuedRoundsPerWriter)
    token.cancel()
  }

  @Test func aCancelledTaskStopsTakingItsBatch() async {
    let box = ReactiveBox(0)
    let (afterCancel, subscribers) = await Task {
      var iterator = box.values(buffering: .all).makeAsyncIterator()
      for _ in 0..<100 { box.withLock { $0 += 1 } }
      _ = await iterator.next()  // Takes the whole batch.
      withUnsafeCurrentTask { $0?.cancel() }
      var afterCancel = 0
      while await iterator.next() != nil { afterCancel += 1 }
      return (afterCancel, box.subscriberCount)
    }.value
    #expect(afterCancel == 0)
    #expect(subscribers == 0)
  }
}

/// An identifier of the calling thread.
private func currentThreadID() -> UInt64 {
  #if canImport(Glibc)
    return UInt64(pthread_self())
  #else
    return UInt64(UInt(bitPattern: pthread_self()))
  #endif
}
