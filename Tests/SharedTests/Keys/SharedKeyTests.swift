import Foundation
import Reactive
import TestSupport
import Testing

@testable import SharedState

@Suite(.freshRegistry) struct SharedKeyTests {
  /// A key backed by a dictionary, counting its saves.
  struct DictionaryKey: SharedKey {
    typealias Value = Int
    let name: String
    let store: Store

    final class Store: Sendable {
      let values = Collector<Int>()
      let initial: Int?
      init(initial: Int?) { self.initial = initial }
    }

    var id: String { name }

    func load(context: SharedKeyContext<Int>, continuation: SharedLoadContinuation<Int>) {
      continuation.resume(returning: store.initial)
    }

    func save(_ value: Int, context: SharedKeyContext<Int>) async throws {
      store.values.append(value)
    }
  }

  @Test func aCustomKeyLoadsAndSaves() async throws {
    let store = DictionaryKey.Store(initial: 10)
    @Shared(DictionaryKey(name: "a", store: store)) var value = 0
    #expect(value == 10)
    $value.withLock { $0 += 1 }
    try await $value.save()
    #expect(store.values.elements.last == 11)
  }
}
