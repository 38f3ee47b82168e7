import Foundation
import Synchronization
import TestSupport
import Testing

@testable import SharedState

/// The shared state follows the most recently started run.
@Suite(.freshRegistry) struct OverlappingRunsTests {
  @Test func anOlderParallelRunDoesNotShowSuccessWhileANewerOneIsPending() async throws {
    let post = Shared(value: OperationState<Int>())
    let gate = Gate()
    let first = post.run { 1 }
    let second = post.run {
      await gate.wait()
      return 2
    }
    #expect(try await first.value == 1)
    #expect(post.wrappedValue.status == .pending)
    #expect(post.wrappedValue.value == nil)
    gate.open()
    #expect(try await second.value == 2)
    #expect(post.wrappedValue.status == .success)
    #expect(post.wrappedValue.value == 2)
  }

  @Test func anOlderParallelRunSettlingLastDoesNotWin() async throws {
    let post = Shared(value: OperationState<Int>())
    let gate = Gate()
    let calls = Collector<String>()
    let first = post.run {
      await gate.wait()
      return 1
    } onSuccess: { value in
      calls.append("first success \(value)")
    } onSettled: { _ in
      calls.append("first settled")
    }
    let second = post.run { 2 }
    #expect(try await second.value == 2)
    gate.open()
    #expect(try await first.value == 1)
    #expect(calls.elements == ["first success 1", "first settled"])
    #expect(post.wrappedValue.status == .success)
    #expect(post.wrappedValue.value == 2)
  }

  @Test func anOlderParallelRunFailingLastDoesNotShowItsError() async throws {
    let post = Shared(value: OperationState<Int>())
    let gate = Gate()
    let first = post.run {
      await gate.wait()
      throw TestFailure()
    }
    let second = post.run { 2 }
    #expect(try await second.value == 2)
    gate.open()
    _ = await first.result
    #expect(post.wrappedValue.status == .success)
    #expect(post.wrappedValue.error == nil)
  }

  @Test func aSupersededRunThatIgnoresCancellationDoesNotKeepTheStatePending() async {
    let post = Shared(value: OperationState<Int>(value: 0))
    let firstGate = Gate()
    let secondGate = Gate()
    let started = Counter()
    let first = post.run(policy: .cancelPrevious) {
      started.increment()
      await firstGate.wait()  // Ignores cancellation.
      return 1
    }
    await waitUntil { started.count == 1 }
    let second = post.run(policy: .cancelPrevious) {
      await secondGate.wait()
      return 2
    }
    second.cancel()
    secondGate.open()
    _ = await second.result
    #expect(post.wrappedValue.status == .success)
    firstGate.open()
    _ = await first.result
    #expect(post.wrappedValue.status == .success)
    #expect(post.wrappedValue.value == 0)
  }

  @Test func anOlderDebouncedRunFinishingLastDoesNotOverwriteANewerOne() async throws {
    let clock = ManualClock()
    let search = Shared(value: OperationState<String>())
    let slow = Gate()
    let started = Counter()
    let ab = search.run(.clock(clock), policy: .debounce(.milliseconds(300))) {
      started.increment()
      await slow.wait()
      return "results for ab"
    }
    await clock.waitForSleepers()
    clock.advance(by: .milliseconds(300))
    await waitUntil { started.count == 1 }
    let abc = search.run(.clock(clock), policy: .debounce(.milliseconds(300))) { "results for abc" }
    await clock.waitForSleepers()
    clock.advance(by: .milliseconds(300))
    #expect(try await abc.value == "results for abc")
    slow.open()
    #expect(try await ab.value == "results for ab")
    #expect(search.wrappedValue.value == "results for abc")
    #expect(search.wrappedValue.status == .success)
  }
}
