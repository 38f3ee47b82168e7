import Foundation
import Synchronization
import TestSupport
import Testing

@testable import SharedState

/// A mutation per entity (`.mutation("rename-\(id)")`) is freed after its last holder, like any keyed value.
@Suite(.freshRegistry) struct MutationKeyTests {
  /// Renames entity `id` through a mutation state of its own, held only for the call.
  private func rename(_ id: Int) async throws -> Int {
    let rename = Shared(wrappedValue: MutationState<String, Int>(), .mutation("rename-\(id)"))
    return try await rename.mutate("title \(id)") { title in title.count }.value
  }

  @Test func aThousandEntityMutationsLeaveNothingBehindOnceUnheld() async throws {
    let registry = SharedRegistry.current
    let before = registry.count
    var renamed = 0
    for id in 0..<1_000 { renamed += try await rename(id) == "title \(id)".count ? 1 : 0 }
    #expect(renamed == 1_000)
    await waitUntil { registry.count == before }
    #expect(registry.count == before)
  }

  @Test func anInMemoryMutationStateLivesAsLongAsItsRegistry() async throws {
    let registry = SharedRegistry.current
    let before = registry.count
    for id in 0..<10 {
      let rename = Shared(wrappedValue: MutationState<String, Int>(), .inMemory("rename-\(id)"))
      _ = try await rename.mutate("title") { title in title.count }.value
    }
    #expect(registry.count == before + 10)
  }

  @Test func holdersShareOneStateThatARunningMutationKeepsUntilItEnds() async throws {
    let registry = SharedRegistry.current
    let before = registry.count
    let gate = Gate()
    var first: Shared<MutationState<String, Int>>? = Shared(wrappedValue: MutationState(), .mutation("rename-1"))
    var second: Shared<MutationState<String, Int>>? = Shared(
      wrappedValue: MutationState(historyLimit: 3), .mutation("rename-1"))
    let task = first?.mutate("held") { title in
      await gate.wait()
      return title.count
    }
    #expect(second?.wrappedValue.history.map(\.arguments) == ["held"])  // One state for both holders.
    #expect(second?.wrappedValue.historyLimit == 10)  // The first holder's default made it.
    first = nil
    second = nil
    #expect(registry.count == before + 1)  // Kept by the running mutation.
    gate.open()
    #expect(try await task?.value == 4)
    await waitUntil { registry.count == before }
    let next = Shared(wrappedValue: MutationState<String, Int>(), .mutation("rename-1"))
    #expect(next.wrappedValue.history.isEmpty)  // Freed: the next holder starts from its default.
    #expect(MutationKey<String, Int>("a").id == MutationKey<Int, Int>("a").id)
    #expect(String(describing: MutationKey<String, Int>("rename-1")) == ".mutation(\"rename-1\")")
  }
}

/// A mutation key of parts, as a query's, and a name as the key of that one part.
extension MutationKeyTests {
  @Test func aNameIsTheKeyOfThatOnePart() {
    #expect(MutationKey<String, Int>("rename-1").key == ["rename-1"])
    #expect(MutationKey<String, Int>("rename-1").id == MutationKey<Int, Int>(["rename-1"]).id)
    #expect(
      MutationKey<String, Int>(["posts", 1, "rename"]).id != MutationKey<String, Int>(["posts", 2, "rename"]).id)
    #expect(MutationKey<String, Int>(["posts", 1, "rename"]).name == "[\"posts\", 1, \"rename\"]")
    #expect(MutationKey<String, Int>("rename-1").name == "rename-1")
    #expect(String(describing: MutationKey<String, Int>(["posts", 1])) == ".mutation([\"posts\", 1])")
  }

  @Test func holdersOfEqualKeysShareOneState() async throws {
    let first = Shared(wrappedValue: MutationState<String, Int>(), .mutation(["posts", 1, "rename"]))
    let second = Shared(wrappedValue: MutationState<String, Int>(), .mutation(["posts", 1, "rename"]))
    let byName = Shared(wrappedValue: MutationState<String, Int>(), .mutation("rename"))
    let byOnePart = Shared(wrappedValue: MutationState<String, Int>(), .mutation(["rename"]))
    _ = try await first.mutate("title") { title in title.count }.value
    _ = try await byName.mutate("other") { title in title.count }.value
    #expect(second.wrappedValue.history.map(\.arguments) == ["title"])
    #expect(byOnePart.wrappedValue.history.map(\.arguments) == ["other"])
  }
}
