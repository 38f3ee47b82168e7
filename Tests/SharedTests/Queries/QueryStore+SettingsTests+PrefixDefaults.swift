import Foundation
import TestSupport
import Testing

@testable import SharedState

private struct MutationFailure: Error {}

/// Defaults per key prefix, for queries and for mutation runs: the longest prefix wins, options of one's own win
/// over every default, and defaults set after a query exists reach it only once it enters the store again.
extension QueryStoreSettingsTests {
  private func defaultsQuery(_ key: QueryKey, _ name: String, _ fetcher: KeyedFetcher) -> Query<OperationState<String>>
  {
    .query(key) { try await fetcher.fetch(name) }
  }

  @Test func theLongestPrefixWithDefaultsWinsAndOwnOptionsWinOverEveryDefault() async throws {
    let clock = ManualClock()
    let fetcher = KeyedFetcher()
    let store = SharedRegistry.current.queries
    store.defaultOptions = QueryOptions(staleTime: .seconds(600), operation: .retry(.none).clock(clock))
    store.setQueryDefaults(
      QueryOptions(staleTime: .zero, operation: .retry(.none).clock(clock)), forKeysUnder: ["live"])
    store.setQueryDefaults(
      QueryOptions(staleTime: .seconds(30), operation: .retry(.none).clock(clock)), forKeysUnder: ["live", "slow"])
    #expect(store.queryDefaults(for: ["live", 1]).staleTime == .zero)
    #expect(store.queryDefaults(for: ["live", "slow", 1]).staleTime == .seconds(30))
    #expect(store.queryDefaults(for: ["live"]).staleTime == .zero)
    #expect(store.queryDefaults(for: ["other"]).staleTime == .seconds(600))

    let live = defaultsQuery(["live", 1], "live", fetcher)
    #expect(try await store.fetch(live) == "live 1")
    #expect(try await store.fetch(live) == "live 2")  // Stale at once.
    let slow = defaultsQuery(["live", "slow", 1], "slow", fetcher)
    #expect(try await store.fetch(slow) == "slow 1")
    clock.advance(by: .seconds(29))
    #expect(try await store.fetch(slow) == "slow 1")
    clock.advance(by: .seconds(1))
    #expect(try await store.fetch(slow) == "slow 2")
    let other = defaultsQuery(["other"], "other", fetcher)
    #expect(try await store.fetch(other) == "other 1")
    #expect(try await store.fetch(other) == "other 1")  // The store-wide defaults: fresh.
    // Options of its own win whole, under a prefix with defaults.
    let own = Query<OperationState<String>>.query(["live", 2], options: queryStoreOptions(clock)) {
      try await fetcher.fetch("own")
    }
    #expect(try await store.fetch(own) == "own 1")
    #expect(try await store.fetch(own) == "own 1")
  }

  @Test func defaultsSetAfterAQueryExistsReachItOnlyWhenItEntersTheStoreAgain() async throws {
    let clock = ManualClock()
    let fetcher = KeyedFetcher()
    let store = SharedRegistry.current.queries
    store.defaultOptions = QueryOptions(staleTime: .seconds(600), operation: .retry(.none).clock(clock))
    let live = defaultsQuery(["live", 1], "live", fetcher)
    #expect(try await store.fetch(live) == "live 1")
    store.setQueryDefaults(
      QueryOptions(staleTime: .zero, operation: .retry(.none).clock(clock)), forKeysUnder: ["live"])
    #expect(try await store.fetch(live) == "live 1")  // Keeps the options it entered with.
    #expect(store.remove(.prefix(["live"])) == 1)
    #expect(try await store.fetch(live) == "live 2")
    #expect(try await store.fetch(live) == "live 3")  // Entered again, with the prefix's defaults.
    // Removing a prefix's defaults gives its keys a shorter prefix's, or the store-wide ones.
    store.setQueryDefaults(nil, forKeysUnder: ["live"])
    #expect(store.queryDefaults(for: ["live", 1]).staleTime == .seconds(600))
    // The empty prefix is every key: the store-wide defaults.
    store.setQueryDefaults(QueryOptions(staleTime: .seconds(5)), forKeysUnder: [])
    #expect(store.defaultOptions.staleTime == .seconds(5))
    #expect(store.queryDefaults(for: ["live", 1]).staleTime == .seconds(5))
  }

  @Test func aMutationRunWithoutOptionsTakesTheDefaultsOfItsKeysLongestPrefix() async throws {
    let clock = ManualClock()
    let store = SharedRegistry.current.queries
    store.setMutationDefaults(.retry(.constant(retries: 2, delay: .zero)).clock(clock), forKeysUnder: ["posts"])
    store.setMutationDefaults(.retry(.constant(retries: 1, delay: .zero)).clock(clock), forKeysUnder: ["posts", 1])
    #expect(store.mutationDefaults(for: ["posts", 2, "rename"]).retry.retries == 2)
    #expect(store.mutationDefaults(for: ["posts", 1, "rename"]).retry.retries == 1)
    #expect(store.mutationDefaults(for: ["users"]).retry.retries == 0)
    let attempts = Counter()
    let perform: @Sendable (String) async throws -> Int = { _ in
      _ = attempts.increment()
      throw MutationFailure()
    }
    let rename = Shared(wrappedValue: MutationState<String, Int>(), .mutation(["posts", 2, "rename"]))
    _ = await rename.mutate("a") { try await perform($0) }.result
    #expect(attempts.count == 3)  // The ["posts"] defaults: two retries.
    let renameFirst = Shared(wrappedValue: MutationState<String, Int>(), .mutation(["posts", 1, "rename"]))
    _ = await renameFirst.mutate("b") { try await perform($0) }.result
    #expect(attempts.count == 5)  // The longer prefix: one retry.
    _ = await rename.mutate("c", .retry(.none)) { try await perform($0) }.result
    #expect(attempts.count == 6)  // Options given win.
    let other = Shared(wrappedValue: MutationState<String, Int>(), .mutation(["users", "save"]))
    _ = await other.mutate("d") { try await perform($0) }.result
    #expect(attempts.count == 7)  // No defaults: no retries.
    // A state under another kind of key takes only the defaults of [].
    let unkeyed = Shared(wrappedValue: MutationState<String, Int>(), .inMemory("save"))
    _ = await unkeyed.mutate("e") { try await perform($0) }.result
    #expect(attempts.count == 8)
    store.setMutationDefaults(.retry(.constant(retries: 1, delay: .zero)).clock(clock), forKeysUnder: [])
    _ = await unkeyed.mutate("f") { try await perform($0) }.result
    #expect(attempts.count == 10)
    _ = await other.mutate("g") { try await perform($0) }.result
    #expect(attempts.count == 12)  // [] reaches every key.
  }

  @Test func mutationDefaultsSetWhileARunIsUnderWayReachOnlyTheRunsStartedAfter() async {
    let clock = ManualClock()
    let store = SharedRegistry.current.queries
    let gate = Gate()
    let attempts = Counter()
    let state = Shared(wrappedValue: MutationState<String, Int>(), .mutation(["posts", 1, "rename"]))
    let first = state.mutate("a") { _ in
      _ = attempts.increment()
      await gate.wait()
      throw MutationFailure()
    }
    await waitUntil { attempts.count == 1 }
    store.setMutationDefaults(.retry(.constant(retries: 1, delay: .zero)).clock(clock), forKeysUnder: ["posts"])
    gate.open()
    _ = await first.result
    #expect(attempts.count == 1)  // Started with no defaults: no retries.
    _ = await state.mutate("b") { _ in
      _ = attempts.increment()
      throw MutationFailure()
    }.result
    #expect(attempts.count == 3)  // Started after: one retry.
  }
}
