import TestSupport
import Testing

@testable import SharedState

/// A holder's placeholder: shown, flagged, while its query has no value, and never written into the query's state.
@Suite(.freshRegistry) struct SharedPlaceholderTests {
  private func page(_ number: Int, api: PagesAPI, clock: ManualClock) -> Query<OperationState<String>> {
    .query(["pages", number], options: queryStoreOptions(clock)) { try await api.page(number) }
  }

  @Test func aHoldersPlaceholderShowsFlaggedUntilTheQueryHasAValueAndIsNeverCached() async {
    let clock = ManualClock()
    let api = PagesAPI()
    let store = SharedRegistry.current.queries
    let gate = api.hold()
    @Shared(page(1, api: api, clock: clock)) var post = OperationState<String>()
    let shown = $post.placeholder("loading…")
    #expect(shown.wrappedValue.value == "loading…")
    #expect(shown.wrappedValue.isPlaceholder)
    #expect(shown.wrappedValue.status == .pending)  // The query's own status.
    #expect(post.value == nil)  // Not in the query's state, so not in the cache.
    #expect(store.cachedValue(for: ["pages", 1], as: String.self) == nil)
    let other = Shared(wrappedValue: OperationState<String>(), page(1, api: api, clock: clock))
    #expect(other.wrappedValue.value == nil)
    gate.open()
    await waitUntil { shown.wrappedValue.value == "page 1" }
    #expect(!shown.wrappedValue.isPlaceholder)
    #expect(store.cachedValue(for: ["pages", 1], as: String.self) == "page 1")
    #expect(api.fetches.count == 1)  // The placeholder changed nothing about fetching.
  }
}
