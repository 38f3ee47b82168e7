import Dispatch
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import Reactive

/// Reads the box it was made with when it goes away.
private final class ReadsBoxOnDeinit: Sendable {
  let box: ReactiveBox<Int>
  init(_ box: ReactiveBox<Int>) { self.box = box }
  deinit { _ = box.value }
}

/// Runs a closure when it goes away.
private final class Payload: Sendable {
  let onDeinit: @Sendable () -> Void
  init(_ onDeinit: @escaping @Sendable () -> Void) { self.onDeinit = onDeinit }
  deinit { onDeinit() }
}

/// Nothing the box releases runs while its lock is held: each of these would stop the process with
/// "Recursive call to lock Mutex" if it did.
@Suite struct ReleaseOutsideTheLockTests {
  @Test func cancellingAnObserverReleasesItsClosureAfterTheLock() {
    let box = ReactiveBox(0)
    let token = box.observe { [helper = ReadsBoxOnDeinit(box)] _ in _ = helper }
    token.cancel()
    #expect(box.observerCount == 0)
  }

  @Test func anObserverMayOwnAnotherTokenOfTheSameBox() {
    let box = ReactiveBox(0)
    var token: ObserverToken? = {
      let other = box.observe { _ in }
      return box.observe { [other] _ in _ = other }
    }()
    #expect(box.observerCount == 2)
    token = nil
    #expect(box.observerCount == 0)
    _ = token
  }

  @Test func anObserverMayOwnTheTokenItRegisteredInItsCallback() {
    let box = ReactiveBox(0)
    let outer: ObserverToken = {
      let inner = Lock<ObserverToken?>(nil)
      return box.observe { _ in
        inner.withLock { if $0 == nil { $0 = box.observe { _ in } } }
      }
    }()
    box.withLock { $0 = 1 }
    #expect(box.observerCount == 2)
    outer.cancel()
    #expect(box.observerCount == 0)
  }

  @Test func aValueDroppedByABufferIsReleasedAfterTheLock() {
    let box = ReactiveBox<Payload?>(nil)
    let released = Lock(0)
    // A buffer of two (a `.latest` iteration keeps no copy: it reads the box's own value).
    let iterator = box.values(buffering: .bounded(2)).makeAsyncIterator()
    box.withLock {
      $0 = Payload {
        _ = box.value
        released.withLock { $0 += 1 }
      }
    }
    box.withLock { $0 = nil }
    #expect(released.withLock { $0 } == 0)
    box.withLock { $0 = nil }  // The buffer drops the payload here.
    #expect(released.withLock { $0 } == 1)
    withExtendedLifetime(iterator) {}
  }

  @Test func anUnsubscribedBufferIsReleasedAfterTheLock() {
    let box = ReactiveBox<Payload?>(nil)
    let released = Lock(0)
    do {
      let iterator = box.values(buffering: .all).makeAsyncIterator()
      box.withLock {
        $0 = Payload {
          _ = box.value
          released.withLock { $0 += 1 }
        }
      }
      box.withLock { $0 = nil }
      withExtendedLifetime(iterator) {}
    }
    #expect(released.withLock { $0 } == 1)
    #expect(box.subscriberCount == 0)
  }
}

/// A lock's critical section that lets something go hands it to `withLockReleasingAfter(_:)`, which releases it after
/// the lock: here the released value's deinit finds the lock free.
@Suite struct LockReleasingAfterTests {
  @Test func whatACriticalSectionReleasesGoesAfterTheLock() {
    let lock = Lock<Payload?>(nil)
    let heldAtDeinit = Mutex<Bool?>(nil)
    lock.withLock { stored in
      stored = Payload {
        let isHeld = lock.mutex.withLockIfAvailable { _ in false } ?? true
        heldAtDeinit.withLock { $0 = isHeld }
      }
    }
    let result = lock.withLockReleasingAfter { stored in
      defer { stored = nil }
      return (result: 42, released: stored)
    }
    #expect(result == 42)
    #expect(heldAtDeinit.withLock { $0 } == false)
  }
}
