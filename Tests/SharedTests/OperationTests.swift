import Foundation
import Synchronization
import TestSupport
import Testing

@testable import SharedState

@Suite(.freshRegistry) struct OperationCallbackTests {
  @Test func aSuccessRunsAttemptThenSuccessThenSettled() async throws {
    let post = Shared(value: OperationState<String>())
    var statuses = post.values(buffering: .all).makeAsyncIterator()
    let events = Collector<String>()
    let task = post.run {
      "hello"
    } onAttempt: {
      events.append("attempt")
    } onSuccess: { value in
      events.append("success \(value)")
    } onError: { error in
      events.append("error \(error)")
    } onSettled: { result in
      events.append("settled \((try? result.get()) ?? "failure")")
    }
    #expect(events.elements == ["attempt"])
    #expect(post.wrappedValue.status == .pending)
    #expect(post.wrappedValue.attempt == 1)
    #expect(try await task.value == "hello")
    #expect(events.elements == ["attempt", "success hello", "settled hello"])
    #expect(post.wrappedValue.status == .success)
    #expect(post.wrappedValue.value == "hello")
    #expect(post.wrappedValue.updatedAt != nil)
    #expect(await statuses.next()?.status == .idle)
    #expect(await statuses.next()?.status == .pending)
    #expect(await statuses.next()?.status == .success)
  }

  @Test func aFailureRunsErrorAndKeepsTheLastValue() async {
    let post = Shared(value: OperationState<String>(value: "old"))
    let events = Collector<String>()
    let task = post.run {
      throw TestFailure(code: 7)
    } onSuccess: { _ in
      events.append("success")
    } onError: { error in
      events.append("error \((error as? TestFailure)?.code ?? 0)")
    } onSettled: { result in
      if case .failure = result { events.append("settled failure") }
    }
    await #expect(throws: TestFailure(code: 7)) { try await task.value }
    #expect(events.elements == ["error 7", "settled failure"])
    #expect(post.wrappedValue.status == .error)
    #expect(post.wrappedValue.value == "old")
    #expect((post.wrappedValue.error as? TestFailure)?.code == 7)
  }

  @Test func theErrorStaysUntilTheNextSuccessOrReset() async throws {
    let post = Shared(value: OperationState<Int>())
    _ = await post.run { throw TestFailure() }.result
    let gate = Gate()
    let pending = post.run {
      await gate.wait()
      return 1
    }
    #expect(post.wrappedValue.status == .pending)
    #expect(post.wrappedValue.error != nil)
    gate.open()
    _ = try await pending.value
    #expect(post.wrappedValue.error == nil)
    _ = await post.run { throw TestFailure() }.result
    post.reset()
    #expect(post.wrappedValue.status == .idle)
    #expect(post.wrappedValue.error == nil)
    #expect(post.wrappedValue.value == 1)
  }

  @Test func cancellingRestoresTheStatusAndSettlesWithCancellation() async {
    let post = Shared(value: OperationState<Int>())
    _ = await post.run { throw TestFailure(code: 3) }.result
    let events = Collector<String>()
    let gate = Gate()
    let task = post.run {
      await gate.wait()
      try Task.checkCancellation()
      return 1
    } onSuccess: { _ in
      events.append("success")
    } onError: { _ in
      events.append("error")
    } onSettled: { result in
      if case .failure(let error) = result, error is CancellationError { events.append("settled cancelled") }
    }
    #expect(post.wrappedValue.status == .pending)
    task.cancel()
    gate.open()
    await #expect(throws: CancellationError.self) { try await task.value }
    #expect(events.elements == ["settled cancelled"])
    #expect(post.wrappedValue.status == .error)
    #expect((post.wrappedValue.error as? TestFailure)?.code == 3)
  }

  @Test func performReturnsOrThrows() async throws {
    let post = Shared(value: OperationState<Int>())
    #expect(try await post.perform { 42 } == 42)
    await #expect(throws: TestFailure.self) { try await post.perform { throw TestFailure() } }
    #expect(post.wrappedValue.value == 42)
  }

  @Test func tenHoldersSeeTheSameStatusSequence() async throws {
    let holders = (0..<10).map { _ in Shared(wrappedValue: OperationState<Int>(), .inMemory("shared-op")) }
    var iterators = holders.map { $0.values(buffering: .all).makeAsyncIterator() }
    _ = try await holders[3].perform { 5 }
    for index in iterators.indices {
      var statuses: [OperationStatus] = []
      while statuses.last != .success, let state = await iterators[index].next() {
        statuses.append(state.status)
      }
      #expect(statuses == [.idle, .pending, .success])
    }
  }
}

@MainActor
@Suite(.freshRegistry) struct OperationIsolationTests {
  @Test func callbacksOfAMainActorCallerRunOnTheMainActor() async throws {
    let post = Shared(value: OperationState<Int>())
    var calls: [String] = []  // Main-actor state: only reachable from main-actor callbacks.
    let task = post.run {
      1
    } onAttempt: {
      MainActor.assertIsolated()
      calls.append("attempt")
    } onSuccess: { _ in
      MainActor.assertIsolated()
      calls.append("success")
    } onSettled: { _ in
      MainActor.assertIsolated()
      calls.append("settled")
    }
    _ = try await task.value
    #expect(calls == ["attempt", "success", "settled"])
  }

  actor Screen {
    var calls: [String] = []
    let post = Shared(value: OperationState<Int>())

    func load() async throws {
      let task = post.run {
        2
      } onSuccess: { _ in
        self.assertIsolated()
        self.calls.append("success")
      } onSettled: { _ in
        self.assertIsolated()
        self.calls.append("settled")
      }
      _ = try await task.value
    }
  }

  @Test func callbacksOfAnActorCallerRunOnThatActor() async throws {
    let screen = Screen()
    try await screen.load()
    #expect(await screen.calls == ["success", "settled"])
  }
}

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

@Suite(.freshRegistry) struct RetryTests {
  @Test func retriesUntilSuccessWithTheAttemptInTheState() async throws {
    let clock = ManualClock()
    let post = Shared(value: OperationState<Int>())
    let calls = Counter()
    let attempts = Collector<Int>()
    let token = post.observe { attempts.append($0.attempt) }
    let events = Collector<String>()
    let task = post.run(.retry(.constant(retries: 3, delay: .seconds(1))).clock(clock)) {
      if calls.increment() < 3 { throw TestFailure() }
      return 3
    } onSuccess: { _ in
      events.append("success")
    } onError: { _ in
      events.append("error")
    }
    await clock.waitForSleepers()
    #expect(calls.count == 1)
    clock.advance(by: .seconds(1))
    await waitUntil { calls.count == 2 }
    await clock.waitForSleepers()
    clock.advance(by: .seconds(1))
    #expect(try await task.value == 3)
    #expect(calls.count == 3)
    #expect(events.elements == ["success"])
    #expect(post.wrappedValue.attempt == 3)
    #expect(attempts.elements.contains(2))
    token.cancel()
  }

  @Test func exhaustedRetriesFailOnce() async {
    let clock = ManualClock()
    let post = Shared(value: OperationState<Int>())
    let calls = Counter()
    let errors = Counter()
    let task = post.run(.retry(.constant(retries: 2, delay: .zero)).clock(clock)) {
      calls.increment()
      throw TestFailure()
    } onError: { _ in
      errors.increment()
    }
    _ = await task.result
    #expect(calls.count == 3)
    #expect(errors.count == 1)
    #expect(post.wrappedValue.attempt == 3)
    #expect(post.wrappedValue.status == .error)
  }

  @Test func theRetryWaitUsesTheInjectedClock() async throws {
    let clock = ManualClock()
    let post = Shared(value: OperationState<Int>())
    let calls = Counter()
    let task = post.run(.retry(.exponential(retries: 2, initial: .seconds(2))).clock(clock)) {
      if calls.increment() == 1 { throw TestFailure() }
      return 1
    }
    await clock.waitForSleepers()
    clock.advance(by: .milliseconds(1_999))
    #expect(calls.count == 1)
    clock.advance(by: .milliseconds(1))
    #expect(try await task.value == 1)
  }

  @Test func aTimedOutAttemptFailsWithANamedError() async {
    let clock = ManualClock()
    let post = Shared(value: OperationState<Int>())
    let gate = Gate()
    let task = post.run(.timeout(.seconds(5)).clock(clock)) {
      await gate.wait()
      return 1
    }
    await clock.waitForSleepers()
    clock.advance(by: .seconds(5))
    await #expect(throws: OperationTimeoutError(timeout: .seconds(5))) { try await task.value }
    #expect(post.wrappedValue.error is OperationTimeoutError)
    gate.open()
  }
}

@Suite(.freshRegistry) struct OptimisticUpdateTests {
  static let addSeven = OptimisticUpdate<OperationState<[Int]>>(
    apply: { $0.value = ($0.value ?? []) + [7] },
    rollback: { $0.value?.removeAll { $0 == 7 } })

  @Test func appliedAtStartAndKeptOnSuccess() async throws {
    let list = Shared(value: OperationState<[Int]>(value: [1]))
    let gate = Gate()
    let task = list.run(optimistic: Self.addSeven) {
      await gate.wait()
      return [1, 7]
    }
    #expect(list.wrappedValue.value == [1, 7])
    gate.open()
    _ = try await task.value
    #expect(list.wrappedValue.value == [1, 7])
  }

  @Test func rolledBackOnFailure() async {
    let list = Shared(value: OperationState<[Int]>(value: [1]))
    let task = list.run(optimistic: Self.addSeven) { throw TestFailure() }
    _ = await task.result
    #expect(list.wrappedValue.value == [1])
    #expect(list.wrappedValue.status == .error)
  }

  @Test func rolledBackOnCancellation() async {
    let list = Shared(value: OperationState<[Int]>(value: [1]))
    let gate = Gate()
    let task = list.run(optimistic: Self.addSeven) {
      await gate.wait()
      try Task.checkCancellation()
      return [1, 7]
    }
    task.cancel()
    gate.open()
    _ = await task.result
    #expect(list.wrappedValue.value == [1])
    #expect(list.wrappedValue.status == .success)  // The status before the run: the list had a value.
  }
}

@Suite(.freshRegistry) struct OperationValueTests {
  @Test func hashableErrorIsEqualOnlyToItself() {
    let first = HashableError(TestFailure())
    let copy = first
    #expect(first == copy)
    #expect(first != HashableError(TestFailure()))
    #expect(HashableError(first) == first)
    #expect(Set([first, copy]).count == 1)
    #expect((first.error as? TestFailure) == TestFailure())
  }

  @Test func operationStatesCompareErrorsByIdentity() {
    var first = OperationState<Int>()
    first.error = TestFailure()
    let copy = first
    var other = first
    other.error = TestFailure()
    #expect(first == copy)
    #expect(first != other)
  }

  @Test func theStateReadsAndWritesItsTrackingThroughItsOwnMembers() {
    var state = OperationState<Int>()
    state.status = .pending
    state.attempt = 2
    state.error = TestFailure(code: 4)
    #expect(state.operation.status == .pending)
    #expect(state.operation.attempt == 2)
    #expect((state.operation.error as? TestFailure)?.code == 4)
    state.operation.status = .error
    #expect(state.status == .error)
    #expect(OperationState(value: 1).status == .success)
    #expect(OperationState<Int>().status == .idle)
  }
}
