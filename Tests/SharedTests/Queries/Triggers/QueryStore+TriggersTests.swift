import Foundation
import TestSupport
import Testing

@testable import SharedState

/// Refetching on an interval, on reconnect, on focus and on a new holder, each as the query's options say, and
/// whether a query is stale.
@Suite(.freshRegistry) struct QueryStoreTriggersTests {
  private static let staleTime = Duration.seconds(30)
  private static let interval = Duration.seconds(10)

  private func options(
    _ clock: ManualClock,
    onHolder: RefetchCondition = .ifStale,
    onReconnect: RefetchCondition = .ifStale,
    onFocus: RefetchCondition = .ifStale,
    interval: Duration? = nil,
    whileUnheld: Bool = false,
    inBackground: Bool = false,
    enabled: Bool = true
  ) -> QueryOptions {
    QueryOptions(
      staleTime: Self.staleTime, gcTime: .seconds(60), enabled: enabled, refetchOnHolder: onHolder,
      refetchOnReconnect: onReconnect, refetchOnFocus: onFocus, refetchInterval: interval,
      refetchesWhileUnheld: whileUnheld, refetchIntervalInBackground: inBackground,
      operation: .retry(.none).clock(clock))
  }

  private func query(
    _ key: QueryKey,
    _ fetcher: GatedFetcher,
    _ options: QueryOptions
  ) -> Query<OperationState<String>> {
    .query(key, options: options) { await fetcher.fetch() }
  }

  private func query(_ fetcher: GatedFetcher, _ options: QueryOptions) -> Query<OperationState<String>> {
    query(["post"], fetcher, options)
  }

  private func timer(_ clock: ManualClock) -> QueryIntervalKey {
    QueryIntervalKey(clock: QueryClockKey(clock), interval: Self.interval)
  }

  // MARK: Interval

  @Test func aHeldQueryRefetchesAtEachTickOfItsIntervalWhateverItsAge() async {
    let clock = ManualClock()
    let fetcher = GatedFetcher()
    let post = Shared(wrappedValue: OperationState<String>(), query(fetcher, options(clock, interval: Self.interval)))
    await waitForValue(post, "fetch 1")
    // The value is fresh for 30 s; the interval refetches it every 10 s all the same.
    for expected in 2...4 {
      await clock.waitForSleepers(2)  // The garbage sweeper and the query's timer.
      clock.advance(by: Self.interval)
      await waitForValue(post, "fetch \(expected)")
    }
    #expect(fetcher.fetches.count == 4)
  }

  @Test func aTickRefetchesOnlyTheHeldQueriesUnlessOneRefetchesWhileUnheld() async {
    let clock = ManualClock()
    let fetcher = GatedFetcher()
    let store = SharedRegistry.current.queries
    let held = Shared(
      wrappedValue: OperationState<String>(), query(["held"], fetcher, options(clock, interval: Self.interval)))
    await waitForValue(held, "fetch 1")
    _ = try? await store.fetch(query(["unheld"], fetcher, options(clock, interval: Self.interval)))
    _ = try? await store.fetch(query(["warm"], fetcher, options(clock, interval: Self.interval, whileUnheld: true)))
    #expect(fetcher.fetches.count == 3)
    // One timer for the three: one tick asks the held query and the one that refetches while unheld.
    #expect(store.tick(timer(clock)) == 2)
    await waitUntil { fetcher.fetches.count == 5 }
    await waitUntil { store.activity.wrappedValue.fetchingQueries == 0 }
    #expect(store.tick(timer(clock)) == 2)
    withExtendedLifetime(held) {}
  }

  @Test func aDisabledQueryIgnoresItsInterval() async {
    let clock = ManualClock()
    let fetcher = GatedFetcher()
    let store = SharedRegistry.current.queries
    let post = Shared(
      wrappedValue: OperationState<String>(), query(fetcher, options(clock, interval: Self.interval, enabled: false)))
    #expect(store.tick(timer(clock)) == 0)
    #expect(fetcher.fetches.count == 0)
    store.setEnabled(true, for: ["post"])
    await waitForValue(post, "fetch 1")
    await waitUntil { store.activity.wrappedValue.fetchingQueries == 0 }
    #expect(store.tick(timer(clock)) == 1)
    await waitForValue(post, "fetch 2")
  }

  @Test func theQueriesOfOneIntervalShareOneTimerThatStopsWhenTheyAreRemoved() async {
    let clock = ManualClock()
    let fetcher = GatedFetcher()
    let store = SharedRegistry.current.queries
    let first = Shared(
      wrappedValue: OperationState<String>(), query(["a"], fetcher, options(clock, interval: Self.interval)))
    let second = Shared(
      wrappedValue: OperationState<String>(), query(["b"], fetcher, options(clock, interval: Self.interval)))
    await waitForValue(first, "fetch 1")
    await waitUntil { second.wrappedValue.value != nil }
    await clock.waitForSleepers(2)  // The sweeper and one timer, not one per query.
    #expect(Set(clock.sleepers.map(\.wait)) == [.garbageCheck, .refetchInterval])
    #expect(clock.sleeperCount == 2)
    #expect(store.state.withLock { $0.intervals.timers.count } == 1)
    store.remove(.all)
    #expect(store.tick(timer(clock)) == nil)  // No query left: the timer stops.
    #expect(store.state.withLock { $0.intervals.timers.isEmpty })
  }

  @Test func anUnheldQueryThatRefetchesWhileUnheldStaysCachedPastItsGCTime() async throws {
    let clock = ManualClock()
    let fetcher = GatedFetcher()
    let store = SharedRegistry.current.queries
    _ = try await store.fetch(query(fetcher, options(clock, interval: Self.interval, whileUnheld: true)))
    // Ninety seconds unheld (gcTime is 60 s), refetched every 10 s.
    for expected in 2...10 {
      await clock.waitForSleepers(2)
      clock.advance(by: Self.interval)
      await waitUntil { fetcher.fetches.count == expected }
      await waitUntil { store.activity.wrappedValue.fetchingQueries == 0 }
    }
    #expect(store.contains(["post"]))
    #expect(store.cachedValue(for: ["post"], as: String.self) == "fetch 10")
  }

  // MARK: Intervals in the background

  @Test func anIntervalDoesNotRefetchWhileTheAppIsInactiveAndResumesItsBeatWhenActive() async {
    let clock = ManualClock()
    let fetcher = GatedFetcher()
    let focus = ManualFocus()
    let subscription = SharedRegistry.current.queries.refetch(onFocus: focus)
    let post = Shared(wrappedValue: OperationState<String>(), query(fetcher, options(clock, interval: Self.interval)))
    await waitForValue(post, "fetch 1")
    // The app goes to the background while the timer sleeps: its tick passes the query by.
    await clock.waitForSleepers(2)
    focus.setFocused(false)
    clock.advance(by: Self.interval)
    await clock.waitForSleepers(2)  // The timer ticked and sleeps again.
    clock.advance(by: Self.interval)
    await clock.waitForSleepers(2)
    #expect(fetcher.fetches.count == 1)
    #expect(post.wrappedValue.value == "fetch 1")
    // Active again (the value is fresh: the change itself refetches nothing): the next tick refetches.
    focus.setFocused(true)
    clock.advance(by: Self.interval)
    await waitUntil { post.wrappedValue.value != "fetch 1" }
    #expect(post.wrappedValue.value == "fetch 2")
    subscription.cancel()
  }

  @Test func aQueryThatRefetchesInTheBackgroundKeepsItsIntervalWhileTheAppIsInactive() async {
    let clock = ManualClock()
    let fetcher = GatedFetcher()
    let store = SharedRegistry.current.queries
    let focus = ManualFocus(isFocused: false)  // Inactive from the start: the status it starts with counts.
    let subscription = store.refetch(onFocus: focus)
    let background = Shared(
      wrappedValue: OperationState<String>(),
      query(["background"], fetcher, options(clock, interval: Self.interval, inBackground: true)))
    let foreground = Shared(
      wrappedValue: OperationState<String>(), query(["foreground"], fetcher, options(clock, interval: Self.interval)))
    await waitUntil { background.wrappedValue.value != nil && foreground.wrappedValue.value != nil }
    await waitUntil { store.activity.wrappedValue.fetchingQueries == 0 }
    #expect(store.tick(timer(clock)) == 1)
    await waitUntil { fetcher.fetches.count >= 3 }
    await waitUntil { store.activity.wrappedValue.fetchingQueries == 0 }
    #expect(fetcher.fetches.count == 3)
    #expect(background.wrappedValue.value == "fetch 3")
    // A source followed for other keys leaves these alone, and a cancelled one no longer counts.
    subscription.cancel()
    let other = store.refetch(onFocus: ManualFocus(isFocused: false), matching: ["other"])
    #expect(store.tick(timer(clock)) == 2)
    await waitUntil { fetcher.fetches.count >= 5 }
    other.cancel()
  }

  @Test func theAppBecomingActiveDuringAFetchLetsTheNextTickJoinIt() async {
    let clock = ManualClock()
    let fetcher = GatedFetcher()
    let store = SharedRegistry.current.queries
    let focus = ManualFocus()
    let subscription = store.refetch(onFocus: focus)
    let post = Shared(
      wrappedValue: OperationState<String>(), query(fetcher, options(clock, onFocus: .never, interval: Self.interval)))
    await waitForValue(post, "fetch 1")
    focus.setFocused(false)
    let gate = fetcher.hold()
    #expect(store.refetch(["post"]))
    await waitUntil { fetcher.fetches.count == 2 }
    #expect(store.tick(timer(clock)) == 0)  // Inactive: the tick passes the fetch under way by.
    focus.setFocused(true)
    _ = store.tick(timer(clock))  // Active: the tick joins the fetch under way instead of starting another.
    gate.open()
    await waitForValue(post, "fetch 2")
    await waitUntil { store.activity.wrappedValue.fetchingQueries == 0 }
    #expect(fetcher.fetches.count == 2)
    #expect(store.tick(timer(clock)) == 1)
    await waitForValue(post, "fetch 3")
    subscription.cancel()
  }

  @Test func aQueryMadeAgainWithAnotherIntervalWhileTheAppIsInactiveWaitsForItToBeActive() async {
    let clock = ManualClock()
    let fetcher = GatedFetcher()
    let store = SharedRegistry.current.queries
    let focus = ManualFocus()
    let subscription = store.refetch(onFocus: focus)
    var post: Shared<OperationState<String>>? = Shared(
      wrappedValue: OperationState<String>(), query(fetcher, options(clock, interval: Self.interval)))
    if let post { await waitForValue(post, "fetch 1") }
    focus.setFocused(false)
    post = nil
    store.remove(.all)
    let shorter = Duration.seconds(5)
    let again = Shared(
      wrappedValue: OperationState<String>(), query(fetcher, options(clock, interval: shorter)))
    await waitForValue(again, "fetch 2")
    await waitUntil { store.activity.wrappedValue.fetchingQueries == 0 }
    let timer = QueryIntervalKey(clock: QueryClockKey(clock), interval: shorter)
    #expect(store.tick(timer) == 0)
    #expect(store.tick(self.timer(clock)) == nil)  // The old interval's timer has no query left.
    focus.setFocused(true)
    #expect(store.tick(timer) == 1)
    await waitForValue(again, "fetch 3")
    subscription.cancel()
  }

  // MARK: Reconnect and focus

  @Test func eachConditionDecidesWhatAReconnectRefetches() async {
    let clock = ManualClock()
    let fetcher = GatedFetcher()
    let store = SharedRegistry.current.queries
    let always = Shared(
      wrappedValue: OperationState<String>(), query(["always"], fetcher, options(clock, onReconnect: .always)))
    let stale = Shared(wrappedValue: OperationState<String>(), query(["stale"], fetcher, options(clock)))
    let never = Shared(
      wrappedValue: OperationState<String>(), query(["never"], fetcher, options(clock, onReconnect: .never)))
    await waitUntil { fetcher.fetches.count == 3 }
    await waitUntil { store.activity.wrappedValue.fetchingQueries == 0 }
    // All fresh: only `.always` refetches.
    #expect(store.trigger(.reconnect, matching: []) == 1)
    await waitUntil { fetcher.fetches.count == 4 }
    await waitUntil { store.activity.wrappedValue.fetchingQueries == 0 }
    clock.advance(by: Self.staleTime)
    // All stale: `.always` and `.ifStale`; `.never` never does.
    #expect(store.trigger(.reconnect, matching: []) == 2)
    await waitUntil { fetcher.fetches.count == 6 }
    await waitUntil { store.activity.wrappedValue.fetchingQueries == 0 }
    #expect(store.trigger(.reconnect, matching: ["never"]) == 0)
    withExtendedLifetime((always, stale, never)) {}
  }

  @Test func eachConditionDecidesWhatTheAppBecomingActiveRefetches() async {
    let clock = ManualClock()
    let fetcher = GatedFetcher()
    let store = SharedRegistry.current.queries
    let always = Shared(
      wrappedValue: OperationState<String>(), query(["always"], fetcher, options(clock, onFocus: .always)))
    let never = Shared(
      wrappedValue: OperationState<String>(), query(["never"], fetcher, options(clock, onFocus: .never)))
    await waitUntil { fetcher.fetches.count == 2 }
    await waitUntil { store.activity.wrappedValue.fetchingQueries == 0 }
    clock.advance(by: Self.staleTime)
    #expect(store.trigger(.focus, matching: []) == 1)
    await waitUntil { fetcher.fetches.count == 3 }
    await waitUntil { store.activity.wrappedValue.fetchingQueries == 0 }
    // A reconnect reads its own option: both refetch if stale.
    #expect(store.trigger(.reconnect, matching: []) == 1)  // `always` was just refetched: fresh.
    withExtendedLifetime((always, never)) {}
  }

  @Test func aReconnectOfTheStoresOnlineStatusRefetchesTheHeldStaleQueries() async {
    let clock = ManualClock()
    let fetcher = GatedFetcher()
    let network = ManualOnlineStatus()
    SharedRegistry.current.queries.onlineStatus = network
    let post = Shared(wrappedValue: OperationState<String>(), query(fetcher, options(clock)))
    let other = Shared(
      wrappedValue: OperationState<String>(), query(["other"], fetcher, options(clock, onReconnect: .never)))
    await waitUntil { post.wrappedValue.value != nil && other.wrappedValue.value != nil }
    clock.advance(by: Self.staleTime)
    network.setOnline(false)
    network.setOnline(true)
    await waitUntil { fetcher.fetches.count == 3 }
    await waitUntil { post.wrappedValue.value == "fetch 3" || other.wrappedValue.value == "fetch 3" }
    #expect(post.wrappedValue.value == "fetch 3")  // `.ifStale`; `other` says `.never`.
    #expect(network.isOnline)
  }

  @Test func theAppBecomingActiveRefetchesThroughItsNotifications() async {
    let clock = ManualClock()
    let fetcher = GatedFetcher()
    let center = NotificationCenter()
    let active = Notification.Name("test.active")
    let inactive = Notification.Name("test.inactive")
    let focus = ApplicationFocus(becameActive: active, resignedActive: inactive, center: center)
    let subscription = SharedRegistry.current.queries.refetch(onFocus: focus)
    let post = Shared(wrappedValue: OperationState<String>(), query(fetcher, options(clock, onFocus: .always)))
    await waitForValue(post, "fetch 1")
    #expect(focus.isFocused)
    center.post(name: inactive, object: nil)
    #expect(!focus.isFocused)
    center.post(name: active, object: nil)
    #expect(focus.isFocused)
    await waitForValue(post, "fetch 2")
    subscription.cancel()
  }

  @Test func aStatusSourceTellsEachIterationItsStatusThenEveryChangeOnce() async {
    let network = ManualOnlineStatus(isOnline: false)
    var statuses = network.onlineStatuses().makeAsyncIterator()
    network.setOnline(false)  // No change: not told.
    network.setOnline(true)
    network.setOnline(true)
    network.setOnline(false)
    #expect(await statuses.next() == false)
    #expect(await statuses.next() == true)
    #expect(await statuses.next() == false)
    let focus = ManualFocus()
    var focusStatuses = focus.focusStatuses().makeAsyncIterator()
    focus.setFocused(false)
    #expect(await focusStatuses.next() == true)
    #expect(await focusStatuses.next() == false)
  }

  // MARK: New holders

  @Test func aNewHolderRefetchesAFreshValueOnlyIfItsQueryAlwaysRefetches() async {
    let clock = ManualClock()
    let fetcher = GatedFetcher()
    let first = Shared(wrappedValue: OperationState<String>(), query(fetcher, options(clock, onHolder: .always)))
    await waitForValue(first, "fetch 1")
    let gate = fetcher.hold()
    let second = Shared(wrappedValue: OperationState<String>(), query(fetcher, options(clock, onHolder: .always)))
    #expect(second.wrappedValue.isFetching)  // Fresh, and refetched all the same.
    gate.open()
    await waitForValue(second, "fetch 2")
  }

  @Test func aNewHolderShowsAStaleValueWithoutRefetchingIfItsQueryNeverRefetches() async {
    let clock = ManualClock()
    let fetcher = GatedFetcher()
    let stale = Shared(wrappedValue: OperationState<String>(), query(["stale"], fetcher, options(clock)))
    let never = Shared(
      wrappedValue: OperationState<String>(), query(["never"], fetcher, options(clock, onHolder: .never)))
    await waitUntil { stale.wrappedValue.value != nil && never.wrappedValue.value != nil }
    await waitUntil { SharedRegistry.current.queries.activity.wrappedValue.fetchingQueries == 0 }
    clock.advance(by: Self.staleTime)
    let gate = fetcher.hold()
    let staleAgain = Shared(wrappedValue: OperationState<String>(), query(["stale"], fetcher, options(clock)))
    let neverAgain = Shared(
      wrappedValue: OperationState<String>(), query(["never"], fetcher, options(clock, onHolder: .never)))
    #expect(staleAgain.wrappedValue.isFetching)  // The default: a stale value is refetched.
    #expect(!neverAgain.wrappedValue.isFetching)
    #expect(neverAgain.wrappedValue.value != nil)
    // Invalidated, it is refetched by its next holder all the same.
    SharedRegistry.current.queries.invalidate(.exactly(["never"]), refetching: .none)
    let afterInvalidation = Shared(
      wrappedValue: OperationState<String>(), query(["never"], fetcher, options(clock, onHolder: .never)))
    #expect(afterInvalidation.wrappedValue.isFetching)
    gate.open()
    withExtendedLifetime((never, stale)) {}
  }

  @Test func aNewHolderOfAQueryNeverFetchedFetchesItWhateverItsCondition() async {
    let clock = ManualClock()
    let fetcher = GatedFetcher()
    let post = Shared(wrappedValue: OperationState<String>(), query(fetcher, options(clock, onHolder: .never)))
    await waitForValue(post, "fetch 1")
  }

  // MARK: Staleness

  @Test func aQueryIsStaleWhenMissingInvalidatedOrOlderThanItsStaleTime() async throws {
    let clock = ManualClock()
    let fetcher = GatedFetcher()
    let store = SharedRegistry.current.queries
    #expect(store.isStale(["post"]) == nil)  // Not cached.
    let gate = fetcher.hold()
    let post = Shared(wrappedValue: OperationState<String>(), query(fetcher, options(clock)))
    #expect(store.isStale(["post"]) == true)  // Nothing fetched yet.
    #expect(post.isStale == true)
    gate.open()
    await waitForValue(post, "fetch 1")
    await waitUntil { store.activity.wrappedValue.fetchingQueries == 0 }
    #expect(store.isStale(["post"]) == false)
    #expect(post.isStale == false)
    clock.advance(by: Self.staleTime - .nanoseconds(1))
    #expect(store.isStale(["post"]) == false)
    clock.advance(by: .nanoseconds(1))
    #expect(store.isStale(["post"]) == true)
    #expect(post.isStale == true)
    _ = try await post.fetchValue()
    #expect(post.isStale == false)
    store.invalidate(.exactly(["post"]), refetching: .none)
    #expect(post.isStale == true)
    let plain = Shared(value: OperationState<String>())
    #expect(plain.isStale == nil)  // Not a query's value.
  }
}
