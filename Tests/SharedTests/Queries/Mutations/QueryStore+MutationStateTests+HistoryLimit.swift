import Foundation
import TestSupport
import Testing

@testable import SharedState

/// The runs under way of a mutation whose history is full: listed and counted while they run.
extension QueryStoreMutationStateTests {
  @Test func runsUnderWayStayListedWhenMoreStartThanTheHistoryKeeps() async throws {
    let store = SharedRegistry.current.queries
    let gate = Gate()
    let rename = Shared(wrappedValue: MutationState<String, Int>(historyLimit: 1), .mutation(["posts", 1, "rename"]))
    let first = rename.mutate("First") { title in
      await gate.wait()
      return title.count
    }
    let second = rename.mutate("Second") { title in
      await gate.wait()
      return title.count
    }
    let activity = store.activity(matching: ["posts"])
    #expect(activity.wrappedValue.runningMutations == 2)
    #expect(store.runningMutationCount(.prefix(["posts"])) == 2)
    #expect(
      store.mutations(matching: .prefix(["posts"])).compactMap { $0.arguments(as: String.self) } == ["First", "Second"])
    gate.open()
    _ = try await first.value
    _ = try await second.value
    // Once they ended, the history keeps its limit.
    #expect(store.runningMutationCount(.prefix(["posts"])) == 0)
    #expect(rename.wrappedValue.history.map(\.arguments) == ["Second"])
  }
}
