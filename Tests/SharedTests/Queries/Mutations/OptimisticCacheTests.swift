import Foundation
import TestSupport
import Testing

@testable import SharedState

/// What an optimistic change says it did: shown, or why not (a query not cached, another state type).
@Suite(.freshRegistry) struct OptimisticCacheTests {
  @Test func aChangeSaysWhetherItShowsAndWhyNot() async {
    let held = await HeldQuery(["post"])
    let cache = OptimisticCache(store: held.store)
    #expect(cache.update(["post"], as: OperationState<String>.self) { $0.value = "changed" } == .updated)
    #expect(held.holder.wrappedValue.value == "changed")
    #expect(cache.update(["missing"], as: OperationState<String>.self) { $0.value = "x" } == .notCached)
    let mismatched = cache.update(["post"], as: OperationState<Int>.self) { $0.value = 1 }
    #expect(
      mismatched
        == .typeMismatch(
          expected: String(reflecting: OperationState<Int>.self), found: String(reflecting: OperationState<String>.self)
        ))
    #expect(held.holder.wrappedValue.value == "changed")
    // Only the mismatch, a mistake, is a diagnostic.
    #expect(SharedRegistry.current.diagnostics.map(\.kind).count == 1)
    cache.changes.undo()
    #expect(held.holder.wrappedValue.value == "fetch 1")
  }
}
