import Foundation
import Synchronization
import TestSupport
import Testing

@testable import SharedState

/// Mutations that share a ``MutationScope`` run one at a time, in call order, across keys and values.
@Suite(.freshRegistry) struct MutationScopeTests {
  /// A backend whose saves each wait for their own gate, and a log of what ran and settled, in order.
  private final class Backend: Sendable {
    let log = Collector<String>()
    private let gates = Lock<[String: Gate]>([:])

    func gate(_ name: String) -> Gate {
      gates.withLock { gates in
        if let gate = gates[name] { return gate }
        let gate = Gate()
        gates[name] = gate
        return gate
      }
    }

    func save(_ name: String, failing: Bool = false) async throws -> Int {
      log.append("start \(name)")
      await gate(name).wait()
      if failing { throw TestFailure() }
      return name.count
    }
  }

  private func mutation(_ key: QueryKey) -> Shared<MutationState<String, Int>> {
    Shared(wrappedValue: MutationState<String, Int>(), .mutation(key))
  }

  private func save(
    _ name: String,
    on state: Shared<MutationState<String, Int>>,
    scope: MutationScope?,
    backend: Backend,
    failing: Bool = false
  ) -> OperationTask<Int> {
    state.mutate(name, scope: scope) { name in
      try await backend.save(name, failing: failing)
    } onSettled: { result in
      backend.log.append("settled \(name)\((try? result.get()) == nil ? " without a result" : "")")
    }
  }

  @Test func mutationsOfOneScopeRunOneAtATimeInCallOrderAcrossKeysAndValues() async throws {
    let backend = Backend()
    let draft = mutation(["posts", 1, "draft"])
    let publish = mutation(["posts", 1, "publish"])
    let inMemory = Shared(wrappedValue: MutationState<String, Int>(), .inMemory("notify"))
    let tasks = [
      save("draft", on: draft, scope: "post-1", backend: backend),
      save("publish", on: publish, scope: "post-1", backend: backend),
      save("notify", on: inMemory, scope: "post-1", backend: backend),
    ]
    // Only the first has its turn: the others are recorded, counted, and not started.
    #expect(draft.wrappedValue.status == .pending)
    #expect(publish.wrappedValue.status == .idle)
    #expect(inMemory.wrappedValue.status == .idle)
    #expect(publish.wrappedValue.history.map(\.status) == [.pending])
    #expect(SharedRegistry.current.queries.activity.wrappedValue.runningMutations == 3)
    // Opened in the reverse order: each still waits for the one called before it to settle.
    for name in ["notify", "publish", "draft"] { backend.gate(name).open() }
    for task in tasks { _ = try await task.value }
    #expect(
      backend.log.elements == [
        "start draft", "settled draft", "start publish", "settled publish", "start notify", "settled notify",
      ])
    #expect(publish.wrappedValue.status == .success)
    #expect(SharedRegistry.current.queries.services.mutationScopes.count == 0)  // The scope leaves nothing behind.
  }

  @Test func otherScopesAndUnscopedMutationsDoNotWait() async throws {
    let backend = Backend()
    let first = save("first", on: mutation(["a"]), scope: "one", backend: backend)
    let other = mutation(["b"])
    let otherScope = save("other", on: other, scope: "two", backend: backend)
    let unscopedState = mutation(["c"])
    let unscoped = save("unscoped", on: unscopedState, scope: nil, backend: backend)
    #expect(other.wrappedValue.status == .pending)
    #expect(unscopedState.wrappedValue.status == .pending)
    await waitUntil { backend.log.elements.count == 3 }
    #expect(Set(backend.log.elements) == ["start first", "start other", "start unscoped"])
    for name in ["first", "other", "unscoped"] { backend.gate(name).open() }
    _ = try await (first.value, otherScope.value, unscoped.value)
  }

  @Test func aMutationCancelledWhileItWaitsLeavesTheLineAndTheOthersKeepTheirOrder() async throws {
    let backend = Backend()
    let store = SharedRegistry.current.queries
    let first = save("first", on: mutation(["a"]), scope: "line", backend: backend)
    let skippedState = mutation(["b"])
    let skipped = save("skipped", on: skippedState, scope: "line", backend: backend)
    let last = save("last", on: mutation(["c"]), scope: "line", backend: backend)
    skipped.cancel()
    await #expect(throws: CancellationError.self) { try await skipped.value }
    #expect(backend.log.elements.contains("settled skipped without a result"))
    #expect(skippedState.wrappedValue.history.map(\.status) == [.idle])
    #expect(skippedState.wrappedValue.status == .idle)
    #expect(store.activity.wrappedValue.runningMutations == 2)
    backend.gate("first").open()
    backend.gate("last").open()
    _ = try await (first.value, last.value)
    #expect(!backend.log.elements.contains("start skipped"))
    #expect(backend.log.elements.filter { $0.hasPrefix("start") } == ["start first", "start last"])
    await waitUntil { store.activity.wrappedValue.isIdle }
  }

  @Test func aFailedOrCancelledMutationPassesTheTurnOn() async throws {
    let backend = Backend()
    let failing = save("failing", on: mutation(["a"]), scope: "line", backend: backend, failing: true)
    let cancelled = save("cancelled", on: mutation(["b"]), scope: "line", backend: backend)
    let last = save("last", on: mutation(["c"]), scope: "line", backend: backend)
    backend.gate("failing").open()
    await #expect(throws: TestFailure.self) { try await failing.value }
    await waitUntil { backend.log.elements.contains("start cancelled") }
    cancelled.cancel()
    backend.gate("cancelled").open()
    await #expect(throws: CancellationError.self) { try await cancelled.value }
    backend.gate("last").open()
    #expect(try await last.value == 4)
    #expect(
      backend.log.elements == [
        "start failing", "settled failing without a result", "start cancelled", "settled cancelled without a result",
        "start last", "settled last",
      ])
  }

  @Test func retryingTheLatestRunKeepsItsScope() async throws {
    let backend = Backend()
    let state = mutation(["a"])
    backend.gate("a").open()
    _ = try await save("a", on: state, scope: "line", backend: backend).value
    let blocker = save("blocker", on: mutation(["b"]), scope: "line", backend: backend)
    let retry = try #require(state.retryLatest())
    #expect(state.wrappedValue.history.last?.status == .pending)
    #expect(state.wrappedValue.status == .success)  // Waits for its turn: the state shows nothing yet.
    backend.gate("blocker").open()
    _ = try await (blocker.value, retry.value)
    #expect(backend.log.elements.filter { $0.hasPrefix("start") } == ["start a", "start blocker", "start a"])
  }
}
