import TestSupport
import Testing

@testable import SharedState

/// One options value for runs, performs, mutations and query fetches; its builders read the same from a leading dot
/// or chained.
@Suite(.freshRegistry) struct OperationOptionsTests {
  @Test func theDefaultsRetryNeverAndHaveNoTimeout() {
    let options = OperationOptions()
    #expect(options.retry.retries == 0)
    #expect(options.timeout == nil)
    #expect(options.clock is ContinuousClock)
  }

  @Test func theBuildersChainInAnyOrder() {
    let clock = ManualClock()
    let chained = OperationOptions.retry(.constant(retries: 2, delay: .seconds(1))).timeout(.seconds(10)).clock(clock)
    let reversed = OperationOptions.clock(clock).timeout(.seconds(10)).retry(.constant(retries: 2, delay: .seconds(1)))
    for options in [chained, reversed] {
      #expect(options.retry.retries == 2)
      #expect(options.retry.backoff(1) == .seconds(1))
      #expect(options.timeout == .seconds(10))
      #expect((options.clock as? ManualClock) === clock)
    }
    #expect(OperationOptions.timeout(.seconds(3)).retry.retries == 0)
  }

  @Test func aBuilderChangesOnlyItsOwnSetting() {
    let base = OperationOptions(retry: .constant(retries: 4, delay: .zero), timeout: .seconds(2))
    let changed = base.timeout(.seconds(9))
    #expect(changed.retry.retries == 4)
    #expect(changed.timeout == .seconds(9))
    #expect(base.timeout == .seconds(2))
  }

  @Test func performAndMutateTakeTheSameOptions() async throws {
    let clock = ManualClock()
    let post = Shared(value: OperationState<Int>())
    let calls = Counter()
    let performing = Task {
      try await post.perform(.retry(.constant(retries: 1, delay: .seconds(1))).clock(clock)) {
        if calls.increment() == 1 { throw TestFailure() }
        return 2
      }
    }
    await clock.waitForSleepers()
    clock.advance(by: .seconds(1))
    #expect(try await performing.value == 2)

    let rename = Shared(value: MutationState<String, String>())
    let tries = Counter()
    let task = rename.mutate("new", .retry(.constant(retries: 2, delay: .zero))) { title in
      if tries.increment() < 3 { throw TestFailure() }
      return title.uppercased()
    }
    #expect(try await task.value == "NEW")
    #expect(rename.wrappedValue.attempt == 3)
    #expect(rename.wrappedValue.history.last?.status == .success)
  }
}
