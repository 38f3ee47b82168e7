@testable import SharedState

/// The instrument of the simulated app (see ``SharedInstrument``): each measurement of a fetch, a mutation run or a
/// save ends exactly once, no attempt runs after its measurement ended, and once an app relaunched and its work was
/// cancelled, every measurement it began has ended.
final class SimulationInstrument: SharedInstrument {
  private let state = Lock(State())

  private struct State {
    var open: [Int: String] = [:]
    var next = 0
    var problem: String?
  }

  /// The first broken promise heard, if any.
  var problem: String? { state.withLock { $0.problem } }

  /// The measurements begun and not ended, described.
  var openWork: [String] { state.withLock { $0.open.values.sorted() } }

  func begin(_ work: InstrumentedWork) -> any WorkMeasurement {
    let description = "\(work.kind.rawValue) \(work.name)"
    let id = state.withLock { state in
      state.next += 1
      state.open[state.next] = description
      return state.next
    }
    return Measurement(id: id, description: description, instrument: self)
  }

  fileprivate func attempted(_ id: Int, _ description: String, _ number: Int) {
    state.withLock { state in
      if state.open[id] == nil, state.problem == nil {
        state.problem = "attempt \(number) of the \(description) ran after its measurement ended"
      }
    }
  }

  fileprivate func ended(_ id: Int, _ description: String) {
    state.withLock { state in
      if state.open.removeValue(forKey: id) == nil, state.problem == nil {
        state.problem = "the measurement of the \(description) ended twice"
      }
    }
  }

  private struct Measurement: WorkMeasurement {
    let id: Int
    let description: String
    let instrument: SimulationInstrument

    func attempt<Success: Sendable>(_ number: Int, _ body: () async throws -> Success) async throws -> Success {
      instrument.attempted(id, description, number)
      return try await body()
    }

    func ended(_ outcome: InstrumentedOutcome) {
      instrument.ended(id, description)
    }
  }
}
