import TestSupport
import Testing

@testable import SharedState

/// The events the interleaving tests put in every order.
private enum HolderEvent: CaseIterable, CustomStringConvertible {
  /// `load(_:)` of a new key: the machine moves, and the new query's first reading is queued.
  case load
  /// The held query gets a new value (a fetch returned); an observer call is queued.
  case write
  /// The held query loses its value (a reset); an observer call is queued.
  case clear
  /// A query the holder left changes; the observer call it had queued before it was let go arrives later.
  case writeLeft
  /// The oldest queued observer call runs: it reads the held query under the holder's lock.
  case deliverOldest
  /// The newest queued observer call runs first (calls from two writers race).
  case deliverNewest
  /// The oldest decision is written into what shows.
  case publishOldest
  /// The newest decision is written first (two writes race after the lock).
  case publishNewest

  var description: String {
    switch self {
    case .load: "load"
    case .write: "write"
    case .clear: "clear"
    case .writeLeft: "writeLeft"
    case .deliverOldest: "deliverOldest"
    case .deliverNewest: "deliverNewest"
    case .publishOldest: "publishOldest"
    case .publishNewest: "publishNewest"
    }
  }
}

/// A ``QueryHolder`` driven through its ``QueryHolderMachine`` the way the holder drives it, with its racing
/// observer calls and writes made explicit steps that run in any order.
private struct HolderHarness {
  typealias Machine = QueryHolderMachine<String>

  var machine: Machine
  /// The state of each key's query, by key; the last is the held one.
  var keys: [OperationState<String>] = [OperationState()]
  /// The generation each key was held in.
  var generations: [Machine.Generation] = []
  /// Whether each key has had a value since it was loaded.
  var everHadValue: [Bool] = [false]
  /// The value the held key is expected to show while it has none, when that is certain.
  var expectedPrevious: String?
  var version = 0
  var calls: [Machine.Generation] = []
  var publications: [Machine.Publication] = []
  var shown: ShownState<String>
  var lastWritten: UInt64 = 0
  var failures: [String] = []
  let trace: String

  init(trace: String, keepsPreviousValue: Bool, placeholder: String?) {
    self.trace = trace
    machine = Machine(keepsPreviousValue: keepsPreviousValue, placeholder: placeholder)
    shown = ShownState(OperationState(), placeholder: placeholder)
    let (generation, released) = machine.moved(leaving: nil)
    if released != nil { fail("released a previous value on the first load") }
    generations.append(generation)
    calls.append(generation)
  }

  mutating func fail(_ message: String) {
    // The search of every ordering names the events itself.
    failures.append(trace.isEmpty ? message : "\(message) after [\(trace)]")
  }

  var held: Int { keys.count - 1 }

  mutating func apply(_ event: HolderEvent) {
    switch event {
    case .load:
      let left = keys[held]
      let (generation, _) = machine.moved(leaving: left)
      if machine.keepsPreviousValue {
        if let value = left.value {
          expectedPrevious = value
        } else if everHadValue[held] {
          expectedPrevious = nil  // Uncertain: the left key's value came and went.
        }
      }
      keys.append(OperationState())
      everHadValue.append(false)
      generations.append(generation)
      calls.append(generation)
    case .write:
      version += 1
      keys[held].value = "key \(held) v\(version)"
      keys[held].status = .success
      everHadValue[held] = true
      calls.append(generations[held])
    case .clear:
      keys[held] = OperationState()
      calls.append(generations[held])
    case .writeLeft:
      guard held > 0 else { return }
      version += 1
      keys[held - 1].value = "key \(held - 1) v\(version)"
      calls.append(generations[held - 1])
    case .deliverOldest:
      guard !calls.isEmpty else { return }
      deliver(calls.removeFirst())
    case .deliverNewest:
      guard let generation = calls.popLast() else { return }
      deliver(generation)
    case .publishOldest:
      guard !publications.isEmpty else { return }
      publish(publications.removeFirst())
    case .publishNewest:
      guard let publication = publications.popLast() else { return }
      publish(publication)
    }
  }

  /// An observer call of `generation`: the holder reads the held query only if it is still that generation's.
  mutating func deliver(_ generation: Machine.Generation) {
    guard machine.generation == generation else {
      if machine.changed(generation, state: keys[held]).publication != nil {
        fail("decided on a change of generation \(generation), left for \(machine.generation)")
      }
      return
    }
    let (publication, _) = machine.changed(generation, state: keys[held])
    guard let publication else {
      fail("ignored a change of the held generation \(generation)")
      return
    }
    publications.append(publication)
  }

  mutating func publish(_ publication: Machine.Publication) {
    guard publication.sequence > lastWritten else { return }
    lastWritten = publication.sequence
    shown = publication.shown
  }

  /// Every queued call and write runs; then what shows is the held query's state, with the right value.
  mutating func settleAndCheck() {
    while !calls.isEmpty || !publications.isEmpty {
      if !calls.isEmpty { deliver(calls.removeFirst()) } else { publish(publications.removeFirst()) }
    }
    // A last reading of the held query, as its next change would bring: what shows must not depend on it.
    let before = shown
    deliver(generations[held])
    if let last = publications.popLast() { publish(last) }
    if shown.state != before.state || shown.value != before.value || shown.isPlaceholder != before.isPlaceholder {
      fail("what shows was not the held query's latest: \(before), then \(shown)")
    }
    if shown.state != keys[held] { fail("shows the state \(shown.state), the held query has \(keys[held])") }
    if let value = keys[held].value {
      if shown.value != value || shown.isPlaceholder { fail("shows \(shown), the held query has \(value)") }
      if machine.previous != nil { fail("keeps a previous value while the held query has its own") }
      return
    }
    if shown.isPlaceholder != (shown.value != nil) {
      fail("a value of its own flagged, or a placeholder not: \(shown)")
    }
    if !machine.keepsPreviousValue, shown.value != machine.placeholder {
      fail("shows \(shown) with no previous value kept")
    }
    if let expectedPrevious, !everHadValue[held], shown.value != expectedPrevious {
      fail("shows \(String(describing: shown.value)) while the new key loads, not the previous \(expectedPrevious)")
    }
    if let value = shown.value, value != machine.placeholder, value.hasPrefix("key \(held) ") {
      fail("shows the held key's own value \(value) as a placeholder")
    }
  }
}

/// Every ordering of a moving holder's events up to a small depth: what shows ends as the held query's latest
/// state, with the previous key's value (flagged) while the new key loads, whatever order the observer calls and
/// writes race in.
@Suite(.offTheCooperativePool, .disabled(if: isThreadSanitizerBuild, "single-threaded search"))
struct QueryHolderMachineTests {
  /// Every sequence of `depth` holder events, each settled and checked; at most 20 failures.
  private func explore(depth: Int, keepsPreviousValue: Bool, placeholder: String?) -> OrderingSearch {
    searchEveryOrdering(
      from: HolderHarness(trace: "", keepsPreviousValue: keepsPreviousValue, placeholder: placeholder),
      depth: depth,
      events: { _ in HolderEvent.allCases },
      apply: { harness, event in
        harness.apply(event)
        return nil
      },
      atEnd: { harness in
        var leaf = harness
        leaf.settleAndCheck()
        return leaf.failures
      },
      failureLimit: 20)
  }

  @Test func everyOrderingOfSixEventsKeepingThePreviousValueEndsOnTheHeldQuery() {
    let search = explore(depth: 6, keepsPreviousValue: true, placeholder: nil)
    #expect(search.orderings == 262_144)
    #expect(search.failures.isEmpty, "\(search.failures.prefix(5).joined(separator: "\n"))")
  }

  @Test func everyOrderingOfFiveEventsWithAPlaceholderAndNoPreviousValueEndsOnTheHeldQuery() {
    let search = explore(depth: 5, keepsPreviousValue: false, placeholder: "placeholder")
    #expect(search.orderings == 32_768)
    #expect(search.failures.isEmpty, "\(search.failures.prefix(5).joined(separator: "\n"))")
  }

  @Test func everyOrderingOfFiveEventsWithAPlaceholderAndThePreviousValueEndsOnTheHeldQuery() {
    let search = explore(depth: 5, keepsPreviousValue: true, placeholder: "placeholder")
    #expect(search.orderings == 32_768)
    #expect(search.failures.isEmpty, "\(search.failures.prefix(5).joined(separator: "\n"))")
  }

  @Test func theNewKeysValueReplacesThePreviousOneWhichIsLetGo() {
    var machine = QueryHolderMachine<String>(keepsPreviousValue: true, placeholder: "…")
    let (first, _) = machine.moved(leaving: nil)
    #expect(machine.changed(first, state: OperationState()).publication?.shown.value == "…")
    let (second, _) = machine.moved(leaving: OperationState(value: "page 1"))
    let loading = machine.changed(second, state: OperationState()).publication?.shown
    #expect(loading?.value == "page 1")
    #expect(loading?.isPlaceholder == true)
    #expect(machine.changed(first, state: OperationState(value: "late")).publication == nil)  // Left: ignored.
    let (loaded, released) = machine.changed(second, state: OperationState(value: "page 2"))
    #expect(loaded?.shown.value == "page 2")
    #expect(loaded?.shown.isPlaceholder == false)
    #expect(released == "page 1")
    #expect(machine.previous == nil)
  }
}
