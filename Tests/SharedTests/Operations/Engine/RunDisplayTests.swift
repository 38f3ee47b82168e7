import Foundation
import Synchronization
import TestSupport
import Testing

@testable import SharedState

/// Overlapping, cancelled and reset runs leave the status every holder sees right.
@Suite(.freshRegistry) struct RunDisplayTests {
  @Test func cancellingTheLastParallelRunRestoresTheSettledStatus() async throws {
    let post = Shared(value: OperationState<Int>())
    let firstGate = Gate()
    let secondGate = Gate()
    let first = post.run {
      await firstGate.wait()
      return 1
    }
    let second = post.run {
      await secondGate.wait()
      return 2
    }
    firstGate.open()
    _ = try await first.value
    second.cancel()
    secondGate.open()
    _ = await second.result
    #expect(post.wrappedValue.status == .success)
    #expect(post.wrappedValue.value == 1)
  }

  @Test func aCancelledRunLeavesPendingWhileAnotherRuns() async throws {
    let post = Shared(value: OperationState<Int>())
    let firstGate = Gate()
    let secondGate = Gate()
    let first = post.run {
      await firstGate.wait()
      return 1
    }
    let second = post.run {
      await secondGate.wait()
      return 2
    }
    first.cancel()
    firstGate.open()
    _ = await first.result
    #expect(post.wrappedValue.status == .pending)
    secondGate.open()
    _ = try await second.value
    #expect(post.wrappedValue.status == .success)
  }

  @Test func cancellingTheLatestAfterASupersededRunDoesNotStayPending() async {
    let post = Shared(value: OperationState<Int>(value: 0))
    let gate = Gate()
    let first = post.run(policy: .cancelPrevious) {
      await gate.wait()
      return 1
    }
    let second = post.run(policy: .cancelPrevious) {
      await gate.wait()
      return 2
    }
    second.cancel()
    gate.open()
    _ = await first.result
    _ = await second.result
    #expect(post.wrappedValue.status == .success)
    #expect(post.wrappedValue.value == 0)
  }

  @Test func aRunCancelledAfterAResetReturnsToIdle() async {
    let post = Shared(value: OperationState<Int>())
    _ = await post.run { throw TestFailure() }.result
    let gate = Gate()
    let task = post.run {
      await gate.wait()
      return 1
    }
    post.reset()
    task.cancel()
    gate.open()
    _ = await task.result
    #expect(post.wrappedValue.status == .idle)
    #expect(post.wrappedValue.error == nil)
  }

  @Test func aCancelledRunWhoseOperationFinishesAnywayIsCancelled() async {
    let post = Shared(value: OperationState<Int>())
    let gate = Gate()
    let started = Counter()
    let events = Collector<String>()
    let task = post.run {
      started.increment()
      await gate.wait()
      return 1
    } onSuccess: { _ in
      events.append("success")
    }
    await waitUntil { started.count == 1 }
    task.cancel()
    gate.open()
    _ = await task.result
    #expect(events.elements.isEmpty)
    #expect(post.wrappedValue.status == .idle)
  }
}
