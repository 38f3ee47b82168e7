import Foundation
import Synchronization
import TestSupport
import Testing

@testable import SharedState

@Suite(.freshRegistry) struct RerunTriggerTests {
  @Test func aTriggerRefetchesOnlyHeldStaleQueries() async {
    let clock = ManualClock()
    let fetches = Counter()
    let (triggers, trigger) = AsyncStream<Void>.makeStream()
    let registry = SharedRegistry.current
    let options = QueryOptions(
      staleTime: .seconds(10), gcTime: .seconds(60), operation: OperationOptions(retry: .none, clock: clock))
    let held = Shared(
      wrappedValue: OperationState<Int>(),
      .query(["reconnect"], options: options) {
        fetches.increment()
      })
    var values = held.values.makeAsyncIterator()
    while let state = await values.next(), !state.status.isSuccess {}
    let subscription = registry.queries.refetchStale(on: triggers)
    #expect(registry.queries.refetchStale(matching: []) == 0)  // Fresh: nothing to do.
    clock.advance(by: .seconds(10))
    trigger.yield()
    await waitUntil { fetches.count == 2 }
    subscription.cancel()
    trigger.finish()
    #expect(fetches.count == 2)
  }
}
