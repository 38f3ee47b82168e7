import Foundation
import Synchronization
import TestSupport
import Testing

@testable import SharedState

@Suite(.freshRegistry) struct RunCallbacksTests {
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
