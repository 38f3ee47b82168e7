import TestSupport
import Testing

@testable import Reactive

/// The state machine of a box's Observation, driven directly over every ordering of its events, without tasks.
// A search of one value type on one thread: off the cooperative pool so that it holds none of its threads.
@Suite(.offTheCooperativePool) struct ObservationStateTests {
  enum Event: CaseIterable, CustomStringConvertible {
    /// A tracked read that went through a thread's spare registrar (the first tracked read on that thread).
    case readThroughSpare
    /// A tracked read of a box already marked tracked, through no spare.
    case read
    case change

    var description: String {
      switch self {
      case .readThroughSpare: "readThroughSpare"
      case .read: "read"
      case .change: "change"
      }
    }
  }

  /// Every sequence of up to six events (1,092 sequences), checking after each event: a tracked read leaves the box
  /// tracked and registers with its registrar; the registrar never changes once made; every spare handed in is kept
  /// exactly once, by the registrar or in `kept`, so that what trackings registered with it ends with the box; a
  /// change tells the registrar exactly when the box is tracked.
  @Test func everyOrderingOfReadsAndChangesUpToSixEvents() {
    var sequences: [[Event]] = [[]]
    var checked = 0
    for _ in 0..<6 {
      sequences = sequences.flatMap { sequence in Event.allCases.map { sequence + [$0] } }
      for sequence in sequences {
        check(sequence)
        checked += 1
      }
    }
    #expect(checked == 3 + 9 + 27 + 81 + 243 + 729)
  }

  private func check(_ events: [Event]) {
    var state = ObservationState.untracked
    var spares: [RegistrarHolder] = []
    var registrar: RegistrarHolder?
    for (index, event) in events.enumerated() {
      let step = "after \(events[...index])"
      switch event {
      case .readThroughSpare, .read:
        let spare = event == .readThroughSpare ? RegistrarHolder() : nil
        if let spare { spares.append(spare) }
        let action = state.trackedRead(through: spare)
        guard case .register(let with) = action else { return }
        if let registrar {
          #expect(with === registrar, "the registrar changed \(step)")
        } else {
          registrar = with
          if let spare { #expect(with === spare, "the first spare did not become the registrar \(step)") }
        }
      case .change:
        switch state.changed() {
        case .tell(let told):
          #expect(told === registrar, "a change told another registrar \(step)")
        case .none:
          #expect(registrar == nil, "a change of a tracked box told nobody \(step)")
        }
      }
      guard case .tracked(let current, let kept) = state else {
        #expect(registrar == nil && spares.isEmpty, "a tracked read left the box untracked \(step)")
        continue
      }
      #expect(current === registrar, "the stored registrar is not the one reads registered with \(step)")
      let held = [current] + kept
      for spare in spares {
        #expect(held.filter { $0 === spare }.count == 1, "a spare is not kept exactly once \(step)")
      }
      #expect(held.count == spares.count + (spares.first === current ? 0 : 1), "a registrar is kept twice \(step)")
    }
  }
}
