import TestSupport
import Testing

@testable import SharedState

/// `perform` waits for its run in the caller's task: the caller's cancellation is the run's. Real runs in seeded
/// orders are in `+Interleaving`.
@Suite(.freshRegistry) struct SharedOperationsTests {
  @Test func cancellingTheCallerCancelsTheOperationAndPutsBackTheStatus() async throws {
    let post = Shared(value: OperationState<Int>())
    _ = await post.run { throw TestFailure(code: 3) }.result
    let started = Gate()
    let caller = Task { try await post.perform { try await Self.waitForCancellation(started) } }
    await started.wait()
    #expect(post.wrappedValue.status == .pending)
    caller.cancel()
    await #expect(throws: CancellationError.self) { try await caller.value }
    #expect(post.wrappedValue.status == .error)
    #expect((post.wrappedValue.error as? TestFailure)?.code == 3)
    #expect(post.wrappedValue.value == nil)
  }

  @Test func aCallerCancelledBeforeItPerformsNeverStartsTheOperation() async throws {
    let post = Shared(value: OperationState<Int>())
    let counter = Counter()
    let caller = Task {
      withUnsafeCurrentTask { $0?.cancel() }
      return try await post.perform {
        counter.increment()
        try Task.checkCancellation()
        return 1
      }
    }
    await #expect(throws: CancellationError.self) { try await caller.value }
    #expect(counter.count == 0)
    #expect(post.wrappedValue.status == .idle)
    #expect(post.wrappedValue.value == nil)
  }

  @Test func aCallerCancelledBeforeItPerformsLeavesTheStateUntouched() async throws {
    let post = Shared(value: OperationState<Int>(value: 1))
    var states = post.values(buffering: .all).makeAsyncIterator()
    #expect(await states.next()?.status == .success)
    let caller = Task {
      withUnsafeCurrentTask { $0?.cancel() }
      return try await post.perform(optimistic: OptimisticUpdate(apply: { $0.value = 99 }, rollback: { $0.value = 1 }))
      { 2 }
    }
    await #expect(throws: CancellationError.self) { try await caller.value }
    #expect(post.wrappedValue.status == .success)
    #expect(post.wrappedValue.value == 1)
    post.withLock { $0.value = 3 }  // The next element listeners get: nothing came before it.
    let next = await states.next()
    #expect(next?.value == 3)
    #expect(next?.status == .success)
  }

  @Test func aNewerRunCancelsAnOlderPerformWithoutCancellingItsCaller() async throws {
    let post = Shared(value: OperationState<Int>())
    let started = Gate()
    let older = Task { () -> (Result<Int, any Error>, Bool) in
      do {
        let value = try await post.perform(policy: .cancelPrevious) { try await Self.waitForCancellation(started) }
        return (.success(value), Task.isCancelled)
      } catch {
        return (.failure(error), Task.isCancelled)
      }
    }
    await started.wait()
    #expect(try await post.perform(policy: .cancelPrevious) { 2 } == 2)
    let (result, callerWasCancelled) = await older.value
    #expect(throws: CancellationError.self) { try result.get() }
    #expect(!callerWasCancelled)
    #expect(post.wrappedValue.value == 2)
    #expect(post.wrappedValue.status == .success)
  }

  @Test func parallelPerformsEachReturnTheirOwnValue() async throws {
    let post = Shared(value: OperationState<Int>())
    async let first = post.perform { 1 }
    async let second = post.perform { 2 }
    let values = try await [first, second]
    #expect(values == [1, 2])
    #expect(post.wrappedValue.status == .success)
    #expect([1, 2].contains(post.wrappedValue.value ?? 0))
  }

  /// Opens `started`, then waits until the task is cancelled and throws `CancellationError`.
  private static func waitForCancellation(_ started: Gate) async throws -> Int {
    let cancelled = Gate()
    await withTaskCancellationHandler {
      started.open()
      await cancelled.wait()
    } onCancel: {
      cancelled.open()
    }
    try Task.checkCancellation()
    return 0
  }
}
