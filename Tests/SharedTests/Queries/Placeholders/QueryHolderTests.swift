import Foundation
import TestSupport
import Testing

@testable import SharedState

/// A holder that moves between keys: the previous key's value or a placeholder shows, flagged, while the new key
/// loads, never written into the query's state; the query it left is let go.
@Suite(.freshRegistry) struct QueryHolderTests {
  private func page(_ number: Int, api: PagesAPI, clock: ManualClock) -> Query<OperationState<String>> {
    .query(["pages", number], options: queryStoreOptions(clock)) { try await api.page(number) }
  }

  @Test func aMovingHolderShowsThePreviousKeysValueFlaggedUntilTheNewKeyHasOne() async {
    let clock = ManualClock()
    let api = PagesAPI()
    let store = SharedRegistry.current.queries
    let holder = QueryHolder(page(1, api: api, clock: clock))
    await waitUntil { holder.shown.wrappedValue.value == "page 1" }
    #expect(!holder.shown.wrappedValue.isPlaceholder)
    let gate = api.hold()
    holder.load(page(2, api: api, clock: clock))
    let loading = holder.shown.wrappedValue
    #expect(loading.value == "page 1")
    #expect(loading.isPlaceholder)
    #expect(loading.status == .pending)  // Page 2's status.
    #expect(holder.query.wrappedValue.value == nil)
    #expect(store.cachedValue(for: ["pages", 2], as: String.self) == nil)  // Never cached as page 2's.
    gate.open()
    await waitUntil { holder.shown.wrappedValue.value == "page 2" }
    #expect(!holder.shown.wrappedValue.isPlaceholder)
    #expect(api.fetches.count == 2)
  }

  @Test func movingBackToAFreshCachedKeyShowsItsValueAtOnce() async {
    let clock = ManualClock()
    let api = PagesAPI()
    let holder = QueryHolder(page(1, api: api, clock: clock))
    await waitUntil { holder.shown.wrappedValue.value == "page 1" }
    holder.load(page(2, api: api, clock: clock))
    await waitUntil { holder.shown.wrappedValue.value == "page 2" }
    holder.load(page(1, api: api, clock: clock))  // Cached in the store for gcTime, and fresh.
    #expect(holder.shown.wrappedValue.value == "page 1")
    #expect(!holder.shown.wrappedValue.isPlaceholder)
    #expect(api.fetches.count == 2)
  }

  @Test func aHolderThatSkipsAKeyStillLoadingKeepsTheLastValueItShowed() async {
    let clock = ManualClock()
    let api = PagesAPI()
    let holder = QueryHolder(page(1, api: api, clock: clock))
    await waitUntil { holder.shown.wrappedValue.value == "page 1" }
    let gate = api.hold()
    holder.load(page(2, api: api, clock: clock))
    holder.load(page(3, api: api, clock: clock))  // Page 2 never showed a value of its own.
    #expect(holder.shown.wrappedValue.value == "page 1")
    #expect(holder.shown.wrappedValue.isPlaceholder)
    gate.open()
    await waitUntil { holder.shown.wrappedValue.value == "page 3" }
  }

  @Test func aHolderLetsGoOfTheQueryItLeft() async throws {
    let clock = ManualClock()
    let api = PagesAPI()
    let store = SharedRegistry.current.queries
    let holder = QueryHolder(page(1, api: api, clock: clock))
    await waitUntil { holder.shown.wrappedValue.value == "page 1" }
    holder.load(page(2, api: api, clock: clock))
    // Joins page 2's fetch and returns after it ended, record and all.
    #expect(try await holder.query.fetchValue() == "page 2")
    let gate = api.hold()  // Held, so that the refetch is still fetching when read.
    store.invalidate(matching: ["pages"])
    // Only the held page refetches (fetching before invalidate returns): the query left has no holder.
    #expect(holder.query.wrappedValue.isFetching)
    #expect(store.cachedShared(["pages", 1], as: OperationState<String>.self)?.wrappedValue.isFetching == false)
    gate.open()
    await waitUntil { !holder.query.wrappedValue.isFetching }
    #expect(api.fetches.count == 3)
  }

  @Test func aHolderThatIsLetGoLetsGoOfItsQuery() async throws {
    let clock = ManualClock()
    let api = PagesAPI()
    let store = SharedRegistry.current.queries
    var holder: QueryHolder<String>? = QueryHolder(page(1, api: api, clock: clock))
    #expect(try await holder?.query.fetchValue() == "page 1")
    let shown = holder?.shown
    holder = nil
    let gate = api.hold()  // A refetch started by mistake would still show pending when read.
    store.invalidate(matching: ["pages"])
    // Nobody holds the query any more (what the holder showed does not): it is not refetched.
    #expect(store.cachedShared(["pages", 1], as: OperationState<String>.self)?.wrappedValue.status == .success)
    #expect(shown?.wrappedValue.value == "page 1")
    #expect(api.fetches.count == 1)
    gate.open()
  }

  @Test func withoutPreviousValuesTheHolderShowsItsPlaceholderWhileANewKeyLoads() async {
    let clock = ManualClock()
    let api = PagesAPI()
    let gate = api.hold()
    let holder = QueryHolder(page(1, api: api, clock: clock), placeholder: "…", keepsPreviousValue: false)
    #expect(holder.shown.wrappedValue.value == "…")
    #expect(holder.shown.wrappedValue.isPlaceholder)
    gate.open()
    await waitUntil { holder.shown.wrappedValue.value == "page 1" }
    let second = api.hold()
    holder.load(page(2, api: api, clock: clock))
    #expect(holder.shown.wrappedValue.value == "…")
    #expect(holder.shown.wrappedValue.isPlaceholder)
    second.open()
    await waitUntil { holder.shown.wrappedValue.value == "page 2" }
  }

  @Test func whatAHolderShowsIsHeardByItsListeners() async {
    let clock = ManualClock()
    let api = PagesAPI()
    let gate = api.hold()
    let holder = QueryHolder(page(1, api: api, clock: clock), placeholder: "…")
    var shown = holder.shown.values(buffering: .all).makeAsyncIterator()
    #expect(await shown.next()?.value == "…")
    gate.open()
    while let next = await shown.next(), next.value != "page 1" {}
    #expect(holder.shown.wrappedValue.isPlaceholder == false)
  }
}
