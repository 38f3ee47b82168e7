import Foundation
import Synchronization
import TestSupport
import Testing

@testable import SharedState

private struct FetchFailure: Error, CustomStringConvertible {
  var description: String { "failure" }
}

/// A fetcher whose results are set by the test: a value, or a failure; its fetches can be held until released.
private final class ScriptedFetcher: Sendable {
  let fetches = Counter()
  private let fails = Lock(false)
  private let isHolding = Lock(false)
  private let holdClock = ManualClock()

  func failNext(_ failing: Bool) {
    fails.withLock { $0 = failing }
  }

  func hold() {
    isHolding.withLock { $0 = true }
  }

  func release() {
    isHolding.withLock { $0 = false }
    holdClock.advance(by: .seconds(1_000))
  }

  func fetch() async throws -> String {
    let number = fetches.increment()
    if isHolding.withLock({ $0 }) { try await holdClock.sleep(for: .seconds(1_000)) }
    if fails.withLock({ $0 }) { throw FetchFailure() }
    return "value \(number)"
  }
}

/// Describes a hook call, for comparing sequences of them.
private func describe(_ subject: QueryHookSubject) -> String {
  switch subject {
  case .query(let key, _): "\(key)"
  case .mutation(let arguments, _): "mutation(\(arguments))"
  }
}

/// Hooks that record every call, in order.
private func recordingHooks(into calls: Collector<String>) -> QueryHooks {
  QueryHooks(
    onSuccess: { subject, value in calls.append("success \(describe(subject)) \(value)") },
    onError: { subject, error in calls.append("error \(describe(subject)) \(error)") },
    onSettled: { subject, result in
      switch result {
      case .success(let value): calls.append("settled \(describe(subject)) \(value)")
      case .failure(let error):
        calls.append("settled \(describe(subject)) \(error is CancellationError ? "cancelled" : "\(error)")")
      }
    })
}

/// The options a store gives queries made without their own, the hooks it calls for every fetch and mutation run,
/// and its counts of fetching queries and running mutations.
@Suite(.freshRegistry) struct QueryStoreSettingsTests {
  @Test func aQueryMadeWithoutOptionsTakesTheStoresDefaults() async throws {
    let clock = ManualClock()
    let fetcher = ScriptedFetcher()
    let store = SharedRegistry.current.queries
    store.defaultOptions = QueryOptions(
      staleTime: .seconds(30), gcTime: .seconds(60), operation: .retry(.none).clock(clock))
    let query: Query<OperationState<String>> = .query(["feed"]) { try await fetcher.fetch() }
    #expect(query.options.staleTime == .zero)  // The library's defaults until it enters a store.
    #expect(try await store.fetch(query) == "value 1")
    clock.advance(by: .seconds(29))  // The store's staleTime, on the store's clock.
    #expect(try await store.fetch(query) == "value 1")
    clock.advance(by: .seconds(1))
    #expect(try await store.fetch(query) == "value 2")
    #expect(store.defaultOptions.staleTime == .seconds(30))
  }

  @Test func aQueryWithOptionsOfItsOwnKeepsThemEvenWhenTheyAreTheLibrarysDefaults() async throws {
    let clock = ManualClock()
    let fetcher = ScriptedFetcher()
    let store = SharedRegistry.current.queries
    store.defaultOptions = QueryOptions(staleTime: .seconds(600), operation: .retry(.none).clock(clock))
    let own: Query<OperationState<String>> = .query(
      ["own"], options: QueryOptions(operation: .retry(.none).clock(clock))
    ) {
      try await fetcher.fetch()
    }
    #expect(try await store.fetch(own) == "value 1")
    #expect(try await store.fetch(own) == "value 2")  // Its own staleTime, zero: stale at once.
    let explicitDefaults: Query<OperationState<String>> = .query(["defaults"], options: QueryOptions()) { "fetched" }
    #expect(!explicitDefaults.usesDefaultOptions)  // Given, even though equal to the library's.
  }

  @Test func hooksHearEveryQueryFetchOnceSuccessOrErrorThenSettled() async throws {
    let clock = ManualClock()
    let fetcher = ScriptedFetcher()
    let store = SharedRegistry.current.queries
    let calls = Collector<String>()
    store.hooks = recordingHooks(into: calls)
    let query: Query<OperationState<String>> = .query(["feed"], options: queryStoreOptions(clock, staleTime: .zero)) {
      try await fetcher.fetch()
    }
    #expect(try await store.fetch(query) == "value 1")
    await waitUntil { calls.elements.count == 2 }
    fetcher.failNext(true)
    await #expect(throws: FetchFailure.self) { try await store.fetch(query) }
    await waitUntil { calls.elements.count == 4 }
    #expect(
      calls.elements == [
        "success [\"feed\"] value 1", "settled [\"feed\"] value 1",
        "error [\"feed\"] failure", "settled [\"feed\"] failure",
      ])
  }

  @Test func aCancelledFetchOnlySettles() async throws {
    let clock = ManualClock()
    let fetcher = ScriptedFetcher()
    let store = SharedRegistry.current.queries
    let calls = Collector<String>()
    store.hooks = recordingHooks(into: calls)
    fetcher.hold()
    let query: Query<OperationState<String>> = .query(["feed"], options: queryStoreOptions(clock)) {
      try await fetcher.fetch()
    }
    let caller = Task { try await store.fetch(query) }
    await waitUntil { fetcher.fetches.count == 1 }
    #expect(store.cancel(.all) == 1)
    _ = await caller.result
    await waitUntil { !calls.elements.isEmpty }
    fetcher.release()
    #expect(try await store.fetch(query) == "value 2")
    await waitUntil { calls.elements.count == 3 }
    #expect(
      calls.elements == ["settled [\"feed\"] cancelled", "success [\"feed\"] value 2", "settled [\"feed\"] value 2"])
  }

  @Test func hooksHearMutationRunsJustBeforeTheRunsOwnCallbacks() async throws {
    let store = SharedRegistry.current.queries
    let calls = Collector<String>()
    store.hooks = recordingHooks(into: calls)
    let add = Shared(wrappedValue: MutationState<String, Int>(), .inMemory("add"))
    let succeeded = add.mutate("abc") { title in
      title.count
    } onSuccess: { _ in
      calls.append("onSuccess")
    } onSettled: { _ in
      calls.append("onSettled")
    }
    _ = try await succeeded.value
    await waitUntil { calls.elements.count == 4 }
    _ = await add.mutate("x") { _ in throw FetchFailure() }.result
    await waitUntil { calls.elements.count == 6 }
    #expect(
      calls.elements == [
        "success mutation(abc) 3", "onSuccess", "settled mutation(abc) 3", "onSettled",
        "error mutation(x) failure", "settled mutation(x) failure",
      ])
  }

  /// A hook runs after the callers awaiting the fetch were resumed, so however long it takes it delays none of
  /// them; and it may use the store. The caller runs on an executor that counts the jobs it is given: its last job
  /// (the resumption with the fetched value) must have been enqueued before the hook ran. Nothing blocks.
  @Test func aHookMayUseTheStoreAndRunsOnlyAfterTheCallersWereResumed() async throws {
    let clock = ManualClock()
    let fetcher = ScriptedFetcher()
    let store = SharedRegistry.current.queries
    let heard = Collector<String>()
    let caller = CountingExecutor()
    let jobsWhenHooked = Collector<Int>()
    store.hooks = QueryHooks(onSettled: { subject, _ in
      jobsWhenHooked.append(caller.enqueuedJobs)
      // Called outside the store's locks: the store answers from here.
      heard.append("settled \(describe(subject)) while the store keeps \(store.count)")
      store.invalidate(.exactly(["other"]))
    })
    let query: Query<OperationState<String>> = .query(["feed"], options: queryStoreOptions(clock)) {
      try await fetcher.fetch()
    }
    let fetched = Task(executorPreference: caller) { try await store.fetch(query) }
    #expect(try await fetched.value == "value 1")
    await waitUntil { !heard.elements.isEmpty }
    // The caller's task runs to its end after its last resumption, so it was given no job after that one.
    #expect(jobsWhenHooked.elements == [caller.enqueuedJobs])
    #expect(caller.enqueuedJobs >= 2, "the caller started, suspended for the fetch, and was resumed")
    #expect(heard.elements == ["settled [\"feed\"] while the store keeps 1"])
    #expect(try await store.fetch(query) == "value 1")  // The store still answers, from its cache.
  }

  @Test func activityCountsFetchingQueriesAndRunningMutations() async throws {
    let clock = ManualClock()
    let fetcher = ScriptedFetcher()
    let store = SharedRegistry.current.queries
    let activity = store.activity
    let seen = Collector<QueryActivity>()
    let token = activity.observe { seen.append($0) }
    #expect(activity.wrappedValue.isIdle)
    fetcher.hold()
    let query: Query<OperationState<String>> = .query(["feed"], options: queryStoreOptions(clock)) {
      try await fetcher.fetch()
    }
    store.prefetch(query)
    await waitUntil { activity.wrappedValue.fetchingQueries == 1 }
    let gate = Gate()
    let save = Shared(wrappedValue: MutationState<String, Int>(), .inMemory("save"))
    let run = save.mutate("a") { title in
      await gate.wait()
      return title.count
    }
    #expect(activity.wrappedValue.runningMutations == 1)  // Counted before `mutate` returns.
    fetcher.release()
    await waitUntil { activity.wrappedValue.fetchingQueries == 0 }
    gate.open()
    _ = try await run.value
    await waitUntil { activity.wrappedValue.isIdle }
    var expected = QueryActivity()
    expected.fetchingQueries = 1
    #expect(seen.elements.contains(expected))
    #expect(seen.elements.last == QueryActivity())
    token.cancel()
  }
}
