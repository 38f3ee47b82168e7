import Dispatch
import Foundation
import TestSupport
import Testing

@testable import SharedState

extension PersistenceTests {
  @Test func aStoreThatLosesItsValueBringsHoldersBackToTheDefault() throws {
    let store = ContextKey.Store()
    store.stored.withLock { $0 = Releasing(number: 8) }
    @Shared(ContextKey(name: "reset", store: store)) var value = Releasing(number: 3)
    #expect(value.number == 8)
    let context = try #require(store.context.withLock { $0 })
    context.resetToDefault()
    #expect(value.number == 3)
  }
}
