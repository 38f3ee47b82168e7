import Foundation
import TestSupport
import Testing

@testable import SharedState

/// Options for tests: a manual clock, values fresh for a minute, no retries.
private func options(_ clock: ManualClock) -> QueryOptions {
  QueryOptions(staleTime: .seconds(60), gcTime: .seconds(60), operation: .retry(.none).clock(clock))
}

/// Waits until `shared` shows a fetched value.
private func waitForValue(_ shared: Shared<OperationState<String>>) async {
  var values = shared.values.makeAsyncIterator()
  while let state = await values.next(), state.status != .success {}
}

/// Queries named with runtime values, through the store: held, found, invalidated by prefix.
extension QueryKeyTests {
  @Test func aQueryNamedWithRuntimeValuesIsFoundByLiterals() async {
    let clock = ManualClock()
    let store = SharedRegistry.current.queries
    let id = 42
    let author = UUID()
    let post = Shared(
      wrappedValue: OperationState<String>(), .query(["posts", id], options: options(clock)) { "post" })
    let byAuthor = Shared(
      wrappedValue: OperationState<String>(), .query(["posts", "by", author], options: options(clock)) { "mine" })
    await waitForValue(post)
    await waitForValue(byAuthor)
    #expect(store.contains(["posts", 42]))
    #expect(!store.contains(["posts", "42"]))
    #expect(store.contains(["posts", "by", author]))
    #expect(store.invalidate(matching: ["posts", "by"]) == 1)
    #expect(store.invalidate(matching: ["posts"]) == 2)
    #expect(store.invalidate(matching: ["posts", 43]) == 0)
  }

  @Test func aHolderWithAnOptionalIdentifierSharesTheQuery() async {
    let clock = ManualClock()
    let fetches = Counter()
    func hold(_ key: QueryKey) -> Shared<OperationState<String>> {
      Shared(
        wrappedValue: OperationState<String>(),
        .query(key, options: options(clock)) {
          fetches.increment()
          return "post"
        })
    }
    let first = hold(["posts", 5])
    await waitForValue(first)
    let optionalID: Int? = 5
    let second = hold(["posts", optionalID])
    #expect(second.wrappedValue.value == "post")
    #expect(fetches.count == 1)
    #expect(SharedRegistry.current.queries.count == 1)
    #expect(SharedRegistry.current.diagnostics.isEmpty)
  }
}
