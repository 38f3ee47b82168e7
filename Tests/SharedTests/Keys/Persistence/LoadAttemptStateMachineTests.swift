import TestSupport
import Testing

@testable import SharedState

/// One call of a key's load, modelled: the key may resume its continuation any number of times, before or after the
/// call returns, and drop its last copy at any point after the call returned (the framework keeps a copy until then).
private struct Attempt: OrderedWorld {
  typealias Machine = LoadAttemptStateMachine<Int>

  enum Event: Hashable, CustomStringConvertible {
    case resume(Int)
    case returns
    case drop

    var description: String {
      switch self {
      case .resume(let outcome): "resume(\(outcome))"
      case .returns: "return"
      case .drop: "drop"
      }
    }
  }

  /// What the load ended with, as the persistence hears it.
  enum Ending: Equatable {
    case synchronous(Int)
    case asynchronous(Int)
    case dropped
  }

  var machine = Machine()
  var resumesLeft: Int
  var returned = false
  var droppedAll = false
  var firstResume: (outcome: Int, beforeReturn: Bool)?
  var endings: [Ending] = []
  var trace: [Event] = []
  var failure: String?

  var enabled: [Event] {
    guard !droppedAll else { return [] }
    var events: [Event] = []
    if resumesLeft > 0 { events.append(.resume(resumesLeft)) }
    if !returned { events.append(.returns) } else { events.append(.drop) }
    return events
  }

  mutating func apply(_ event: Event) {
    trace.append(event)
    switch event {
    case .resume(let outcome):
      resumesLeft -= 1
      if firstResume == nil { firstResume = (outcome, !returned) }
      switch machine.resumed(outcome) {
      case .keep:
        if returned { fail("a resume after the return was kept instead of delivered") }
      case .deliver(let delivered):
        endings.append(.asynchronous(delivered))
      case .ignore:
        if firstResume?.outcome == outcome { fail("the first resume was ignored") }
      }
    case .returns:
      returned = true
      switch machine.loadReturned() {
      case .synchronous(let outcome): endings.append(.synchronous(outcome))
      case .asynchronous: break
      }
    case .drop:
      droppedAll = true
      if machine.dropped() { endings.append(.dropped) }
    }
  }

  mutating func fail(_ message: String) {
    if failure == nil { failure = "\(message) after \(trace)" }
  }

  /// Once the continuation is gone: exactly one ending, the first resume's outcome if there was one, synchronous
  /// exactly when that resume came before the return.
  mutating func checkEnded() {
    guard endings.count == 1, let ending = endings.first else {
      return fail("the load ended \(endings.count) times: \(endings)")
    }
    switch firstResume {
    case nil:
      if ending != .dropped { fail("a load never resumed ended with \(ending)") }
    case (let outcome, true)?:
      if ending != .synchronous(outcome) { fail("a load resumed during the call ended with \(ending)") }
    case (let outcome, false)?:
      if ending != .asynchronous(outcome) { fail("a load resumed after the call ended with \(ending)") }
    }
  }
}

@Suite struct LoadAttemptStateMachineTests {
  private func explore(_ attempt: Attempt) -> (orderings: Int, failure: String?) {
    searchEveryOrdering(of: attempt) { $0.checkEnded() }
  }

  /// Every ordering of up to three resumes, the call's return and the drop of the last copy ends the load exactly
  /// once, with the first resume's outcome (synchronously when it came before the return), or as dropped.
  @Test(arguments: 0...3) func everyOrderingEndsTheLoadExactlyOnce(resumes: Int) {
    let (orderings, failure) = explore(Attempt(resumesLeft: resumes))
    #expect(failure == nil, "\(failure ?? "")")
    #expect(orderings == [1, 3, 6, 10][resumes])
  }
}
