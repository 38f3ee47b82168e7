import Foundation
import Synchronization
import TestSupport
import Testing

@testable import SharedState

/// A value that reads a shared value when it is released, as a cache or a view model may do in its `deinit`.
private final class ReadsWhenReleased: Sendable {
  let onRelease: @Sendable () -> Void

  init(_ onRelease: @escaping @Sendable () -> Void) {
    self.onRelease = onRelease
  }

  deinit { onRelease() }
}

/// An error that reads a shared value when it is released.
private final class ErrorReadingWhenReleased: Error, Sendable {
  let onRelease: @Sendable () -> Void

  init(_ onRelease: @escaping @Sendable () -> Void) {
    self.onRelease = onRelease
  }

  deinit { onRelease() }
}

/// The library releases the values it replaces after the lock, so their `deinit` may read the same shared value.
@Suite(.freshRegistry) struct SharedRunStepsTests {
  @Test func aValueReplacedByASuccessIsReleasedAfterTheLock() async throws {
    let post = Shared(value: OperationState<ReadsWhenReleased>())
    let reads = Counter()
    post.withLock {
      $0.value = ReadsWhenReleased {
        _ = post.wrappedValue.status
        reads.increment()
      }
    }
    _ = try await post.run { ReadsWhenReleased {} }.value
    #expect(reads.count == 1)
  }

  @Test func anErrorClearedByAResetIsReleasedAfterTheLock() async {
    let post = Shared(value: OperationState<Int>())
    let reads = Counter()
    await failWithAnErrorThatReadsWhenReleased(post, counting: reads)
    #expect(reads.count == 0)
    post.reset()
    #expect(reads.count == 1)
  }

  @Test func anErrorReplacedByTheNextFailureIsReleasedAfterTheLock() async {
    let post = Shared(value: OperationState<Int>())
    let reads = Counter()
    await failWithAnErrorThatReadsWhenReleased(post, counting: reads)
    _ = await post.run { throw TestFailure() }.result
    #expect(reads.count == 1)
    #expect(post.wrappedValue.error is TestFailure)
  }

  @Test func anErrorClearedByASuccessIsReleasedAfterTheLock() async throws {
    let post = Shared(value: OperationState<Int>())
    let reads = Counter()
    await failWithAnErrorThatReadsWhenReleased(post, counting: reads)
    _ = try await post.run { 1 }.value
    #expect(reads.count == 1)
  }

  @Test func aValueRemovedByAnOptimisticRollbackIsReleasedAfterTheLock() async {
    let post = Shared(value: OperationState<ReadsWhenReleased>())
    let reads = Counter()
    let optimistic = OptimisticUpdate<OperationState<ReadsWhenReleased>>(
      apply: {
        $0.value = ReadsWhenReleased {
          _ = post.wrappedValue.status
          reads.increment()
        }
      },
      rollback: { $0.value = nil })
    _ = await post.run(optimistic: optimistic) { throw TestFailure() }.result
    #expect(reads.count == 1)
    #expect(post.wrappedValue.value == nil)
  }

  @Test func aValueReplacedByAnOptimisticUpdateIsReleasedAfterTheLock() async throws {
    let post = Shared(value: OperationState<ReadsWhenReleased>())
    let reads = Counter()
    post.withLock {
      $0.value = ReadsWhenReleased {
        _ = post.wrappedValue.status
        reads.increment()
      }
    }
    let optimistic = OptimisticUpdate<OperationState<ReadsWhenReleased>>(
      apply: { $0.value = ReadsWhenReleased {} }, rollback: { _ in })
    let gate = Gate()
    let task = post.run(optimistic: optimistic) {
      await gate.wait()
      return ReadsWhenReleased {}
    }
    #expect(reads.count == 1)
    gate.open()
    _ = try await task.value
  }
}

/// Runs an operation on `post` that fails with an error whose release reads `post` and counts one read.
private func failWithAnErrorThatReadsWhenReleased(_ post: Shared<OperationState<Int>>, counting reads: Counter) async {
  _ = await post.run {
    throw ErrorReadingWhenReleased {
      _ = post.wrappedValue.status
      reads.increment()
    }
  }.result
}
