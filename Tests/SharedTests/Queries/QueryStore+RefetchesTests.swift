import Foundation
import Synchronization
import TestSupport
import Testing

@testable import SharedState

/// "Saved and refreshed": ``QueryStore/invalidateAndAwaitRefetches(_:refetching:)``, and a mutation that awaits the
/// refetches its invalidation set off.
@Suite(.freshRegistry) struct QueryStoreRefetchesTests {
  // MARK: The store

  @Test func awaitingAnInvalidationReturnsOnceTheHeldQueriesWereRefetched() async throws {
    let todos = await HeldQuery(["todos"])
    let refetch = todos.fetcher.hold()
    let awaiting = Task {
      let refetches = try await todos.store.invalidateAndAwaitRefetches(.prefix(["todos"]))
      return (refetches, todos.holder.wrappedValue)
    }
    await waitUntil { todos.fetcher.fetches.count == 2 }
    refetch.open()
    let (refetches, shown) = try await awaiting.value
    #expect(shown.value == "fetch 2")  // Refreshed by the time the wait returned.
    #expect(!shown.isFetching)
    #expect(refetches.invalidatedCount == 1)
    #expect(refetches.succeeded == [["todos"]])
    #expect(refetches.allSucceeded)
  }

  @Test func aFetchUnderWayIsFollowedByTheRefetchThatIsAwaited() async throws {
    let todos = await HeldQuery(["todos"])
    let underWay = todos.fetcher.hold()
    todos.holder.refetch()
    await waitUntil { todos.fetcher.fetches.count == 2 }
    let awaiting = Task {
      _ = try await todos.store.invalidateAndAwaitRefetches(.prefix(["todos"]))
      return todos.holder.wrappedValue
    }
    // The fetch under way started before the invalidation: its value is not the answer.
    underWay.open()
    let shown = try await awaiting.value
    #expect(shown.value == "fetch 3")
    #expect(todos.fetcher.fetches.count == 3)
  }

  @Test func failedAndCancelledRefetchesAreReportedNotThrown() async throws {
    let clock = ManualClock()
    let store = SharedRegistry.current.queries
    let fetcher = KeyedFetcher()
    let failing = Shared(wrappedValue: OperationState<String>(), fetcher.query(["posts", 1], "one", clock: clock))
    let cancelled = Shared(wrappedValue: OperationState<String>(), fetcher.query(["posts", 2], "two", clock: clock))
    await waitForValue(failing, "one 1")
    await waitForValue(cancelled, "two 1")
    fetcher.hold()
    fetcher.setFailing(true)
    let awaiting = Task { try await store.invalidateAndAwaitRefetches(.prefix(["posts"])) }
    await waitUntil { fetcher.count("one") == 2 && fetcher.count("two") == 2 }
    store.cancel(.exactly(["posts", 2]))
    fetcher.release()
    let refetches = try await awaiting.value
    #expect(refetches.invalidatedCount == 2)
    #expect(refetches.succeeded.isEmpty)
    #expect(refetches.failures.keys.contains(["posts", 1]))
    #expect(refetches.cancelled == [["posts", 2]])
    #expect(refetches.refetched == [["posts", 1], ["posts", 2]])
    #expect(!refetches.allSucceeded)
    #expect(failing.wrappedValue.status == .error)  // The query shows its own failure.
  }

  @Test func onlyTheQueriesThatRefetchNowAreAwaited() async throws {
    let clock = ManualClock()
    let store = SharedRegistry.current.queries
    let fetcher = KeyedFetcher()
    _ = try await store.fetch(fetcher.query(["posts", 1], "unheld", clock: clock))
    let held = Shared(wrappedValue: OperationState<String>(), fetcher.query(["posts", 2], "held", clock: clock))
    await waitForValue(held, "held 1")
    let byDefault = try await store.invalidateAndAwaitRefetches(.prefix(["posts"]))
    #expect(byDefault.invalidatedCount == 2)
    #expect(byDefault.succeeded == [["posts", 2]])
    let all = try await store.invalidateAndAwaitRefetches(.prefix(["posts"]), refetching: .all)
    #expect(all.succeeded == [["posts", 1], ["posts", 2]])
    let none = try await store.invalidateAndAwaitRefetches(.prefix(["posts"]), refetching: .none)
    #expect(none.invalidatedCount == 2)
    #expect(none.refetched.isEmpty)
    #expect(fetcher.count("unheld") == 2)
    #expect(fetcher.count("held") == 3)
    #expect(held.wrappedValue.value == "held 3")
  }

  @Test func aCancelledCallerStopsWaitingAndTheRefetchGoesOnForTheHolder() async throws {
    let todos = await HeldQuery(["todos"])
    let refetch = todos.fetcher.hold()
    let awaiting = Task { try await todos.store.invalidateAndAwaitRefetches(.prefix(["todos"])) }
    await waitUntil { todos.fetcher.fetches.count == 2 }
    awaiting.cancel()
    await #expect(throws: CancellationError.self) { try await awaiting.value }
    refetch.open()
    await waitForValue(todos.holder, "fetch 2")
    #expect(todos.fetcher.fetches.count == 2)
  }

  // MARK: A mutation

  @Test func aMutationThatAwaitsRefetchesSettlesOnceTheyEnded() async throws {
    let todos = await HeldQuery(["todos"])
    let add = Shared(wrappedValue: MutationState<String, Int>(), .mutation("add-todo"))
    let shownOnSuccess = Collector<String?>()
    let refetch = todos.fetcher.hold()
    let task = add.mutate("Water the plants", invalidates: [["todos"]], awaitsRefetches: true) { title in
      title.count
    } onSuccess: { _ in
      shownOnSuccess.append(todos.holder.wrappedValue.value)
    }
    await waitUntil { todos.fetcher.fetches.count == 2 }
    // Saved, not refreshed yet: the run is still under way.
    #expect(add.wrappedValue.status == .pending)
    #expect(add.wrappedValue.history.last?.status == .pending)
    #expect(shownOnSuccess.elements.isEmpty)
    refetch.open()
    #expect(try await task.value == 16)
    #expect(todos.holder.wrappedValue.value == "fetch 2")
    #expect(shownOnSuccess.elements == ["fetch 2"])
    #expect(add.wrappedValue.status == .success)
    #expect(todos.fetcher.fetches.count == 2)  // Invalidated once.
  }

  @Test func aMutationThatDoesNotAwaitRefetchesSettlesAtOnce() async throws {
    let todos = await HeldQuery(["todos"])
    let add = Shared(wrappedValue: MutationState<String, Int>(), .mutation("add-todo"))
    let refetch = todos.fetcher.hold()
    let value = try await add.mutate("Water the plants", invalidates: [["todos"]]) { title in title.count }.value
    #expect(value == 16)
    await waitUntil { todos.fetcher.fetches.count == 2 }
    #expect(todos.holder.wrappedValue.value == "fetch 1")
    refetch.open()
    await waitForValue(todos.holder, "fetch 2")
  }

  @Test func aRefetchThatFailsDoesNotFailTheMutation() async throws {
    let clock = ManualClock()
    let fetcher = KeyedFetcher()
    let todos = Shared(wrappedValue: OperationState<String>(), fetcher.query(["todos"], "todos", clock: clock))
    await waitForValue(todos, "todos 1")
    fetcher.setFailing(true)
    let add = Shared(wrappedValue: MutationState<String, Int>(), .mutation("add-todo"))
    let value = try await add.mutate("Water", invalidates: [["todos"]], awaitsRefetches: true) { title in
      title.count
    }.value
    #expect(value == 5)
    #expect(todos.wrappedValue.status == .error)  // The refetch ended, with its own error, before the mutation.
    #expect(fetcher.count("todos") == 2)
    #expect(add.wrappedValue.status == .success)
  }

  @Test func cancellingAMutationWhileItAwaitsRefetchesStopsTheWaitAndItStillSucceeds() async throws {
    let todos = await HeldQuery(["todos"])
    let add = Shared(wrappedValue: MutationState<String, Int>(), .mutation("add-todo"))
    let refetch = todos.fetcher.hold()
    let task = add.mutate("Water", invalidates: [["todos"]], awaitsRefetches: true) { title in title.count }
    await waitUntil { todos.fetcher.fetches.count == 2 }
    task.cancel()
    #expect(try await task.value == 5)  // Saved: cancelling the wait does not undo that.
    #expect(add.wrappedValue.status == .success)
    #expect(add.wrappedValue.history.last?.status == .success)
    #expect(todos.holder.wrappedValue.isFetching)  // The refetch goes on for the holder.
    refetch.open()
    await waitForValue(todos.holder, "fetch 2")
  }

  @Test func retryingTheLatestRunAwaitsItsRefetchesAgain() async throws {
    let todos = await HeldQuery(["todos"])
    let add = Shared(wrappedValue: MutationState<String, Int>(), .mutation("add-todo"))
    _ = try await add.mutate("Water", invalidates: [["todos"]], awaitsRefetches: true) { title in title.count }.value
    #expect(todos.holder.wrappedValue.value == "fetch 2")
    let retry = try #require(add.retryLatest())
    _ = try await retry.value
    #expect(todos.holder.wrappedValue.value == "fetch 3")
  }
}
