import Foundation
import TestSupport
import Testing

@testable import SharedState

/// Defaults replaced or removed are let go after the store's lock: what they hold is the program's (a meta value, a
/// retry closure's captures), and its release may ask the store for its defaults.
extension QueryStoreSettingsTests {
  /// Options whose meta holds a value that, when released, asks `store` for its defaults.
  private func optionsAskingOnRelease(_ store: QueryStore, _ reads: Counter) -> QueryOptions {
    let probe = ReadsOnRelease("defaults") {
      _ = store.queryDefaults(for: ["settings"])
      _ = store.mutationDefaults(for: ["settings"])
      reads.increment()
    }
    return QueryOptions(meta: ["probe": probe])
  }

  @Test func replacedQueryDefaultsAreReleasedAfterTheLock() {
    let store = SharedRegistry.current.queries
    let reads = Counter()
    store.setQueryDefaults(optionsAskingOnRelease(store, reads), forKeysUnder: ["settings"])
    store.setQueryDefaults(QueryOptions(), forKeysUnder: ["settings"])
    #expect(reads.count == 1)
    store.setQueryDefaults(optionsAskingOnRelease(store, reads), forKeysUnder: ["settings"])
    store.setQueryDefaults(nil, forKeysUnder: ["settings"])
    #expect(reads.count == 2)
    store.setQueryDefaults(optionsAskingOnRelease(store, reads), forKeysUnder: [])
    store.defaultOptions = QueryOptions()
    #expect(reads.count == 3)
  }

  @Test func replacedMutationDefaultsAreReleasedAfterTheLock() {
    let store = SharedRegistry.current.queries
    let reads = Counter()
    store.setMutationDefaults(optionsAskingOnRelease(store, reads).operation, forKeysUnder: ["settings"])
    store.setMutationDefaults(OperationOptions(), forKeysUnder: ["settings"])
    #expect(reads.count == 1)
    store.setMutationDefaults(optionsAskingOnRelease(store, reads).operation, forKeysUnder: ["settings"])
    store.setMutationDefaults(nil, forKeysUnder: ["settings"])
    #expect(reads.count == 2)
  }
}
