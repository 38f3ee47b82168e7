import Testing

@testable import SharedState

/// Programs of 40 steps rather than 60, to keep the suite's time beside load near a minute.
extension StoreSimulationTests {
  /// Queries that refetch on an interval (held only, or unheld too, as the seed draws), among holders, edits,
  /// invalidation, removal, collection and network flaps: a tick refetches every query on the timer that has no
  /// fetch under way, once, and no unheld query unless it asks to be; none waits longer than an interval.
  @Test func refetchIntervals() async {
    let failure = await Self.firstFailure(SimulationFeatures(intervals: true, length: 40), shrinks: Self.isExploring)
    #expect(failure == nil, "\(failure ?? "")")
  }

  /// The app becoming active and inactive (a `ManualFocus` the store follows): becoming active refetches each held
  /// stale query, and nothing else.
  @Test func focusRefetches() async {
    let failure = await Self.firstFailure(SimulationFeatures(focus: true, length: 40), shrinks: Self.isExploring)
    #expect(failure == nil, "\(failure ?? "")")
  }

  /// Intervals while the app becomes active and inactive: an inactive app's ticks refetch nothing unless the queries
  /// refetch in the background (half the seeds), and once active, no query waits longer than an interval.
  @Test func refetchIntervalsInTheBackground() async {
    let features = SimulationFeatures(intervals: true, focus: true, length: 40)
    let failure = await Self.firstFailure(features, shrinks: Self.isExploring)
    #expect(failure == nil, "\(failure ?? "")")
  }

  /// Debounced optimistic mutations (`.debounce` on one mutation state, `.debounceCancellingPrevious` on the
  /// other) in bursts, among fetches, edits, invalidations and collection: only the last run of a burst reaches the
  /// server, the dropped runs' changes are dropped, and at most one `.debounceCancellingPrevious` run is in flight.
  @Test func debouncedMutations() async {
    let features = SimulationFeatures(
      mutations: true, policies: [.debounce, .debounceCancellingPrevious], policyPerState: true, length: 40)
    let failure = await Self.firstFailure(features, shrinks: Self.isExploring)
    #expect(failure == nil, "\(failure ?? "")")
  }
}
