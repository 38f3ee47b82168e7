import Testing

@testable import Reactive

/// The state machine of a box's Observation, driven directly, without tasks. Its one event is a box's first tracked
/// read on a thread, through that thread's spare registrar; once the box has a registrar, its reads and changes go
/// to it without the machine.
@Suite struct ObservationStateTests {
  /// Six first tracked reads in turn (a race of six threads, each reading through its own spare), checking after
  /// each: the read registers with the box's registrar, which is the first spare and never changes; every spare
  /// handed in is kept exactly once, by the registrar or in `kept`, so that what trackings registered with it ends
  /// with the box; a change is told to the registrar reads registered with.
  @Test func firstTrackedReadsKeepEverySpareOnce() {
    var state = ObservationState.untracked
    #expect(state.registrar == nil, "an untracked box tells a change to a registrar")
    var spares: [RegistrarHolder] = []
    for read in 1...6 {
      let step = "after \(read) reads"
      let spare = RegistrarHolder()
      spares.append(spare)
      let action = state.trackedRead(through: spare)
      guard case .register(let with) = action else { return }
      #expect(with === spares[0], "a read registered with another registrar than the first spare \(step)")
      #expect(state.registrar === spares[0], "a change is told to another registrar \(step)")
      guard case .tracked(let current, let kept) = state else {
        Issue.record("a tracked read left the box untracked \(step)")
        return
      }
      let held = [current] + kept
      for spare in spares {
        #expect(held.filter { $0 === spare }.count == 1, "a spare is not kept exactly once \(step)")
      }
      #expect(held.count == spares.count, "a registrar is kept that no read handed in \(step)")
    }
  }

  /// A box whose tracked reads cannot be told apart starts out tracked, with the registrar it was made with.
  @Test func aBoxMadeWithARegistrarStartsOutTracked() {
    let registrar = RegistrarHolder()
    let state = BoxState(value: 0, registrar: registrar)
    #expect(state.observation.registrar === registrar)
    #expect(BoxState(value: 0).observation.registrar == nil)
  }
}
