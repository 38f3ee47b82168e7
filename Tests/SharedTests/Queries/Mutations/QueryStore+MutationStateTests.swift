import Foundation
import TestSupport
import Testing

@testable import SharedState

private struct RenameFailure: Error {}

/// Reading the running and recent runs of mutations across their keys, with their arguments, by a mutation filter.
@Suite(.freshRegistry) struct QueryStoreMutationStateTests {
  @Test func listsTheRunsOfTheMutationsAFilterReachesWithTheirArguments() async throws {
    let store = SharedRegistry.current.queries
    let gate = Gate()
    let rename = Shared(wrappedValue: MutationState<String, Int>(), .mutation(["posts", 1, "rename"]))
    let like = Shared(wrappedValue: MutationState<Int, Bool>(), .mutation(["posts", 2, "like"]))
    let save = Shared(wrappedValue: MutationState<String, Int>(), .mutation(["users", "save"]))
    let unkeyed = Shared(wrappedValue: MutationState<String, Int>(), .inMemory("unkeyed"))
    #expect(try await rename.mutate("First") { title in title.count }.value == 5)
    _ = await rename.mutate("Fails") { _ in throw RenameFailure() }.result
    let running = like.mutate(7) { _ in
      await gate.wait()
      return true
    }
    _ = try await save.mutate("user") { _ in 1 }.value
    _ = try await unkeyed.mutate("unkeyed") { _ in 1 }.value

    let posts = store.mutations(matching: .prefix(["posts"]))
    #expect(posts.count == 3)
    #expect(posts.map(\.key) == [["posts", 1, "rename"], ["posts", 1, "rename"], ["posts", 2, "like"]])
    #expect(posts.map(\.status) == [.success, .error, .pending])
    #expect(posts[0].arguments(as: String.self) == "First")
    #expect(posts[0].result(as: Int.self) == 5)
    #expect(posts[0].arguments(as: Int.self) == nil)  // Another type.
    #expect(posts[1].error?.error is RenameFailure)
    #expect(posts[2].arguments(as: Int.self) == 7)
    #expect(posts[2].endedAt == nil)
    #expect(store.mutations().count == 4)  // Every keyed mutation; not the one under an in-memory key.
    #expect(store.mutations(matching: .exactly(["posts", 1, "rename"]).status(.error)).count == 1)
    #expect(store.mutations(matching: .exactly(["posts"])).isEmpty)
    #expect(store.runningMutationCount() == 1)
    #expect(store.runningMutationCount(.prefix(["users"])) == 0)
    let seen = Collector<String>()
    let titled = MutationFilter.all.matching { run in
      // Outside every lock: asking the store from here does not deadlock.
      seen.append("\(store.runningMutationCount())")
      return run.arguments(as: String.self) != nil
    }
    #expect(store.mutations(matching: titled).count == 3)
    #expect(seen.elements == ["1", "1", "1", "1"])

    gate.open()
    _ = try await running.value
    #expect(store.runningMutationCount() == 0)
    #expect(store.mutations(matching: .prefix(["posts", 2])).map(\.status) == [.success])
  }

  @Test func aFreedMutationStateIsNoLongerListed() async throws {
    let store = SharedRegistry.current.queries
    try await runOnce(key: ["drafts", 1])
    #expect(store.mutations(matching: .prefix(["drafts"])).isEmpty)
  }

  /// Runs a mutation under `key` from a holder that goes away with this call.
  func runOnce(key: QueryKey) async throws {
    let state = Shared(wrappedValue: MutationState<String, Int>(), .mutation(key))
    _ = try await state.mutate("draft") { _ in 1 }.value
    #expect(SharedRegistry.current.queries.mutations(matching: .exactly(key)).count == 1)
  }
}
