import TestSupport
import Testing

@testable import SharedState

/// A run started under ``OperationPolicy/cancelPrevious`` cancels the one before it, and only the latest writes.
@Suite(.freshRegistry) struct CancelPreviousPolicyTests {
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
}
