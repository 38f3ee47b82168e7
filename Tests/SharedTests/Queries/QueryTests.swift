import Foundation
import Synchronization
import TestSupport
import Testing

@testable import SharedState

/// A fake backend: counts fetches, and can hold each fetch at a gate.
private final class FakeAPI: Sendable {
  let fetches = Counter()
  let gate = Lock<Gate?>(nil)
  let failuresLeft = Lock(0)

  func post(_ id: Int) async throws -> String {
    let number = fetches.increment()
    if let gate = gate.withLock({ $0 }) { await gate.wait() }
    let fails = failuresLeft.withLock { left -> Bool in
      guard left > 0 else { return false }
      left -= 1
      return true
    }
    if fails { throw TestFailure(code: number) }
    return "post \(id) #\(number)"
  }
}

/// Options for tests: a manual clock and no retries unless asked.
private func options(
  _ clock: ManualClock,
  staleTime: Duration = .zero,
  retry: RetryPolicy = .none
) -> QueryOptions {
  QueryOptions(staleTime: staleTime, gcTime: .seconds(60), operation: OperationOptions(retry: retry, clock: clock))
}

@Suite(.freshRegistry) struct QueryTests {
  @Test func aHundredHoldersFetchOnce() async throws {
    let api = FakeAPI()
    let gate = Gate()
    api.gate.withLock { $0 = gate }
    let clock = ManualClock()
    let holders = (0..<100).map { _ in
      Shared(
        wrappedValue: OperationState<String>(),
        .query(["posts", 1], options: options(clock)) { try await api.post(1) })
    }
    await waitUntil { api.fetches.count == 1 }
    #expect(holders.allSatisfy { $0.wrappedValue.status.isPending })
    gate.open()
    var values = holders[99].values.makeAsyncIterator()
    while let state = await values.next(), !state.status.isSuccess {}
    #expect(api.fetches.count == 1)
    #expect(holders.allSatisfy { $0.wrappedValue.value == "post 1 #1" })
  }

  @Test func aFreshValueIsUsedAndAStaleOneIsShownWhileRefetching() async throws {
    let api = FakeAPI()
    let clock = ManualClock()
    let query = Query<OperationState<String>>.query(["posts", 2], options: options(clock, staleTime: .seconds(10))) {
      try await api.post(2)
    }
    let first = Shared(wrappedValue: OperationState<String>(), query)
    try await waitForSuccess(first)
    _ = Shared(wrappedValue: OperationState<String>(), query)  // Fresh: no fetch.
    #expect(api.fetches.count == 1)
    clock.advance(by: .seconds(10))
    let gate = Gate()
    api.gate.withLock { $0 = gate }
    let late = Shared(wrappedValue: OperationState<String>(), query)  // Stale: shown, and refetched.
    #expect(late.wrappedValue.value == "post 2 #1")
    // A refetch is not a load: the value keeps its status while the refetch is in flight.
    #expect(late.wrappedValue.status.isSuccess)
    #expect(late.wrappedValue.isFetching)
    gate.open()
    try await waitForSuccess(late)
    #expect(late.wrappedValue.value == "post 2 #2")
    _ = first
  }

  @Test func invalidatingAPrefixRefetchesExactlyTheMatchingHeldQueries() async throws {
    let api = FakeAPI()
    let clock = ManualClock()
    let registry = SharedRegistry.current
    func hold(_ key: QueryKey, _ id: Int) -> Shared<OperationState<String>> {
      Shared(
        wrappedValue: OperationState<String>(),
        .query(key, options: options(clock, staleTime: .seconds(60))) {
          try await api.post(id)
        })
    }
    let post = hold(["posts", 1], 1)
    let comments = hold(["posts", 1, "comments"], 2)
    let user = hold(["users", 1], 3)
    for held in [post, comments, user] { try await waitForSuccess(held) }
    #expect(api.fetches.count == 3)
    // Numbered in the order their fetches ran, which no test decides.
    let (postBefore, userBefore) = (post.wrappedValue.value, user.wrappedValue.value)
    #expect(userBefore?.hasPrefix("post 3 #") == true)
    do { _ = hold(["posts", 9], 9) }  // Fetched, then no longer held.
    await waitUntil { api.fetches.count == 4 }
    let marked = registry.queries.invalidate(matching: ["posts"])
    #expect(marked == 3)
    await waitUntil { api.fetches.count == 6 }  // posts/1 and posts/1/comments, not posts/9 or users/1.
    try await waitForSuccess(post)
    try await waitForSuccess(comments)
    #expect(post.wrappedValue.value != postBefore)
    #expect(user.wrappedValue.value == userBefore)
    _ = hold(["posts", 9], 9)  // Invalidated while unheld: refetched on the next demand.
    await waitUntil { api.fetches.count == 7 }
  }

  @Test func anUnusedQueryIsCollectedAfterItsGCTimeAndNotBefore() async throws {
    let api = FakeAPI()
    let clock = ManualClock()
    let registry = SharedRegistry.current
    do {
      let held = Shared(
        wrappedValue: OperationState<String>(),
        .query(["gc"], options: options(clock)) {
          try await api.post(1)
        })
      try await waitForSuccess(held)
    }
    #expect(registry.queries.contains(["gc"]))
    // Checks run every gcTime / 4 = 15 s; the first check that finds it unused starts the count.
    for _ in 0..<4 {
      await clock.waitForSleepers(1)
      clock.advance(by: .seconds(15))
    }
    await clock.waitForSleepers(1)
    #expect(registry.queries.contains(["gc"]))  // Not before a whole gcTime.
    clock.advance(by: .seconds(15))
    await waitUntil { !registry.queries.contains(["gc"]) }
    #expect(registry.queries.count == 0)
    #expect(registry.count == 0)
  }

  @Test func aHeldQueryIsNeverCollected() async throws {
    let api = FakeAPI()
    let clock = ManualClock()
    let registry = SharedRegistry.current
    let held = Shared(
      wrappedValue: OperationState<String>(),
      .query(["kept"], options: options(clock)) {
        try await api.post(1)
      })
    try await waitForSuccess(held)
    for _ in 0..<10 {
      await clock.waitForSleepers(1)
      clock.advance(by: .seconds(15))
    }
    await clock.waitForSleepers(1)
    #expect(registry.queries.contains(["kept"]))
    _ = held
  }

  @Test func queriesRetryThreeTimesByDefault() async throws {
    #expect(QueryOptions().operation.retry.retries == 3)
    let policy = QueryOptions.defaultOperation.retry
    #expect(policy.backoff(1) == .seconds(1))
    #expect(policy.backoff(10) == .seconds(30))
    let api = FakeAPI()
    api.failuresLeft.withLock { $0 = 2 }
    let clock = ManualClock()
    let held = Shared(
      wrappedValue: OperationState<String>(),
      .query(["retry"], options: options(clock, retry: .constant(retries: 3, delay: .seconds(1)))) {
        try await api.post(1)
      })
    for _ in 0..<2 {
      await clock.waitForSleepers(2)  // The garbage check and the retry wait.
      clock.advance(by: .seconds(1))
    }
    try await waitForSuccess(held)
    #expect(api.fetches.count == 3)
    #expect(held.wrappedValue.attempt == 3)
  }

  @Test func aFailedFetchKeepsThePreviousValueAndShowsTheError() async throws {
    let api = FakeAPI()
    let clock = ManualClock()
    let held = Shared(
      wrappedValue: OperationState<String>(),
      .query(["fail"], options: options(clock)) {
        try await api.post(1)
      })
    try await waitForSuccess(held)
    api.failuresLeft.withLock { $0 = 1 }
    #expect(held.refetch())
    var values = held.values.makeAsyncIterator()
    while let state = await values.next(), !state.status.isError {}
    #expect(held.wrappedValue.value == "post 1 #1")
    #expect(held.wrappedValue.error is TestFailure)
  }

  @Test func aFetcherYieldsIntermediateValuesInOrder() async {
    let clock = ManualClock()
    let gate = Gate()
    let held = Shared(
      wrappedValue: OperationState<String>(),
      .query(["feed"], options: options(clock)) { context in
        context.yield("cached")
        await gate.wait()
        context.yield("live, first page")
        return "live"
      })
    var values = held.values(buffering: .all).makeAsyncIterator()
    var seen: [String?] = []
    await waitUntil { held.wrappedValue.value == "cached" }
    gate.open()
    while let state = await values.next() {
      if seen.last != state.value { seen.append(state.value) }
      if state.status.isSuccess { break }
    }
    #expect(seen.suffix(3) == ["cached", "live, first page", "live"])
    #expect(held.wrappedValue.status == .success)
  }

  @Test func updateWritesIntoAQuery() async throws {
    let api = FakeAPI()
    let clock = ManualClock()
    let registry = SharedRegistry.current
    let held = Shared(
      wrappedValue: OperationState<String>(),
      .query(["edit"], options: options(clock)) {
        try await api.post(1)
      })
    try await waitForSuccess(held)
    #expect(registry.queries.update(["edit"], as: OperationState<String>.self) { $0.value = "edited" } == .updated)
    #expect(held.wrappedValue.value == "edited")
    #expect(registry.queries.update(["missing"], as: OperationState<String>.self) { $0.value = "x" } == .notCached)
  }

  @Test func twoFetchersForOneKeyAreDiagnosed() async throws {
    let api = FakeAPI()
    let clock = ManualClock()
    let registry = SharedRegistry.current
    let first = Shared(
      wrappedValue: OperationState<String>(),
      .query(["twice"], options: options(clock)) {
        try await api.post(1)
      })
    let second = Shared(
      wrappedValue: OperationState<String>(),
      .query(["twice"], options: options(clock)) {
        try await api.post(2)
      })
    let kinds = registry.diagnostics.map(\.kind)
    #expect(kinds.contains { if case .conflictingFetchers = $0 { true } else { false } })
    #expect(registry.diagnostics.first?.description.contains("QueryTests.swift") == true)
    _ = (first, second)
  }
}

/// Waits until `shared` has succeeded.
/// Waits until the query shows a success with no fetch in flight (a refetch keeps the status success).
private func waitForSuccess(_ shared: Shared<OperationState<String>>) async throws {
  var values = shared.values.makeAsyncIterator()
  while let state = await values.next(), !state.status.isSuccess || state.isFetching {}
}
