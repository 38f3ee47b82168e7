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

/// Runs on different elements of a collection are coordinated separately.
@Suite(.freshRegistry) struct RunCoordinatorIdentityTests {
  @Test func cancelPreviousRunsOnTwoElementsOfAnArrayDoNotCancelEachOther() async throws {
    let list = Shared(value: [OperationState<Int>(), OperationState<Int>()])
    let first = list[dynamicMember: \.[0]]
    let second = list[dynamicMember: \.[1]]
    let gate = Gate()
    let started = Counter()
    let firstRun = first.run(policy: .cancelPrevious) {
      started.increment()
      await gate.wait()
      return 1
    }
    await waitUntil { started.count == 1 }
    let secondRun = second.run(policy: .cancelPrevious) { 2 }
    #expect(try await secondRun.value == 2)
    gate.open()
    #expect((try? await firstRun.value) == 1)
    #expect(list.wrappedValue[0].status == .success)
    #expect(list.wrappedValue[0].value == 1)
    #expect(list.wrappedValue[1].value == 2)
  }

  @Test func dedupeRunsOnTwoElementsOfAnArrayDoNotJoinEachOther() async throws {
    let list = Shared(value: [OperationState<Int>(), OperationState<Int>()])
    let first = list[dynamicMember: \.[0]]
    let second = list[dynamicMember: \.[1]]
    let gate = Gate()
    let firstRun = first.run(policy: .dedupe) {
      await gate.wait()
      return 1
    }
    let secondRun = second.run(policy: .dedupe) { 2 }
    gate.open()
    #expect(try await firstRun.value == 1)
    #expect(try await secondRun.value == 2)
    #expect(list.wrappedValue.map(\.value) == [1, 2])
  }
}

/// A `CancellationError` thrown by the operation is never retried; it is cancellation only when the run was cancelled.
@Suite(.freshRegistry) struct OperationCancellationErrorTests {
  @Test func aCancellationErrorThrownByARunNobodyCancelledIsAFailureNeverRetried() async {
    let post = Shared(value: OperationState<Int>())
    let runs = Counter()
    let calls = Collector<String>()
    let result = await post.run(.retry(.constant(retries: 3, delay: .zero))) {
      runs.increment()
      throw CancellationError()
    } onSuccess: { _ in
      calls.append("success")
    } onError: { error in
      calls.append(error is CancellationError ? "error: cancellation" : "error: other")
    } onSettled: { result in
      calls.append((try? result.get()) == nil ? "settled: failure" : "settled: success")
    }.result
    #expect(runs.count == 1)
    #expect(calls.elements == ["error: cancellation", "settled: failure"])
    #expect((try? result.get()) == nil)
    #expect(post.wrappedValue.status == .error)
    #expect(post.wrappedValue.error is CancellationError)
  }

  @Test func aCancellationErrorThrownByACancelledRunIsCancellationNeverRetried() async {
    let post = Shared(value: OperationState<Int>())
    let runs = Counter()
    let calls = Collector<String>()
    let gate = Gate()
    let task = post.run(.retry(.constant(retries: 3, delay: .zero))) {
      runs.increment()
      await gate.wait()
      throw CancellationError()
    } onSuccess: { _ in
      calls.append("success")
    } onError: { _ in
      calls.append("error")
    } onSettled: { result in
      calls.append((try? result.get()) == nil ? "settled: failure" : "settled: success")
    }
    await waitUntil { runs.count == 1 }
    task.cancel()
    gate.open()
    let result = await task.result
    #expect(runs.count == 1)
    #expect(calls.elements == ["settled: failure"])
    #expect((try? result.get()) == nil)
    // A cancelled run settles as cancelled runs do: back to the status before it, no error stored.
    #expect(post.wrappedValue.status == .idle)
    #expect(post.wrappedValue.error == nil)
  }
}

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

/// The library releases the values it replaces after the lock, so their `deinit` may read the same shared value.
@Suite(.freshRegistry) struct OperationReleasesReplacedValuesTests {
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

/// The table of coordinators for members of a root keeps only the coordinators of runs under way.
@Suite(.freshRegistry) struct RunCoordinatorTableTests {
  @Test func runsOnAThousandElementsLeaveNoCoordinatorBehindOnceSettled() async throws {
    let list = Shared(value: Array(repeating: OperationState<Int>(), count: 1_000))
    var tasks: [OperationTask<Int>] = []
    for index in 0..<1_000 {
      tasks.append(list[dynamicMember: \.[index]].run { index })
    }
    for task in tasks { _ = try await task.value }
    tasks = []
    let coordinators = list.root.attachment(RunCoordinatorTable.self, make: RunCoordinatorTable.init)
    await waitUntil { coordinators.count == 0 }
    #expect(coordinators.count == 0)
    #expect(list.wrappedValue[999].value == 999)
  }
}

/// A run that has nothing to write does not write: no version, no notification, no save.
@Suite(.freshRegistry) struct OperationNoOpWriteTests {
  @Test func anOlderRunEndingAfterANewerOneWasShownNotifiesNobody() async throws {
    let post = Shared(value: OperationState<Int>())
    let gate = Gate()
    let started = Counter()
    let older = post.run {
      started.increment()
      await gate.wait()
      return 1
    }
    await waitUntil { started.count == 1 }
    #expect(try await post.run { 2 }.value == 2)
    let changes = Counter()
    let token = post.observe { _ in changes.increment() }
    gate.open()
    #expect(try await older.value == 1)
    #expect(changes.count == 0)
    #expect(post.wrappedValue.value == 2)
    withExtendedLifetime(token) {}
  }

  @Test func aSupersededRunWithoutAnOptimisticUpdateNotifiesNobodyWhenItEnds() async throws {
    let post = Shared(value: OperationState<Int>())
    let olderGate = Gate()
    let newerGate = Gate()
    let started = Counter()
    let older = post.run(policy: .cancelPrevious) {
      started.increment()
      await olderGate.wait()
      return 1
    }
    await waitUntil { started.count == 1 }
    let newer = post.run(policy: .cancelPrevious) {
      await newerGate.wait()
      return 2
    }
    let changes = Counter()
    let token = post.observe { _ in changes.increment() }
    olderGate.open()
    _ = await older.result
    #expect(changes.count == 0)
    newerGate.open()
    #expect(try await newer.value == 2)
    withExtendedLifetime(token) {}
  }

  @Test func aRetryOfARunTheStateDoesNotFollowNotifiesNobody() async throws {
    let post = Shared(value: OperationState<Int>())
    let olderGate = Gate()
    let newerGate = Gate()
    let attempts = Counter()
    let older = post.run(.retry(.constant(retries: 1, delay: .zero))) {
      attempts.increment()
      if attempts.count == 1 {
        await olderGate.wait()
        throw URLError(.timedOut)
      }
      return 1
    }
    await waitUntil { attempts.count == 1 }
    let newer = post.run {
      await newerGate.wait()
      return 2
    }
    let changes = Counter()
    let token = post.observe { _ in changes.increment() }
    olderGate.open()
    #expect(try await older.value == 1)
    #expect(attempts.count == 2)
    #expect(changes.count == 0)
    #expect(post.wrappedValue.status == .pending)
    newerGate.open()
    #expect(try await newer.value == 2)
    withExtendedLifetime(token) {}
  }
}

/// A value whose `applySuccess` accumulates: every applied success is kept, in order.
private struct Log: OperationTrackable {
  var items: [Int] = []
  var operation = OperationTracking()

  mutating func applySuccess(_ item: Int) { items.append(item) }
}

/// Successes held back while a newer run was pending are applied, in start order, before the newer run's result.
@Suite(.freshRegistry) struct OperationHeldSuccessTests {
  @Test func anOlderSuccessHeldBackWhileANewerRunWasPendingIsAppliedBeforeIt() async throws {
    let log = Shared(value: Log())
    let olderGate = Gate()
    let newerGate = Gate()
    let started = Counter()
    let older = log.run {
      started.increment()
      await olderGate.wait()
      return 1
    }
    await waitUntil { started.count == 1 }
    let newer = log.run {
      await newerGate.wait()
      return 2
    }
    olderGate.open()
    #expect(try await older.value == 1)
    #expect(log.wrappedValue.items == [])
    #expect(log.wrappedValue.operation.status == .pending)
    newerGate.open()
    #expect(try await newer.value == 2)
    #expect(log.wrappedValue.items == [1, 2])
    #expect(log.wrappedValue.operation.status == .success)
  }

  @Test func anOlderSuccessHeldBackIsAppliedBeforeItWhenTheNewerRunIsCancelled() async throws {
    let log = Shared(value: Log())
    let gate = Gate()
    let started = Counter()
    let oldest = log.run { 1 }
    #expect(try await oldest.value == 1)
    let olderGate = Gate()
    let older = log.run {
      started.increment()
      await olderGate.wait()
      return 2
    }
    await waitUntil { started.count == 1 }
    let middle = log.run { 3 }
    let newest = log.run {
      started.increment()
      await gate.wait()
      return 4
    }
    await waitUntil { started.count == 2 }
    #expect(try await middle.value == 3)
    olderGate.open()
    #expect(try await older.value == 2)
    #expect(log.wrappedValue.items == [1])
    newest.cancel()
    gate.open()
    _ = await newest.result
    #expect(log.wrappedValue.items == [1, 2, 3])
    #expect(log.wrappedValue.operation.status == .success)
  }

  @Test func anOlderSuccessEndingAfterANewerOneWasShownIsDropped() async throws {
    let log = Shared(value: Log())
    let gate = Gate()
    let started = Counter()
    let older = log.run {
      started.increment()
      await gate.wait()
      return 1
    }
    await waitUntil { started.count == 1 }
    #expect(try await log.run { 2 }.value == 2)
    gate.open()
    #expect(try await older.value == 1)
    #expect(log.wrappedValue.items == [2])
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
