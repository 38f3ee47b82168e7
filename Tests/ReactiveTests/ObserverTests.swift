import Synchronization
import TestSupport
import Testing

@testable import Reactive

@Suite struct ObserverTests {
  @Test func observersRunAfterEachChangeInRegistrationOrder() {
    let box = ReactiveBox(0)
    let calls = Collector<String>()
    let first = box.observe { calls.append("first \($0)") }
    let second = box.observe { calls.append("second \($0)") }
    box.withLock { $0 = 1 }
    box.withLock { $0 = 2 }
    #expect(calls.elements == ["first 1", "second 1", "first 2", "second 2"])
    withExtendedLifetime((first, second)) {}
  }

  @Test func anObserverIsNotCalledOnRegistration() {
    let box = ReactiveBox(0)
    let calls = Collector<Int>()
    let token = box.observe { calls.append($0) }
    #expect(calls.elements.isEmpty)
    token.cancel()
  }

  @Test func cancelAndDeinitStopTheObserver() {
    let box = ReactiveBox(0)
    let calls = Collector<Int>()
    let token = box.observe { calls.append($0) }
    box.withLock { $0 = 1 }
    token.cancel()
    token.cancel()
    #expect(token.isCancelled)
    box.withLock { $0 = 2 }
    do {
      let dropped = box.observe { calls.append(-$0) }
      #expect(box.observerCount == 1)
      withExtendedLifetime(dropped) {}
    }
    #expect(box.observerCount == 0)
    box.withLock { $0 = 3 }
    #expect(calls.elements == [1])
  }

  @Test func anObserverMayCancelItselfInsideItsCallback() {
    let box = ReactiveBox(0)
    let calls = Collector<Int>()
    let token = Lock<ObserverToken?>(nil)
    let observer = box.observe { value in
      calls.append(value)
      token.withLock { $0?.cancel() }
    }
    token.withLock { $0 = observer }
    box.withLock { $0 = 1 }
    box.withLock { $0 = 2 }
    #expect(calls.elements == [1])
    #expect(box.observerCount == 0)
  }

  @Test func cancellingAnotherObserverSkipsItForTheCurrentChange() {
    let box = ReactiveBox(0)
    let calls = Collector<String>()
    let later = Lock<ObserverToken?>(nil)
    let first = box.observe { value in
      calls.append("first \(value)")
      later.withLock { $0?.cancel() }
    }
    let second = box.observe { calls.append("second \($0)") }
    later.withLock { $0 = second }
    box.withLock { $0 = 1 }
    #expect(calls.elements == ["first 1"])
    withExtendedLifetime(first) {}
  }

  @Test func aChangeMadeInsideACallbackReachesEveryObserverAfterTheCurrentOne() {
    let box = ReactiveBox(0)
    let calls = Collector<String>()
    let first = box.observe { value in
      calls.append("first \(value)")
      if value == 1 { box.withLock { $0 = 2 } }
    }
    let second = box.observe { calls.append("second \($0)") }
    box.withLock { $0 = 1 }
    #expect(calls.elements == ["first 1", "second 1", "first 2", "second 2"])
    #expect(box.value == 2)
    withExtendedLifetime((first, second)) {}
  }

  @Test func anObserverRegisteredInsideACallbackHearsLaterChanges() {
    let box = ReactiveBox(0)
    let calls = Collector<String>()
    let added = Lock<ObserverToken?>(nil)
    let first = box.observe { value in
      calls.append("first \(value)")
      added.withLock { token in
        if token == nil { token = box.observe { calls.append("added \($0)") } }
      }
    }
    box.withLock { $0 = 1 }
    box.withLock { $0 = 2 }
    #expect(calls.elements == ["first 1", "first 2", "added 2"])
    withExtendedLifetime(first) {}
    added.withLock { $0 = nil }
  }

  @Test func observersOfOneBoxSeeConcurrentChangesOneAtATimeAndInOrder() async {
    let box = ReactiveBox(0)
    let calls = Collector<Int>()
    let inCallback = Atomic<Int>(0)
    let overlapped = Atomic<Bool>(false)
    let token = box.observe { value in
      if inCallback.add(1, ordering: .relaxed).newValue > 1 { overlapped.store(true, ordering: .relaxed) }
      calls.append(value)
      inCallback.subtract(1, ordering: .relaxed)
    }
    await withTaskGroup(of: Void.self) { group in
      for _ in 0..<4 {
        group.addTask { for _ in 0..<2_000 { box.withLock { $0 += 1 } } }
      }
    }
    // Queued changes beyond a writer's share are delivered by a task, which may still be running here.
    await waitUntil { calls.elements.count == 8_000 }
    let didOverlap = overlapped.load(ordering: .relaxed)
    #expect(!didOverlap)
    #expect(calls.elements == Array(1...8_000))
    token.cancel()
  }

  @Test func aTokenKeepsItsBoxAliveAndFreesItWhenCancelled() {
    weak var weakBox: ReactiveBox<Int>?
    var token: ObserverToken?
    do {
      let box = ReactiveBox(0)
      weakBox = box
      token = box.observe { _ in }
    }
    #expect(weakBox != nil)
    token?.cancel()
    token = nil
    #expect(weakBox == nil)
  }
}
