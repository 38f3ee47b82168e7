import Foundation
import Synchronization
import TestSupport
import Testing

@testable import SharedState

/// A backend that counts its calls and fails while told to: the calls are "call 1", "call 2", ...
private final class Backend: Sendable {
  let calls = Counter()
  private let failing = Lock(false)

  /// Makes the calls that start from now on fail (`true`) or succeed.
  func setFailing(_ isFailing: Bool) {
    failing.withLock { $0 = isFailing }
  }

  func call() throws -> String {
    let number = calls.increment()
    if failing.withLock({ $0 }) { throw URLError(.notConnectedToInternet) }
    return "call \(number)"
  }
}

/// Network modes, end to end: queries and mutations held while the store's online status says offline, on a
/// `ManualOnlineStatus` and a `ManualClock`. Nothing sleeps: a paused run's task is known to wait once the store's
/// gate counts it suspended, and it calls nothing before it is let go.
@Suite(.freshRegistry) struct NetworkModeTests {
  private var store: QueryStore { SharedRegistry.current.queries }

  /// The store follows `network`, which starts offline.
  private func offline() -> ManualOnlineStatus {
    let network = ManualOnlineStatus(isOnline: false)
    store.onlineStatus = network
    return network
  }

  /// Options that keep the value fresh and the query cached for the whole test, on `clock`.
  private func options(
    _ clock: ManualClock,
    retry: RetryPolicy = .none,
    networkMode: NetworkMode? = nil
  ) -> QueryOptions {
    QueryOptions(
      staleTime: .seconds(3_600), gcTime: .seconds(3_600), networkMode: networkMode,
      operation: OperationOptions(retry: retry, clock: clock))
  }

  /// Waits until `count` paused runs' tasks are suspended at the store's gate.
  private func waitForSuspendedRuns(_ count: Int) async {
    let gate = store.services.network
    await waitUntil { gate.suspendedRuns.load(ordering: .relaxed) == count }
  }

  // MARK: Queries

  @Test func aQueryHeldOfflineShowsPausedAndDoesNotFetchUntilOnline() async {
    let clock = ManualClock()
    let backend = Backend()
    let network = offline()
    let post = Shared(
      wrappedValue: OperationState<String>(), .query(["post"], options: options(clock)) { try backend.call() })
    // Shown at once, as the holder appears: a first load that waits for the network.
    #expect(post.wrappedValue.status == .pending)
    #expect(post.wrappedValue.isPaused)
    #expect(!post.wrappedValue.isFetching)
    #expect(post.wrappedValue.phase == .loading(previous: nil))
    await waitForSuspendedRuns(1)
    #expect(backend.calls.count == 0)
    #expect(!store.isOnline)
    network.setOnline(true)
    // Shown fetching again before `setOnline` returns.
    #expect(post.wrappedValue.isFetching || post.wrappedValue.status == .success)
    #expect(!post.wrappedValue.isPaused)
    await waitForValue(post, "call 1")
    #expect(backend.calls.count == 1)
    #expect(!post.wrappedValue.isPaused && !post.wrappedValue.isFetching)
  }

  @Test func aPausedFetchIsJoinedByARefetchAndRunsOnce() async throws {
    let clock = ManualClock()
    let backend = Backend()
    let network = offline()
    let query = Query<OperationState<String>>.query(["post"], options: options(clock)) { try backend.call() }
    let post = Shared(wrappedValue: OperationState<String>(), query)
    #expect(post.wrappedValue.isPaused)
    #expect(store.refetch(["post"]))  // Joins the paused fetch: nothing new starts.
    let awaited = Task { try await store.fetch(query) }
    await waitForSuspendedRuns(1)
    #expect(store.services.network.pausedCount == 1)
    network.setOnline(true)
    #expect(try await awaited.value == "call 1")
    await waitForValue(post, "call 1")
    #expect(backend.calls.count == 1)
  }

  @Test func cancellingAPausedFetchEndsItAtOnce() async throws {
    let clock = ManualClock()
    let backend = Backend()
    let network = offline()
    let query = Query<OperationState<String>>.query(["post"], options: options(clock)) { try backend.call() }
    let awaited = Task { try await store.fetch(query) }
    await waitForSuspendedRuns(1)
    awaited.cancel()  // Its only caller leaves: the fetch is cancelled, and stops waiting for the network.
    await #expect(throws: CancellationError.self) { try await awaited.value }
    await waitUntil { store.activity.wrappedValue.fetchingQueries == 0 }
    #expect(store.services.network.pausedCount == 0)
    #expect(store.services.network.suspendedRuns.load(ordering: .relaxed) == 0)
    network.setOnline(true)
    #expect(backend.calls.count == 0)
  }

  @Test func cancellingTheQueriesEndsAHeldQuerysPausedFetchAtOnce() async {
    let clock = ManualClock()
    let backend = Backend()
    let network = offline()
    let post = Shared(
      wrappedValue: OperationState<String>(), .query(["post"], options: options(clock)) { try backend.call() })
    await waitForSuspendedRuns(1)
    #expect(store.cancel(.prefix(["post"])) == 1)
    await waitUntil { !post.wrappedValue.isPaused }
    #expect(post.wrappedValue.status == .idle && !post.wrappedValue.isFetching)
    await waitForSuspendedRuns(0)
    #expect(store.services.network.pausedCount == 0)
    network.setOnline(true)
    #expect(backend.calls.count == 0)
  }

  @Test func aQueryOfModeAlwaysFetchesOffline() async {
    let clock = ManualClock()
    let backend = Backend()
    _ = offline()
    let local = Shared(
      wrappedValue: OperationState<String>(),
      .query(["local"], options: options(clock, networkMode: .always)) { try backend.call() })
    #expect(!local.wrappedValue.isPaused)
    await waitForValue(local, "call 1")
  }

  @Test func theStoreDefaultDecidesForQueriesThatNameNoMode() async {
    let clock = ManualClock()
    let backend = Backend()
    let network = offline()
    store.networkMode = .always
    let post = Shared(
      wrappedValue: OperationState<String>(), .query(["post"], options: options(clock)) { try backend.call() })
    #expect(!post.wrappedValue.isPaused)
    await waitForValue(post, "call 1")
    store.networkMode = .online
    let other = Shared(
      wrappedValue: OperationState<String>(), .query(["other"], options: options(clock)) { try backend.call() })
    #expect(other.wrappedValue.isPaused)
    network.setOnline(true)
    await waitForValue(other, "call 2")
  }

  @Test func offlineFirstRunsTheFirstAttemptOfflineAndPausesItsRetry() async {
    let clock = ManualClock()
    let backend = Backend()
    backend.setFailing(true)
    let network = offline()
    let retry = RetryPolicy.constant(retries: 2, delay: .seconds(5))
    let post = Shared(
      wrappedValue: OperationState<String>(),
      .query(["post"], options: options(clock, retry: retry, networkMode: .offlineFirst)) { try backend.call() })
    #expect(!post.wrappedValue.isPaused)  // The first attempt runs offline.
    await waitUntil { post.wrappedValue.isPaused }
    #expect(backend.calls.count == 1)
    #expect(post.wrappedValue.failureCount == 1)
    #expect(post.wrappedValue.status == .pending)
    await waitForSuspendedRuns(1)
    clock.advance(by: .seconds(60))  // No backoff runs while it waits: no attempt is used up.
    #expect(backend.calls.count == 1)
    backend.setFailing(false)
    network.setOnline(true)
    await waitForValue(post, "call 2")
    #expect(post.wrappedValue.attempt == 2)
  }

  @Test func aBackoffThatEndsOfflineWaitsAndUsesNoAttempts() async {
    let clock = ManualClock()
    let backend = Backend()
    backend.setFailing(true)
    let network = ManualOnlineStatus()
    store.onlineStatus = network
    let retry = RetryPolicy.constant(retries: 2, delay: .seconds(5))
    let post = Shared(
      wrappedValue: OperationState<String>(),
      .query(["post"], options: options(clock, retry: retry)) { try backend.call() })
    await clock.waitForSleepers(2)  // The garbage check, and the backoff after the first failure.
    #expect(backend.calls.count == 1)
    network.setOnline(false)  // During the backoff.
    clock.advance(by: .seconds(5))
    await waitForSuspendedRuns(1)
    #expect(post.wrappedValue.isPaused)
    // Offline for much longer than the two remaining backoffs: nothing runs, nothing fails.
    clock.advance(by: .seconds(60))
    #expect(backend.calls.count == 1)
    #expect(post.wrappedValue.status == .pending)
    network.setOnline(true)
    await waitUntil { backend.calls.count == 2 }  // Retry 1 runs at once, fails (online): its backoff follows.
    await clock.waitForSleepers(2)
    backend.setFailing(false)
    clock.advance(by: .seconds(5))
    await waitForValue(post, "call 3")  // Retry 2, the last: had offline time counted, the fetch would have failed.
    #expect(post.wrappedValue.failureCount == 0)
  }

  @Test func anAttemptThatFailsOfflineWaitsForTheNetworkInPlaceOfItsBackoff() async {
    let clock = ManualClock()
    let backend = Backend()
    backend.setFailing(true)
    let network = ManualOnlineStatus()
    store.onlineStatus = network
    let gate = Gate()
    let retry = RetryPolicy.constant(retries: 1, delay: .seconds(5))
    let post = Shared(
      wrappedValue: OperationState<String>(),
      .query(["post"], options: options(clock, retry: retry)) {
        await gate.wait()
        return try backend.call()
      })
    #expect(post.wrappedValue.isFetching)
    network.setOnline(false)  // During the attempt, which then fails.
    gate.open()
    await waitForSuspendedRuns(1)
    #expect(post.wrappedValue.isPaused && post.wrappedValue.failureCount == 1)
    backend.setFailing(false)
    network.setOnline(true)  // The retry runs at once: no backoff to wait for.
    await waitForValue(post, "call 2")
  }

  @Test func aRefetchQueuedBehindAFetchAsksForTheNetworkAsItsTurnComes() async throws {
    let clock = ManualClock()
    let backend = Backend()
    let network = ManualOnlineStatus()
    store.onlineStatus = network
    let gate = Gate()
    let post = Shared(
      wrappedValue: OperationState<String>(),
      .query(["post"], options: options(clock)) {
        if backend.calls.count == 0 { await gate.wait() }
        return try backend.call()
      })
    #expect(post.wrappedValue.isFetching)
    // Invalidated during the fetch: a refetch waits for its turn behind it, and the caller awaits that refetch.
    let refetched = Task { try await store.invalidateAndAwaitRefetches(.prefix(["post"])) }
    await waitUntil { store.isStale(["post"]) == true }
    network.setOnline(false)  // While the refetch waits for its turn.
    gate.open()
    await waitForSuspendedRuns(1)
    #expect(post.wrappedValue.isPaused)
    #expect(backend.calls.count == 1)
    network.setOnline(true)
    #expect(try await refetched.value.succeeded == Set([QueryKey(["post"])]))
    await waitForValue(post, "call 2")
  }

  // MARK: Mutations

  @Test func aMutationWaitsOfflineAndRunsOnceOnline() async throws {
    let backend = Backend()
    let network = offline()
    let rename = Shared(wrappedValue: MutationState<String, String>(), .mutation("rename"))
    let task = rename.mutate("New title") { _ in try backend.call() }
    await waitForSuspendedRuns(1)
    #expect(rename.wrappedValue.status == .pending)
    #expect(rename.wrappedValue.isPaused)
    #expect(!rename.wrappedValue.isFetching)
    #expect(rename.wrappedValue.history.map(\.status) == [.pending])
    #expect(backend.calls.count == 0)
    network.setOnline(true)
    #expect(try await task.value == "call 1")
    #expect(backend.calls.count == 1)
    #expect(rename.wrappedValue.status == .success && !rename.wrappedValue.isPaused)
  }

  @Test func aMutationOfModeAlwaysRunsOffline() async throws {
    let backend = Backend()
    _ = offline()
    let rename = Shared(wrappedValue: MutationState<String, String>(), .mutation("rename"))
    #expect(try await rename.mutate("New title", .networkMode(.always)) { _ in try backend.call() }.value == "call 1")
    #expect(!rename.wrappedValue.isPaused)
  }

  @Test func anOfflineFirstMutationRunsOnceOfflineThenWaitsToRetry() async throws {
    let clock = ManualClock()
    let backend = Backend()
    backend.setFailing(true)
    let network = offline()
    let rename = Shared(wrappedValue: MutationState<String, String>(), .mutation("rename"))
    let options = OperationOptions.retry(.constant(retries: 3, delay: .seconds(1))).clock(clock).networkMode(
      .offlineFirst)
    let task = rename.mutate("New title", options) { _ in try backend.call() }
    await waitForSuspendedRuns(1)
    #expect(backend.calls.count == 1)
    #expect(rename.wrappedValue.isPaused)
    backend.setFailing(false)
    network.setOnline(true)
    #expect(try await task.value == "call 2")
  }

  @Test func cancellingAPausedMutationEndsItAtOnce() async {
    let backend = Backend()
    _ = offline()
    let rename = Shared(wrappedValue: MutationState<String, String>(), .mutation("rename"))
    let settled = Collector<Bool>()
    let task = rename.mutate("New title") { _ in
      try backend.call()
    } onSettled: { result in
      settled.append((try? result.get()) == nil)
    }
    await waitForSuspendedRuns(1)
    task.cancel()
    await #expect(throws: CancellationError.self) { try await task.value }
    #expect(settled.elements == [true])
    #expect(store.services.network.pausedCount == 0)
    #expect(!rename.wrappedValue.isPaused)
    #expect(rename.wrappedValue.status == .idle)
    #expect(backend.calls.count == 0)
  }

  @Test func aPlainRunIgnoresTheNetworkUnlessItsOptionsNameAMode() async throws {
    let backend = Backend()
    let network = offline()
    let post = Shared(value: OperationState<String>())
    #expect(try await post.perform { try backend.call() } == "call 1")
    let waiting = post.run(.networkMode(.online)) { try backend.call() }
    await waitForSuspendedRuns(1)
    #expect(post.wrappedValue.isPaused && post.wrappedValue.status == .pending)
    network.setOnline(true)
    #expect(try await waiting.value == "call 2")
  }

  // MARK: Order

  /// Records `name` in `resumed` each time `shared` stops showing paused.
  private func recordResumptions<Value: OperationTrackable>(
    of shared: Shared<Value>,
    as name: String,
    in resumed: Collector<String>
  ) -> ObserverToken {
    let wasPaused = Lock(shared.wrappedValue.operation.isPaused)
    return shared.observe { state in
      let resumes = wasPaused.withLock { wasPaused in
        defer { wasPaused = state.operation.isPaused }
        return wasPaused && !state.operation.isPaused
      }
      if resumes { resumed.append(name) }
    }
  }

  @Test func pausedWorkResumesInTheOrderItPaused() async throws {
    let clock = ManualClock()
    let backend = Backend()
    let network = offline()
    let resumed = Collector<String>()
    var tokens: [ObserverToken] = []
    var holders: [Shared<OperationState<String>>] = []
    for name in ["a", "b"] {
      let held = Shared(
        wrappedValue: OperationState<String>(), .query([name], options: options(clock)) { try backend.call() })
      tokens.append(recordResumptions(of: held, as: name, in: resumed))
      holders.append(held)
    }
    let rename = Shared(wrappedValue: MutationState<String, String>(), .mutation("rename"))
    tokens.append(recordResumptions(of: rename, as: "rename", in: resumed))
    let task = rename.mutate("New title") { _ in try backend.call() }
    await waitForSuspendedRuns(3)  // The mutation paused last: its task paused it.
    let third = Shared(
      wrappedValue: OperationState<String>(), .query(["c"], options: options(clock)) { try backend.call() })
    tokens.append(recordResumptions(of: third, as: "c", in: resumed))
    await waitForSuspendedRuns(4)
    #expect(resumed.elements.isEmpty)
    network.setOnline(true)
    // Each was shown going on, in the order it paused, before `setOnline` returned.
    #expect(resumed.elements == ["a", "b", "rename", "c"])
    _ = try await task.value
    for holder in holders + [third] { await waitUntil { holder.wrappedValue.status == .success } }
    #expect(backend.calls.count == 4)
    withExtendedLifetime(tokens) {}
  }

  // MARK: The store's source

  @Test func oneSourceBothPausesFetchesOfflineAndRefetchesStaleHeldQueriesOnReconnect() async throws {
    let clock = ManualClock()
    let backend = Backend()
    let network = ManualOnlineStatus()
    store.onlineStatus = network  // The one call: nothing else is wired.
    var staleOptions = QueryOptions(
      staleTime: .seconds(30), gcTime: .seconds(3_600), operation: OperationOptions(retry: .none, clock: clock))
    let stale = Shared(
      wrappedValue: OperationState<String>(), .query(["stale"], options: staleOptions) { try backend.call() })
    await waitForValue(stale, "call 1")
    staleOptions.refetchOnReconnect = .never
    let never = Shared(
      wrappedValue: OperationState<String>(), .query(["never"], options: staleOptions) { try backend.call() })
    await waitForValue(never, "call 2")
    clock.advance(by: .seconds(30))
    network.setOnline(false)
    // Offline: a new query's fetch waits.
    let paused = Shared(
      wrappedValue: OperationState<String>(), .query(["paused"], options: options(clock)) { try backend.call() })
    #expect(paused.wrappedValue.isPaused)
    await waitForSuspendedRuns(1)
    #expect(backend.calls.count == 2)
    network.setOnline(true)
    // Back online: the paused fetch goes on, and the held stale query refetches at once, as its
    // refetchOnReconnect says (`.ifStale`, the default); one that says `.never` does not.
    try #require(stale.wrappedValue.isFetching)
    #expect(!never.wrappedValue.isFetching)
    await waitUntil { paused.wrappedValue.value != nil && stale.wrappedValue.value != "call 1" }
    await waitUntil { !stale.wrappedValue.isFetching }
    #expect(Set([paused.wrappedValue.value, stale.wrappedValue.value]) == ["call 3", "call 4"])
    #expect(never.wrappedValue.value == "call 2")
    #expect(backend.calls.count == 4)
  }

  @Test func aSourceOfTheProgramsOwnIsFollowedThroughItsStatuses() async {
    let clock = ManualClock()
    let backend = Backend()
    let inner = ManualOnlineStatus(isOnline: false)
    store.onlineStatus = OwnStatus(inner: inner)
    let post = Shared(
      wrappedValue: OperationState<String>(), .query(["post"], options: options(clock)) { try backend.call() })
    #expect(post.wrappedValue.isPaused)
    inner.setOnline(true)  // Heard through the iteration, a moment later.
    await waitForValue(post, "call 1")
    #expect(store.isOnline)
  }

  @Test func removingTheSourceLetsWaitingWorkGoOn() async {
    let clock = ManualClock()
    let backend = Backend()
    _ = offline()
    let post = Shared(
      wrappedValue: OperationState<String>(), .query(["post"], options: options(clock)) { try backend.call() })
    #expect(post.wrappedValue.isPaused)
    store.onlineStatus = nil
    await waitForValue(post, "call 1")
    #expect(store.onlineStatus == nil && store.isOnline)
  }
}

/// An online status of a program's own: it only has the protocol's two requirements.
private struct OwnStatus: OnlineStatusSource {
  let inner: ManualOnlineStatus
  var isOnline: Bool { inner.isOnline }
  func onlineStatuses() -> AsyncStream<Bool> { inner.onlineStatuses() }
}
