import Foundation
import TestSupport
import Testing

@testable import SharedState

/// The persisted cache's engine: what its writes keep of the queries they read.
@Suite(.freshRegistry)
struct QueryCacheEngineTests {
  /// A write reads the values of the changed queries; a value it still kept would count as held, and its query
  /// would wait for a collection. Checked where the write reports that it failed, after it answered its flushes:
  /// the query it read is not held there.
  @Test func aWriteLetsGoOfTheValuesItReadBeforeItEnds() async throws {
    let persister = MemoryCachePersister()
    persister.setFailing(true)
    let store = SharedRegistry.current.queries
    let key: QueryKey = ["posts", 1]
    let heldAtProblem = HeldAtProblem()
    let options = QueryCachePersistence(
      persister: persister, version: "1", throttle: .seconds(1), clock: ManualClock(),
      onProblem: { [weak store] _ in heldAtProblem.note(store?.isHeld(key)) })
    await store.persistCache(options)
    store.setFetchedValue("post 1", for: KeyedFetcher().query(key, "post", clock: ManualClock()))
    #expect(store.isHeld(key) == false)
    await #expect(throws: QueryCacheProblem.self) { try await store.flushPersistedCache() }
    #expect(await heldAtProblem.value == false)
  }
}

/// Whether a query was held when the persisted cache reported its first problem, once it did.
private final class HeldAtProblem: Sendable {
  private let state = Lock<(held: Bool??, waiter: CheckedContinuation<Bool?, Never>?)>((nil, nil))

  func note(_ held: Bool?) {
    let waiter = state.withLock { state -> CheckedContinuation<Bool?, Never>? in
      guard state.held == nil else { return nil }
      state.held = .some(held)
      defer { state.waiter = nil }
      return state.waiter
    }
    waiter?.resume(returning: held)
  }

  var value: Bool? {
    get async {
      await withCheckedContinuation { continuation in
        let held = state.withLock { state -> Bool?? in
          if state.held == nil { state.waiter = continuation }
          return state.held
        }
        if let held { continuation.resume(returning: held) }
      }
    }
  }
}

extension QueryStore {
  /// Whether the store keeps the query named `key` with its value held (by a holder, or anything else that keeps
  /// its box).
  fileprivate func isHeld(_ key: QueryKey) -> Bool? {
    state.withLock { state in (state.root.node(at: key.parts)?.record as? QueryRecord<OperationState<String>>)?.isHeld }
  }
}
