import Dispatch
import Foundation
import TestSupport
import Testing

@testable import SharedState

/// The library replaces a user's value or error and releases the old one after its locks: a `deinit` that reads the
/// same shared value would otherwise stop the program with "Recursive call to lock Mutex".
extension PersistenceTests {
  @Test func aValueReplacedThroughTheContextIsReleasedAfterTheLock() throws {
    let store = ContextKey.Store()
    @Shared(ContextKey(name: "update", store: store)) var value = Releasing(number: 0)
    let context = try #require(store.context.withLock { $0 })
    let reads = Counter()
    context.update(
      Releasing(number: 1, onRelease: DeinitAction { if context.currentValue != nil { reads.increment() } }))
    context.update(Releasing(number: 2))
    #expect(reads.count == 1)
    #expect(value.number == 2)
  }

  @Test func theDefaultReplacedOnLoadIsReleasedAfterTheLock() throws {
    let store = ContextKey.Store()
    store.stored.withLock { $0 = Releasing(number: 5) }
    let reads = Counter()
    try loadOverADefaultThatReads(store: store, reads: reads)
    #expect(reads.count == 1)
  }

  private func loadOverADefaultThatReads(store: ContextKey.Store, reads: Counter) throws {
    let onRelease = DeinitAction {
      _ = store.context.withLock({ $0 })?.currentValue
      reads.increment()
    }
    var defaultValue: Releasing? = Releasing(number: 0, onRelease: onRelease)
    let shared = Shared(wrappedValue: defaultValue.take()!, ContextKey(name: "load", store: store))
    #expect(shared.wrappedValue.number == 5)
    store.holder.withLock { $0 = shared }
    // The default is kept for a store that loses its value; it goes with the value at the latest.
    store.holder.withLock { $0 = nil }
  }

  @Test func aReplacedLoadErrorIsReleasedAfterTheLock() throws {
    let store = ContextKey.Store()
    let reads = Counter()
    store.loadError.withLock {
      $0 = ReleasingError {
        _ = store.holder.withLock { $0 }?.loadError
        reads.increment()
      }
    }
    @Shared(ContextKey(name: "load-error", store: store)) var value = Releasing(number: 0)
    store.holder.withLock { $0 = $value }
    defer { store.holder.withLock { $0 = nil } }
    #expect($value.loadError != nil)
    let context = try #require(store.context.withLock { $0 })
    context.reportLoadError(nil)
    #expect(reads.count == 1)
    #expect($value.loadError == nil)
  }

  @Test func aReplacedSaveErrorIsReleasedAfterTheLock() async throws {
    let store = ContextKey.Store()
    let reads = Counter()
    store.saveErrors.withLock {
      $0 = [
        ReleasingError {
          _ = store.holder.withLock { $0 }?.saveError
          reads.increment()
        }
      ]
    }
    @Shared(ContextKey(name: "save-error", store: store)) var value = Releasing(number: 0)
    store.holder.withLock { $0 = $value }
    defer { store.holder.withLock { $0 = nil } }
    $value.withLock { $0.number = 1 }
    await #expect(throws: ReleasingError.self) { try await $value.save() }
    $value.withLock { $0.number = 2 }
    try await $value.save()
    #expect(reads.count == 1)
    #expect($value.saveError == nil)
  }
}
