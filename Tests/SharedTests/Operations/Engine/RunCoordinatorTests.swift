import Foundation
import Synchronization
import TestSupport
import Testing

@testable import SharedState

/// A screen with two operation states of the same type.
private struct TwoOperations: Sendable {
  var posts = OperationState<Int>()
  var drafts = OperationState<Int>()
}

@Suite(.freshRegistry) struct RunCoordinatorTests {
  @Test func siblingStatesOfOneTypeAreCoordinatedSeparately() async throws {
    let screen = Shared(value: TwoOperations())
    let gate = Gate()
    let posts = screen.posts.run(policy: .dedupe) {
      await gate.wait()
      return 1
    }
    let drafts = screen.drafts.run(policy: .dedupe) { 2 }
    #expect(try await drafts.value == 2)
    #expect(screen.wrappedValue.drafts.value == 2)
    gate.open()
    #expect(try await posts.value == 1)
    let latestPosts = screen.posts.run(policy: .cancelPrevious) { 3 }
    let latestDrafts = screen.drafts.run(policy: .cancelPrevious) { 4 }
    #expect(try await latestPosts.value == 3)
    #expect(try await latestDrafts.value == 4)
  }

  @Test func aNewDedupeCallerDoesNotJoinAnAbandonedExecution() async {
    let post = Shared(value: OperationState<Int>())
    let gate = Gate()
    let executions = Counter()
    let operation: @Sendable () async throws -> Int = {
      executions.increment()
      await gate.wait()
      try Task.checkCancellation()
      return 5
    }
    let abandoned = post.run(policy: .dedupe, operation)
    await waitUntil { executions.count == 1 }
    abandoned.cancel()
    _ = await abandoned.result
    let fresh = post.run(policy: .dedupe, operation)
    gate.open()
    #expect((try? await fresh.value) == 5)
    #expect(executions.count == 2)
    #expect(post.wrappedValue.value == 5)
  }

  @Test func aDedupeRunStartedWhenTheLastOneSettledStartsANewExecution() async throws {
    let post = Shared(value: OperationState<Int>())
    let executions = Counter()
    let operation: @Sendable () async throws -> Int = { executions.increment() }
    let started = Collector<OperationTask<Int>>()
    let token = post.observe { state in
      if state.status == .success && state.value == 1 && started.elements.isEmpty {
        started.append(post.run(policy: .dedupe, operation))
      }
    }
    _ = try await post.run(policy: .dedupe, operation).value
    await waitUntil { !started.elements.isEmpty }
    #expect(try await started.elements[0].value == 2)
    #expect(executions.count == 2)
    token.cancel()
  }

  @Test func aSupersededRunRollsBackItsOptimisticUpdate() async {
    let list = Shared(value: OperationState<[Int]>(value: [1]))
    let gate = Gate()
    let started = Counter()
    let first = list.run(
      policy: .cancelPrevious,
      optimistic: OptimisticUpdate(apply: { $0.value?.append(7) }, rollback: { $0.value?.removeAll { $0 == 7 } })
    ) {
      started.increment()
      await gate.wait()
      return [1, 7]
    }
    await waitUntil { started.count == 1 }
    let second = list.run(
      policy: .cancelPrevious,
      optimistic: OptimisticUpdate(apply: { $0.value?.append(8) }, rollback: { $0.value?.removeAll { $0 == 8 } })
    ) {
      throw TestFailure()
    }
    _ = await second.result
    gate.open()
    _ = await first.result
    #expect(list.wrappedValue.value == [1])
  }

  @MainActor @Test func aSerialRunIsPendingBeforeRunReturns() async throws {
    let post = Shared(value: OperationState<Int>())
    let task = post.run(policy: .serial) { 1 }
    #expect(post.wrappedValue.status == .pending)
    _ = try await task.value
    #expect(post.wrappedValue.status == .success)
  }

  @Test(.timeLimit(.minutes(20))) func aCancelledQueuedRunSettlesWithoutWaitingForTheOneAhead() async throws {
    let post = Shared(value: OperationState<Int>())
    let gate = Gate()
    let first = post.run(policy: .serial) {
      await gate.wait()
      return 1
    }
    let settled = Collector<String>()
    let second = post.run(policy: .serial) {
      2
    } onSettled: { _ in
      settled.append("second")
    }
    let third = post.run(policy: .serial) { 3 }
    second.cancel()
    _ = await second.result  // Would wait for the gate if the queued run could not leave.
    #expect(settled.elements == ["second"])
    #expect(post.wrappedValue.status == .pending)
    gate.open()
    #expect(try await first.value == 1)
    #expect(try await third.value == 3)
    #expect(post.wrappedValue.status == .success)
  }

  @MainActor @Test func coordinatedCallbacksRunOnTheCallersActor() async throws {
    let post = Shared(value: OperationState<Int>())
    for policy in [OperationPolicy.serial, .dedupe, .cancelPrevious] {
      let task = post.run(policy: policy) {
        1
      } onSuccess: { _ in
        MainActor.assertIsolated()
      } onSettled: { _ in
        MainActor.assertIsolated()
      }
      _ = try await task.value
    }
  }
}
