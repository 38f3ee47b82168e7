import Foundation
import Synchronization
import TestSupport
import Testing

@testable import SharedState

/// Parallel runs: the shared state follows the most recently started run.
@Suite(.freshRegistry) struct ParallelPolicyTests {
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
}
