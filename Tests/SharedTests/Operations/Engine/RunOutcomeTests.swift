import Foundation
import Synchronization
import TestSupport
import Testing

@testable import SharedState

/// A `CancellationError` thrown by the operation is never retried; it is cancellation only when the run was cancelled.
@Suite(.freshRegistry) struct RunOutcomeTests {
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
