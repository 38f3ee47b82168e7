import Foundation
import Synchronization
import TestSupport
import Testing

@testable import SharedState

@Suite(.freshRegistry) struct SharedMutationsTests {
  @Test func aMutationKeepsABoundedHistoryAndInvalidatesQueries() async throws {
    let clock = ManualClock()
    let fetches = Counter()
    let registry = SharedRegistry.current
    let options = QueryOptions(
      staleTime: .seconds(60), gcTime: .seconds(60), operation: OperationOptions(retry: .none, clock: clock))
    let todos = Shared(
      wrappedValue: OperationState<Int>(),
      .query(["todos"], options: options) {
        fetches.increment()
      })
    var values = todos.values.makeAsyncIterator()
    while let state = await values.next(), !state.status.isSuccess {}
    @Shared(.inMemory("add")) var add = MutationState<String, Int>(historyLimit: 2)
    let other = Shared(wrappedValue: MutationState<String, Int>(historyLimit: 2), .inMemory("add"))
    let events = Collector<String>()
    for title in ["a", "b", "c"] {
      let task = $add.mutate(title, invalidates: [["todos"]]) { title in
        title.count
      } onSuccess: { _ in
        events.append("success \(other.wrappedValue.history.last?.status == .success)")
      }
      _ = try await task.value
    }
    _ = await $add.mutate("fails") { _ in throw TestFailure() }.result
    #expect(add.history.map(\.arguments) == ["c", "fails"])
    #expect(other.wrappedValue.history.map(\.status) == [.success, .error])
    #expect(other.wrappedValue.history.allSatisfy { $0.endedAt != nil })
    #expect(events.elements == ["success true", "success true", "success true"])
    await waitUntil { fetches.count == 4 }  // The first fetch, then one per successful mutation.
    _ = registry
  }
}
