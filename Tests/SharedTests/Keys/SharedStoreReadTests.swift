import SharedState
import Testing

/// A key outside the framework that combines its store's value with memory applies the result only if the program
/// did not change the value in between (public API only).
@Suite(.freshRegistry) struct SharedStoreReadTests {
  /// A merge computed from memory, then a change of the program, then the merge applied: the change survives, and
  /// the merge computed again from it applies.
  @Test func aMergeComputedBeforeAChangeOfTheProgramDoesNotReplaceIt() async throws {
    let store = ContextKey.Store()
    @Shared(ContextKey(name: "merge-vs-change", store: store)) var value = Releasing(number: 1)
    let context = try #require(store.context.withLock { $0 })
    let remote = 10

    let read = try #require(context.storeReadStarted())
    let local = try #require(context.currentValue)
    $value.withLock { $0.number = 7 }  // The program changes the value while the merge is under way.
    #expect(!context.update(Releasing(number: local.number + remote), readAt: read))
    #expect(value.number == 7)
    try await $value.save()  // A read taken while the change's save runs is refused too: read after it.

    let again = try #require(context.storeReadStarted())
    let current = try #require(context.currentValue)
    #expect(context.update(Releasing(number: current.number + remote), readAt: again))
    #expect(value.number == 17)
  }

  /// The store's "no value", read before a change of the program, does not reset it either.
  @Test func aResetReadBeforeAChangeOfTheProgramDoesNotReplaceIt() async throws {
    let store = ContextKey.Store()
    @Shared(ContextKey(name: "reset-vs-change", store: store)) var value = Releasing(number: 1)
    let context = try #require(store.context.withLock { $0 })

    let read = try #require(context.storeReadStarted())
    $value.withLock { $0.number = 7 }
    #expect(!context.resetToDefault(readAt: read))
    #expect(value.number == 7)
    try await $value.save()  // A read taken while the change's save runs is refused too: read after it.

    let again = try #require(context.storeReadStarted())
    #expect(context.resetToDefault(readAt: again))
    #expect(value.number == 1)
  }
}
