import Foundation
import Synchronization
import TestSupport
import Testing

@testable import SharedState

/// A run that has nothing to write does not write: no version, no notification, no save.
@Suite(.freshRegistry) struct RunEndingTests {
  @Test func anOlderRunEndingAfterANewerOneWasShownNotifiesNobody() async throws {
    let post = Shared(value: OperationState<Int>())
    let gate = Gate()
    let started = Counter()
    let older = post.run {
      started.increment()
      await gate.wait()
      return 1
    }
    await waitUntil { started.count == 1 }
    #expect(try await post.run { 2 }.value == 2)
    let changes = Counter()
    let token = post.observe { _ in changes.increment() }
    gate.open()
    #expect(try await older.value == 1)
    #expect(changes.count == 0)
    #expect(post.wrappedValue.value == 2)
    withExtendedLifetime(token) {}
  }

  @Test func aSupersededRunWithoutAnOptimisticUpdateNotifiesNobodyWhenItEnds() async throws {
    let post = Shared(value: OperationState<Int>())
    let olderGate = Gate()
    let newerGate = Gate()
    let started = Counter()
    let older = post.run(policy: .cancelPrevious) {
      started.increment()
      await olderGate.wait()
      return 1
    }
    await waitUntil { started.count == 1 }
    let newer = post.run(policy: .cancelPrevious) {
      await newerGate.wait()
      return 2
    }
    let changes = Counter()
    let token = post.observe { _ in changes.increment() }
    olderGate.open()
    _ = await older.result
    #expect(changes.count == 0)
    newerGate.open()
    #expect(try await newer.value == 2)
    withExtendedLifetime(token) {}
  }

  @Test func aRetryOfARunTheStateDoesNotFollowNotifiesNobody() async throws {
    let post = Shared(value: OperationState<Int>())
    let olderGate = Gate()
    let newerGate = Gate()
    let attempts = Counter()
    let older = post.run(.retry(.constant(retries: 1, delay: .zero))) {
      attempts.increment()
      if attempts.count == 1 {
        await olderGate.wait()
        throw URLError(.timedOut)
      }
      return 1
    }
    await waitUntil { attempts.count == 1 }
    let newer = post.run {
      await newerGate.wait()
      return 2
    }
    let changes = Counter()
    let token = post.observe { _ in changes.increment() }
    olderGate.open()
    #expect(try await older.value == 1)
    #expect(attempts.count == 2)
    #expect(changes.count == 0)
    #expect(post.wrappedValue.status == .pending)
    newerGate.open()
    #expect(try await newer.value == 2)
    withExtendedLifetime(token) {}
  }
}
