import Foundation
import Synchronization
import TestSupport
import Testing

@testable import SharedState

@Suite(.freshRegistry) struct OperationPolicyTests {
  @Test func dedupeRunsOnceForBothCallers() async throws {
    let post = Shared(value: OperationState<Int>())
    let executions = Counter()
    let gate = Gate()
    let results = Collector<Int>()
    let operation: @Sendable () async throws -> Int = {
      executions.increment()
      await gate.wait()
      return 9
    }
    let first = post.run(policy: .dedupe, operation, onSuccess: { results.append($0) })
    let second = post.run(policy: .dedupe, operation, onSuccess: { results.append($0) })
    gate.open()
    #expect(try await first.value == 9)
    #expect(try await second.value == 9)
    #expect(executions.count == 1)
    #expect(results.elements == [9, 9])
    _ = try await post.run(policy: .dedupe, operation).value
    #expect(executions.count == 2)
  }

  @Test func aDedupeJoinerThatCancelsLeavesAlone() async throws {
    let post = Shared(value: OperationState<Int>())
    let gate = Gate()
    let operation: @Sendable () async throws -> Int = {
      await gate.wait()
      try Task.checkCancellation()
      return 4
    }
    let first = post.run(policy: .dedupe, operation)
    let settled = Collector<String>()
    let joiner = post.run(
      policy: .dedupe, operation,
      onSettled: { result in settled.append((try? result.get()).map { "\($0)" } ?? "cancelled") })
    joiner.cancel()
    await #expect(throws: CancellationError.self) { try await joiner.value }
    #expect(settled.elements == ["cancelled"])
    gate.open()
    #expect(try await first.value == 4)
    #expect(post.wrappedValue.value == 4)
  }

  @Test func cancelPreviousLetsTheLatestWin() async throws {
    let post = Shared(value: OperationState<Int>())
    let firstGate = Gate()
    let events = Collector<String>()
    let first = post.run(policy: .cancelPrevious) {
      await firstGate.wait()
      return 1
    } onSuccess: { _ in
      events.append("first success")
    } onSettled: { result in
      if case .failure(let error) = result, error is CancellationError { events.append("first cancelled") }
    }
    let second = post.run(policy: .cancelPrevious) { 2 }
    #expect(try await second.value == 2)
    firstGate.open()
    _ = await first.result
    #expect(events.elements == ["first cancelled"])
    #expect(post.wrappedValue.value == 2)
    #expect(post.wrappedValue.status == .success)
  }

  @Test func serialRunsOneAtATimeInCallOrder() async throws {
    let post = Shared(value: OperationState<Int>())
    let log = Collector<String>()
    let firstGate = Gate()
    let first = post.run(policy: .serial) {
      log.append("start 1")
      await firstGate.wait()
      log.append("end 1")
      return 1
    }
    let second = post.run(policy: .serial) {
      log.append("start 2")
      return 2
    }
    let third = post.run(policy: .serial) {
      log.append("start 3")
      return 3
    }
    await waitUntil { log.elements == ["start 1"] }
    firstGate.open()
    #expect(try await third.value == 3)
    #expect(try await first.value == 1)
    #expect(try await second.value == 2)
    #expect(log.elements == ["start 1", "end 1", "start 2", "start 3"])
    #expect(post.wrappedValue.value == 3)
  }
}
