import Testing

/// Programs of 40 steps, to keep the suite's time near a minute beside load.
extension StoreSimulationTests {
  /// A list of queries (`QueriesHolder`) loading lists that overlap, among holders, edits, invalidation, removal,
  /// collection and network flaps: a query in both lists keeps its holder and is not fetched again, one only in the
  /// new list is held (fetched if stale), one only in the old list is let go, and the list combines what its
  /// queries show.
  @Test func queryLists() async {
    let failure = await Self.firstFailure(SimulationFeatures(holderLists: true, length: 40), shrinks: Self.isExploring)
    #expect(failure == nil, "\(failure ?? "")")
  }

  /// Observers of values derived from holders (a member, a selection, a reader's member, an unwrapped member), some
  /// registered while another write changes the value (the derived getter's first run makes it, exactly where a
  /// registration that reads its starting value through the getters would leave a gap) and then changes it back:
  /// after every step each observer stands at the derived value now, so it heard every change, a change back
  /// included.
  @Test func derivedObservers() async {
    let features = SimulationFeatures(holderLists: true, derivedObservers: true, length: 40)
    let failure = await Self.firstFailure(features, shrinks: Self.isExploring)
    #expect(failure == nil, "\(failure ?? "")")
  }

  /// The inspector forcing held queries into an error or loading, refetching them (answered at once) and
  /// restoring them, among the other steps: a restore never shows a value older than the confirmed one, and a
  /// query restored shows what the model confirmed.
  @Test func inspectorForcesAndRestores() async {
    let failure = await Self.firstFailure(SimulationFeatures(inspector: true, length: 40), shrinks: Self.isExploring)
    #expect(failure == nil, "\(failure ?? "")")
  }
}
