import Testing

extension StoreSimulationTests {
  /// The mutation queue: entries queued with an optimistic change on a query, discarded, refused and retried,
  /// applied, flushed, and the app killed at any moment of a write of the queue's file, then launched again (a new
  /// registry and a new queue from the file's bytes as the kill left them, before or after the persisted query cache
  /// as the seed chooses, before any holder). Acknowledged entries (saved, or flushed) are read back and run; an entry runs again only after a
  /// restart, first and once; a discard that was written is never undone; entries run in order; a queued entry's
  /// change shows over the confirmed value until it leaves, after a relaunch too; the queue never stalls online.
  /// Entries of q1 give up after 1 refused attempt, of q2 after 2: a given-up entry never runs again, its change is undone,
  /// the entries behind it go on, it can be discarded, and no entry runs more than its attempts and one more,
  /// whatever the kills.
  @Test func mutationQueueAndCrashes() async {
    let features = SimulationFeatures(relaunches: true, holderEdits: false, queue: true)
    let failure = await Self.firstFailure(features)
    #expect(failure == nil, "\(failure ?? "")")
  }
}
