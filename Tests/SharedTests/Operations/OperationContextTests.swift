import Foundation
import TestSupport
import Testing

@testable import SharedState

/// Shows a value before every attempt, through the context, as a cache in front of a network would.
private struct ShowsCached: OperationModifier {
  let cached: Int

  func run<Success: Sendable>(
    context: OperationContext<Success>,
    next: (OperationContext<Success>) async throws -> Success
  ) async throws -> Success {
    if let cached = cached as? Success { context.yield(cached) }
    return try await next(context)
  }
}

/// The context an operation receives: its attempt number, the clock, and `yield`, which shows a value only while the
/// state follows the run.
@Suite(.freshRegistry) struct OperationContextTests {
  @Test func theAttemptCountsFromOneAcrossRetries() async throws {
    let post = Shared(value: OperationState<Int>())
    let attempts = Collector<Int>()
    let task = post.run(.retry(.constant(retries: 3, delay: .zero))) { context in
      attempts.append(context.attempt)
      if context.attempt < 3 { throw TestFailure() }
      return context.attempt
    }
    #expect(try await task.value == 3)
    #expect(attempts.elements == [1, 2, 3])
    #expect(post.wrappedValue.attempt == 3)
  }

  @Test func theContextCarriesTheOptionsClock() async throws {
    let clock = ManualClock()
    let post = Shared(value: OperationState<Int>())
    let task = post.run(.clock(clock)) { context in
      try await context.clock.sleep(for: .seconds(1))
      return 1
    }
    await clock.waitForSleepers()
    #expect(post.wrappedValue.status == .pending)
    clock.advance(by: .seconds(1))
    #expect(try await task.value == 1)
  }

  @Test func aYieldedValueShowsWhileTheRunStaysPending() async throws {
    let post = Shared(value: OperationState<Int>())
    let gate = Gate()
    let task = post.run { context in
      context.yield(1)
      await gate.wait()
      return 2
    }
    await waitUntil { post.wrappedValue.value == 1 }
    #expect(post.wrappedValue.status == .pending)
    gate.open()
    #expect(try await task.value == 2)
    #expect(post.wrappedValue.value == 2)
    #expect(post.wrappedValue.status == .success)
  }

  @Test func anOlderRunsYieldShowsNothingWhileANewerRunIsPending() async throws {
    let post = Shared(value: OperationState<Int>())
    let olderGate = Gate()
    let newerGate = Gate()
    let yielded = Counter()
    let older = post.run { context in
      await olderGate.wait()
      context.yield(10)
      yielded.increment()
      return 11
    }
    let newer = post.run {
      await newerGate.wait()
      return 2
    }
    olderGate.open()
    await waitUntil { yielded.count == 1 }
    #expect(post.wrappedValue.value == nil)
    #expect(post.wrappedValue.status == .pending)
    newerGate.open()
    _ = try await older.value
    #expect(try await newer.value == 2)
    #expect(post.wrappedValue.value == 2)
  }

  @Test func anOlderRunsYieldShowsNothingAfterANewerRunWasShown() async throws {
    let post = Shared(value: OperationState<Int>())
    let olderGate = Gate()
    let older = post.run { context in
      await olderGate.wait()
      context.yield(10)
      return 11
    }
    #expect(try await post.run { 2 }.value == 2)
    olderGate.open()
    #expect(try await older.value == 11)
    #expect(post.wrappedValue.value == 2)
    #expect(post.wrappedValue.status == .success)
  }

  @Test func aYieldFromAContextThatOutlivedItsRunIsDropped() async throws {
    let post = Shared(value: OperationState<Int>())
    let contexts = Collector<OperationContext<Int>>()
    let task = post.run { context in
      contexts.append(context)
      return 1
    }
    #expect(try await task.value == 1)
    let before = post.wrappedValue
    contexts.elements[0].yield(99)
    #expect(post.wrappedValue == before)
  }

  /// While the run goes on with a retry, a value yielded from the context of the attempt that failed (kept by a
  /// task it left behind) is dropped: only the running attempt shows values.
  @Test func aYieldFromTheContextOfAnEndedAttemptIsDroppedWhileTheRunRetries() async throws {
    let post = Shared(value: OperationState<Int>())
    let leftBehind = Collector<OperationContext<Int>>()
    let retryGate = Gate()
    let task = post.run(.retry(.constant(retries: 1, delay: .zero))) { context in
      if context.attempt == 1 {
        leftBehind.append(context)
        throw URLError(.timedOut)
      }
      await retryGate.wait()
      return 5
    }
    await waitUntil { post.wrappedValue.attempt == 2 }
    leftBehind.elements[0].yield(99)  // from attempt 1, ended; the run follows attempt 2
    #expect(post.wrappedValue.value == nil)
    #expect(post.wrappedValue.status == .pending)
    retryGate.open()
    #expect(try await task.value == 5)
    #expect(post.wrappedValue.value == 5)
  }

  @Test func aCancelledRunsYieldIsDropped() async {
    let post = Shared(value: OperationState<Int>(value: 1))
    let gate = Gate()
    let task = post.run { context in
      await gate.wait()
      context.yield(5)
      return 6
    }
    task.cancel()
    gate.open()
    _ = await task.result
    #expect(post.wrappedValue.value == 1)
    #expect(post.wrappedValue.status == .success)
  }

  @Test func aModifierCanYieldThroughTheContext() async throws {
    let post = Shared(value: OperationState<Int>())
    let gate = Gate()
    let task = post.run(.modifier(ShowsCached(cached: 7))) {
      await gate.wait()
      return 8
    }
    await waitUntil { post.wrappedValue.value == 7 }
    #expect(post.wrappedValue.status == .pending)
    gate.open()
    #expect(try await task.value == 8)
  }

  @Test func performAndMutateHandTheirOperationAContext() async throws {
    let post = Shared(value: OperationState<Int>())
    #expect(try await post.perform { context in context.attempt } == 1)
    let rename = Shared(value: MutationState<String, String>())
    let task = rename.mutate("new") { title, context in "\(title) \(context.attempt)" }
    #expect(try await task.value == "new 1")
  }

  @Test func aQueryValueYieldedAfterItsFetchEndedIsDropped() async {
    let contexts = Collector<OperationContext<Int>>()
    let options = QueryOptions(gcTime: .seconds(60), operation: OperationOptions(clock: ManualClock()))
    let held = Shared(
      wrappedValue: OperationState<Int>(),
      .query(["escaped"], options: options) { context in
        contexts.append(context)
        return 1
      })
    await waitUntil { held.wrappedValue.status == .success }
    contexts.elements[0].yield(99)
    #expect(held.wrappedValue.value == 1)
  }

  @Test func aContextOfYourOwnHandsYieldsToItsReceiver() {
    let received = Collector<Int>()
    let context = OperationContext<Int>(attempt: 2) { received.append($0) }
    context.yield(4)
    #expect(context.attempt == 2)
    #expect(received.elements == [4])
    OperationContext<Int>().yield(5)  // No receiver: dropped.
  }
}
