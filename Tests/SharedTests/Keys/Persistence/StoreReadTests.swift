import Dispatch
import Foundation
import TestSupport
import Testing

@testable import SharedState

/// A read of the store that began before a change of the program never replaces that change, whenever the change's
/// save request arrives.
// A writer blocked by a bug would never return: the time limit turns that deadlock into a failure.
@Suite(.freshRegistry, .timeLimit(.minutes(20))) struct StoreReadTests {
  /// A read begins; a change is made whose save request waits in a slow observer; the read's older value comes in.
  @Test func aReadThatBeganBeforeAChangeWhoseRequestIsDelayedIsNotApplied() async throws {
    let store = ContextKey.Store()
    @Shared(ContextKey(name: "poll-vs-change", store: store)) var value = Releasing(number: 0)
    let context = try #require(store.context.withLock { $0 })
    let read = try #require(context.storeReadStarted())
    let entered = Counter()
    // The observer runs on the writer's thread of its own, never on the shared pool.
    let release = DispatchSemaphore(value: 0)
    defer { release.signal() }  // A failed expectation never leaves the writer blocked.
    let token = $value.observe { current in
      guard current.number == 1 else { return }
      entered.increment()
      release.wait()  // On the writer's thread of its own; a deadlock is left to the test's time limit.
    }
    defer { token.cancel() }
    let writerDone = Counter()
    let shared = $value
    Thread {
      shared.withLock { $0.number = 1 }
      writerDone.increment()
    }.start()
    await waitUntil { entered.count == 1 }
    let applied = context.update(Releasing(number: 100), readAt: read)
    release.signal()
    await waitUntil { writerDone.count == 1 }
    try await $value.save()
    #expect(!applied)
    #expect(value.number == 1)
  }
}
