import Foundation
import TestSupport
import Testing

@testable import SharedState

private struct SaveFailure: Error {}

/// The live reader of the runs across keys: it follows runs as they start and end, as `mutations(matching:)` lists
/// them.
extension QueryStoreMutationStateTests {
  @Test func aReaderFollowsTheRunsAsTheyStartAndEnd() async throws {
    let store = SharedRegistry.current.queries
    let reader = store.mutationStates(matching: .prefix(["posts"]))
    #expect(reader.wrappedValue.isEmpty)
    let rename = Shared(wrappedValue: MutationState<String, Int>(), .mutation(["posts", 1, "rename"]))
    let save = Shared(wrappedValue: MutationState<String, Int>(), .mutation(["users", "save"]))
    let gate = Gate()
    let running = rename.mutate("First") { title in
      await gate.wait()
      return title.count
    }
    #expect(shown(reader) == [.pending])
    #expect(reader.wrappedValue.first?.arguments(as: String.self) == "First")
    gate.open()
    _ = try await running.value
    #expect(shown(reader) == [.success])
    #expect(reader.wrappedValue.first?.result(as: Int.self) == 5)
    _ = await rename.mutate("Fails") { _ in throw SaveFailure() }.result
    #expect(shown(reader) == [.success, .error])
    let changes = Counter()
    let token = reader.observe { _ in changes.increment() }
    _ = try await save.mutate("user") { _ in 1 }.value  // Another key: not listed again.
    #expect(changes.count == 0)
    _ = token
    #expect(matches(reader, store.mutations(matching: .prefix(["posts"]))))
  }

  @Test func aCancelledRunShowsCancelledInTheReader() async {
    let store = SharedRegistry.current.queries
    let reader = store.mutationStates(matching: .exactly(["posts", 1, "rename"]))
    let rename = Shared(wrappedValue: MutationState<String, Int>(), .mutation(["posts", 1, "rename"]))
    let gate = Gate()
    let running = rename.mutate("Cancelled") { title in
      await gate.wait()
      try Task.checkCancellation()
      return title.count
    }
    #expect(shown(reader) == [.pending])
    running.cancel()
    gate.open()
    _ = await running.result
    #expect(shown(reader) == [.idle])
  }

  @Test func aRunPushedOutOfAHistoryLeavesTheReader() async throws {
    let store = SharedRegistry.current.queries
    let reader = store.mutationStates(matching: .prefix(["posts"]))
    let rename = Shared(wrappedValue: MutationState<String, Int>(historyLimit: 1), .mutation(["posts", 1, "rename"]))
    _ = try await rename.mutate("First") { title in title.count }.value
    _ = try await rename.mutate("Second") { title in title.count }.value
    #expect(reader.wrappedValue.map { $0.arguments(as: String.self) } == ["Second"])
  }

  @Test func aFreedMutationStateLeavesTheReader() async throws {
    let store = SharedRegistry.current.queries
    let reader = store.mutationStates(matching: .prefix(["drafts"]))
    try await runOnce(key: ["drafts", 1])
    #expect(reader.wrappedValue.isEmpty)
  }

  @Test func aListingWithTheSameRunsIsNotWritten() async throws {
    let store = SharedRegistry.current.queries
    let failed = store.mutationStates(matching: .prefix(["posts"]).status(.error))
    let rename = Shared(wrappedValue: MutationState<String, Int>(), .mutation(["posts", 1, "rename"]))
    let changes = Counter()
    let token = failed.observe { _ in changes.increment() }
    _ = try await rename.mutate("Saved") { title in title.count }.value
    #expect(changes.count == 0)  // Listed again at its start and end, and found the same: nothing written.
    _ = await rename.mutate("Fails") { _ in throw SaveFailure() }.result
    #expect(changes.count == 1)
    #expect(shown(failed) == [.error])
    _ = token
  }

  @Test func theFiltersPredicateRunsOutsideEveryLock() async throws {
    let store = SharedRegistry.current.queries
    let rename = Shared(wrappedValue: MutationState<String, Int>(), .mutation(["posts", 1, "rename"]))
    let reader = store.mutationStates(
      matching: .all.matching { run in
        // Asking the store, and the reader's own tracker, from here does not deadlock.
        store.runningMutationCount() >= 0 && store.services.mutationStates.readerCount > 0
      })
    _ = try await rename.mutate("Saved") { title in title.count }.value
    #expect(shown(reader) == [.success])
  }

  /// The statuses the reader shows.
  private func shown(_ reader: SharedReader<[MutationSnapshot]>) -> [OperationStatus] {
    reader.wrappedValue.map(\.status)
  }

  /// Whether the reader shows the runs `listed`, in their order and states.
  private func matches(_ reader: SharedReader<[MutationSnapshot]>, _ listed: [MutationSnapshot]) -> Bool {
    reader.wrappedValue.showsSameRuns(as: listed)
  }
}
