/// The rules of debounced mutations (`.debounce` and `.debounceCancellingPrevious`, as `OperationPolicy` documents
/// them): a run that a later run of the same state follows within the quiet time never runs (it never reaches the
/// server, and ends cancelled, its optimistic change dropped); with `.debounceCancellingPrevious`, at most one run of
/// a state is in flight.
///
/// Whether a dropped run ends at once or when the later one starts is not said, so until it ends its change may or
/// may not show (the model marks it either way).
struct SimulationDebounceModel {
  /// Each state's newest debounced run and when it was made.
  var newest: [Int: (mutation: Int, madeAt: Duration)] = [:]
  /// The runs a later one followed within the quiet time.
  var dropped: Set<Int> = []
  /// Every debounced run, and its policy.
  var policies: [Int: SimulatedPolicy] = [:]

  /// A run is made: returns the run it drops, if any.
  mutating func made(_ mutation: Int, state: Int, policy: SimulatedPolicy, now: Duration) -> Int? {
    guard policy.isDebounced else {
      newest[state] = nil
      return nil
    }
    policies[mutation] = policy
    defer { newest[state] = (mutation, now) }
    guard let previous = newest[state], now < previous.madeAt + SimulationSetup.debounceInterval,
      policies[previous.mutation] == policy
    else { return nil }
    dropped.insert(previous.mutation)
    return previous.mutation
  }

  /// The app ends: its runs were cancelled.
  mutating func relaunch() {
    newest = [:]
  }

  /// The broken rule, if any, given what reached the server, what is in flight there, and how runs ended.
  func broken(
    called: [Int: Int], inFlight: [Int], stateOf: (Int) -> Int, succeeded: [Int]
  ) -> String? {
    for mutation in dropped.sorted() where called[mutation] != nil {
      return "mutation \(mutation), followed by a later run within the quiet time, reached the server"
    }
    for mutation in succeeded where dropped.contains(mutation) {
      return "mutation \(mutation), followed by a later run within the quiet time, succeeded"
    }
    var flying: [Int: [Int]] = [:]
    for mutation in inFlight where policies[mutation] == .debounceCancellingPrevious {
      flying[stateOf(mutation), default: []].append(mutation)
    }
    for (state, mutations) in flying where mutations.count > 1 {
      return "m\(state) (debounceCancellingPrevious) has \(mutations.count) runs in flight: \(mutations.sorted())"
    }
    return nil
  }
}
