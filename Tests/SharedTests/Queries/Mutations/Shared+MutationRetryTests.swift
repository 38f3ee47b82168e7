import Foundation
import Synchronization
import TestSupport
import Testing

@testable import SharedState

/// `retryLatest()` runs the latest mutation again with the arguments, work, options and invalidations it had.
@Suite(.freshRegistry) struct SharedMutationRetryTests {
  @Test func retryingAFailedMutationRunsItAgainWithItsArguments() async throws {
    let calls = Collector<String>()
    let failsFirst = Lock(true)
    let rename = Shared(wrappedValue: MutationState<String, Int>(), .mutation("rename-7"))
    let failed = await rename.mutate("New title") { title in
      calls.append(title)
      let fails = failsFirst.withLock { first -> Bool in
        defer { first = false }
        return first
      }
      if fails { throw TestFailure() }
      return title.count
    }.result
    #expect(throws: TestFailure.self) { try failed.get() }
    let succeeded = Collector<Int>()
    let task = rename.retryLatest(onSuccess: { succeeded.append($0) })
    #expect(try await task?.value == 9)
    #expect(calls.elements == ["New title", "New title"])
    #expect(succeeded.elements == [9])
    #expect(rename.wrappedValue.history.map(\.arguments) == ["New title", "New title"])
    #expect(rename.wrappedValue.history.map(\.status) == [.error, .success])
    #expect(rename.wrappedValue.status == .success)
  }

  @Test func aRetryRunsTheLatestOfSeveralRunsWithItsOptionsAndInvalidations() async throws {
    let clock = ManualClock()
    let fetches = Counter()
    let options = QueryOptions(
      staleTime: .seconds(60), gcTime: .seconds(60), operation: OperationOptions(retry: .none, clock: clock))
    let todos = Shared(wrappedValue: OperationState<Int>(), .query(["todos"], options: options) { fetches.increment() })
    var values = todos.values.makeAsyncIterator()
    while let state = await values.next(), !state.status.isSuccess {}
    let add = Shared(wrappedValue: MutationState<String, Int>(), .mutation("add"))
    let attempts = Collector<Int>()
    _ = try await add.mutate("a") { title in title.count }.value
    let failing = add.mutate(
      "bb", .retry(.constant(retries: 1, delay: .seconds(1))).clock(clock), invalidates: [["todos"]]
    ) {
      title, context in
      attempts.append(context.attempt)
      if context.attempt == 1 { throw TestFailure() }
      return title.count
    }
    await clock.waitForSleepers(2)  // The query's garbage check and the wait before the retry.
    clock.advance(by: .seconds(1))
    #expect(try await failing.value == 2)
    await waitUntil { fetches.count == 2 }
    let retried = add.retryLatest()
    await clock.waitForSleepers(2)
    clock.advance(by: .seconds(1))
    #expect(try await retried?.value == 2)  // "bb", with its retry policy.
    #expect(attempts.elements == [1, 2, 1, 2])
    await waitUntil { fetches.count == 3 }  // Its invalidation again.
    #expect(add.wrappedValue.history.map(\.arguments) == ["a", "bb", "bb"])
  }

  @Test func thereIsNothingToRetryBeforeTheFirstRunOrAfterAReset() async throws {
    let rename = Shared(wrappedValue: MutationState<String, Int>(), .mutation("rename-8"))
    #expect(rename.retryLatest() == nil)
    _ = try await rename.mutate("x") { title in title.count }.value
    let other = Shared(wrappedValue: MutationState<String, Int>(), .mutation("rename-8"))
    #expect(try await other.retryLatest()?.value == 1)  // Any holder can retry.
    rename.withLock { $0 = MutationState() }
    #expect(rename.retryLatest() == nil)
  }
}
