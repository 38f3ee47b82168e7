import Foundation
import Synchronization
import TestSupport
import Testing

@testable import SharedState

@Suite(.freshRegistry) struct SharedRegistryTests {
  /// Counting and mismatched lookups hold strong references briefly; the last one must never be released under
  /// the registry's lock (the value's deinit unregisters, which takes that lock).
  @Test func countingAndMismatchesWhileValuesGoAway() async {
    let registry = SharedRegistry()
    let key = GatedKey(name: "racy", store: GatedKey.Store(), delay: .zero, clock: ManualClock())
    await SharedRegistry.$current.withValue(registry) {
      await withTaskGroup(of: Void.self) { group in
        group.addTask {
          for _ in 0..<20_000 {
            let holder = Shared(wrappedValue: 0, key)
            withExtendedLifetime(holder) {}
          }
        }
        group.addTask {
          for _ in 0..<20_000 {
            _ = registry.count
            _ = Shared(wrappedValue: "text", InMemoryKey<String>("racy"))
          }
        }
      }
    }
    #expect(registry.diagnostics.count <= 1)
  }
}
