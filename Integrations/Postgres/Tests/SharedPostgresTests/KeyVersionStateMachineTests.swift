import Foundation
import Testing

@testable import SharedPostgres

/// The machine that decides which stored versions reach memory, driven through every ordering of a save of this
/// instance, two announcements of other instances, and a load.
@Suite struct KeyVersionStateMachineTests {
  enum Event: Hashable, CustomStringConvertible {
    case saveStarted
    case saveFinished(written: Int64?)
    case announced(Int64)
    case loaded(Int64)

    var description: String {
      switch self {
      case .saveStarted: "saveStarted"
      case .saveFinished(let written): "saveFinished(\(written.map(String.init) ?? "failed"))"
      case .announced(let version): "announced(\(version))"
      case .loaded(let version): "loaded(\(version))"
      }
    }
  }

  /// Every ordering of `events` in which the save starts before it finishes.
  static func orderings(of events: [Event]) -> [[Event]] {
    guard !events.isEmpty else { return [[]] }
    var result: [[Event]] = []
    for (index, event) in events.enumerated() {
      if case .saveFinished = event, events.contains(.saveStarted) { continue }
      var rest = events
      rest.remove(at: index)
      result += orderings(of: rest).map { [event] + $0 }
    }
    return result
  }

  struct Run {
    var machine = KeyVersionStateMachine()
    /// The versions put in memory, in order.
    var applied: [Int64] = []
    var saving = false

    mutating func hear(_ change: StoredChange) {
      if case .apply(let change) = machine.notified(change) {
        #expect(!saving, "nothing is applied while a save runs")
        applied.append(change.version)
      }
    }

    mutating func perform(_ event: Event) {
      switch event {
      case .saveStarted:
        _ = machine.saveStarted()
        saving = true
      case .saveFinished(let written):
        saving = false
        let action = machine.saveFinished(written: written, memoryHoldsWritten: true)
        if case .redeliver(let change) = action { hear(change) }
      case .announced(let version):
        hear(StoredChange(version: version, json: Data("{}".utf8)))
      case .loaded(let version):
        machine.loaded(version: version)
      }
    }
  }

  @Test(arguments: [
    (Int64?.some(3), [Int64(2), 4]),
    (Int64?.some(5), [Int64(2), 4]),
    (Int64?.some(1), [Int64(2), 3]),
    (Int64?.none, [Int64(2), 4]),
    (Int64?.some(4), [Int64(4), 4]),
  ])
  func everyOrderingAppliesOnlyNewerVersionsAndEndsOnTheNewest(written: Int64?, announced: [Int64]) {
    let events: [Event] = [.saveStarted, .saveFinished(written: written), .loaded(1)] + announced.map(Event.announced)
    let orderings = Self.orderings(of: events)
    #expect(orderings.count == 60)
    for ordering in orderings {
      var run = Run()
      for event in ordering { run.perform(event) }
      let context = Comment(rawValue: "\(ordering)")
      // Never an older version over a newer one, nor the same one twice.
      #expect(run.applied == run.applied.sorted() && Set(run.applied).count == run.applied.count, context)
      // Nothing the save wrote, or older, is applied after the save finished.
      let newest = max(written ?? 0, announced.max() ?? 0, 1)
      #expect(run.machine.knownVersion == newest, context)
      #expect(run.machine.savesRunning == 0 && run.machine.held == nil, context)
      // The newest announcement reaches memory when it is newer than what this instance wrote.
      if let top = announced.max(), top > (written ?? 0), top > 1 {
        #expect(run.applied.last == top, context)
      }
      #expect(run.machine.lastSaveFailed == (written == nil), context)
    }
  }

  @Test func aMergeComparesAgainstTheVersionMemoryHolds() {
    var machine = KeyVersionStateMachine()
    machine.loaded(version: 2)
    var base = machine.saveStarted()
    #expect(base == 2)
    // A merged value that did not reach memory (the program changed it meanwhile) is not a base.
    var finished = machine.saveFinished(written: 3, memoryHoldsWritten: false)
    #expect(finished == .none)
    #expect(machine.knownVersion == 3)
    base = machine.saveStarted()
    #expect(base == 2)
    finished = machine.saveFinished(written: 4, memoryHoldsWritten: true)
    #expect(finished == .none)
    base = machine.saveStarted()
    #expect(base == 4)
    _ = machine.saveFinished(written: nil, memoryHoldsWritten: false)
    #expect(machine.lastSaveFailed)
  }

  @Test func anAnnouncementWithoutItsValueIsAppliedOnlyOnceItsRowIsRead() {
    var machine = KeyVersionStateMachine()
    let change = StoredChange(version: 3, json: nil)
    let first = machine.notified(change)
    #expect(first == .apply(change))
    #expect(machine.knownVersion == 0)
    let newer = machine.rowRead(version: 4)
    #expect(newer)
    let again = machine.rowRead(version: 4)
    #expect(!again)
    let older = machine.notified(StoredChange(version: 4, json: nil))
    #expect(older == .ignore)
  }
}
