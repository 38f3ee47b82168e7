import TestSupport
import Testing

@testable import SharedState

/// Real runs on one shared value, started, ended and cancelled in seeded-random orders, checked end to end.
extension SharedOperationsTests {
  private static let seeds: Range<UInt64> = 0..<60

  @Test(arguments: [
    OperationPolicy.parallel, .cancelPrevious, .dedupe, .serial, .debounce(.seconds(1)),
    .debounceCancellingPrevious(.seconds(1)),
  ])
  func everyRunGetsItsCallbacksOnceAndInOrderAndTheStateFollowsTheLatestRun(policy: OperationPolicy) async {
    for seed in Self.seeds {
      if let problem = await Self.play(policy: policy, seed: seed) {
        Issue.record("policy \(policy), seed \(seed): \(problem)")
        return
      }
    }
  }

  /// What one run did: its callbacks in order, and whether its operation was asked to fail.
  private final class RunLog: Sendable {
    let calls = Collector<String>()
  }

  /// Plays one seeded interleaving of four runs; returns a description of the first broken rule, if any.
  private static func play(policy: OperationPolicy, seed: UInt64) async -> String? {
    var random = SplitMix(seed: seed)
    let post = Shared(value: OperationState<Int>())
    let count = 4
    let gates = (0..<count).map { _ in Gate() }
    let fails = (0..<count).map { _ in Bool.random(using: &random) }
    let logs = (0..<count).map { _ in RunLog() }
    let clock = ManualClock()
    /// Runs whose operation began (a queued serial run, a waiting debounced one and a dedupe joiner have not).
    let operating = (0..<count).map { _ in Counter() }
    var tasks: [OperationTask<Int>?] = Array(repeating: nil, count: count)
    var started = 0
    var ended: Set<Int> = []
    var cancelled: Set<Int> = []
    // Each step starts the next run, lets one started run's operation end, or cancels a started run.
    while ended.count < count {
      var choices: [() -> Void] = []
      if started < count {
        choices.append {
          let index = started
          let log = logs[index]
          let gate = gates[index]
          let failsNow = fails[index]
          let began = operating[index]
          tasks[index] = post.run(.clock(clock), policy: policy) {
            began.increment()
            await gate.wait()
            if failsNow { throw TestFailure() }
            return index
          } onAttempt: {
            log.calls.append("attempt")
          } onSuccess: { _ in
            log.calls.append("success")
          } onError: { _ in
            log.calls.append("error")
          } onSettled: { result in
            if case .failure(let error) = result, error is CancellationError {
              log.calls.append("settled cancelled")
            } else {
              log.calls.append("settled")
            }
          }
          started += 1
        }
      }
      for index in 0..<started where !ended.contains(index) {
        choices.append {
          gates[index].open()
          ended.insert(index)
        }
        if !cancelled.contains(index) {
          choices.append {
            tasks[index]?.cancel()
            cancelled.insert(index)
          }
        }
      }
      switch policy {
      case .debounce(let interval), .debounceCancellingPrevious(let interval):
        choices.append { clock.advance(by: interval) }
      default:
        break
      }
      choices.randomElement(using: &random)!()
      for _ in 0..<Int.random(in: 0...3, using: &random) { await Task.yield() }
      if let problem = olderResultShownWhileANewerRunIsPending() { return problem }
    }
    // Debounced runs still waiting need their quiet time to pass.
    let ticker = Task {
      while !Task.isCancelled {
        clock.advance(by: .seconds(1))
        await Task.yield()
      }
    }
    for task in tasks { _ = await task?.result }
    ticker.cancel()

    /// The rule along the way: while a run whose operation is under way (begun, not let end, not cancelled) is
    /// pending, no older run's result is shown. Checked between steps, where such a run cannot have ended.
    func olderResultShownWhileANewerRunIsPending() -> String? {
      // Dedupe callers share executions; a superseded cancelPrevious run is cancelled by the newer one.
      guard policy != .dedupe else { return nil }
      var pending = (0..<started).filter {
        operating[$0].count > 0 && !ended.contains($0) && !cancelled.contains($0)
      }
      if policy == .cancelPrevious { pending = pending.filter { $0 == started - 1 } }
      // The rule applies when that run is the newest run not cancelled: no older run's result may show then.
      guard let newest = pending.max(), newest == (0..<started).filter({ !cancelled.contains($0) }).max() else {
        return nil
      }
      let state = post.wrappedValue
      if case .debounceCancellingPrevious = policy {
        // Shown as a refresh: fetching, keeping what the state showed (pending only for a first load).
        return state.isFetching && state.status != .idle
          ? nil : "run \(newest), the newest, runs, yet the state is \(state.status), fetching: \(state.isFetching)"
      }
      if state.status != .pending {
        return
          "run \(newest), the newest, is pending, yet the state is \(state.status) with \(String(describing: state.value))"
      }
      return nil
    }

    // Every run: onAttempt, then onSuccess or onError (neither if cancelled), then onSettled, once each.
    var outcomes: [String] = []
    for (index, log) in logs.enumerated() {
      let calls = log.calls.elements
      let valid = [
        ["attempt", "success", "settled"], ["attempt", "error", "settled"], ["attempt", "settled cancelled"],
      ]
      guard valid.contains(calls) else { return "run \(index) called \(calls)" }
      outcomes.append(calls[1])
    }
    if policy == .dedupe {
      // An execution every caller left ends when its operation returns (every gate is open by now).
      await waitUntil { post.wrappedValue.status != .pending }
    }
    let state = post.wrappedValue
    if state.status == .pending { return "every run settled, yet the state is pending" }
    if state.isFetching { return "every run settled, yet the state is fetching" }
    // Dedupe callers share one execution, whose result the state shows even when a caller left.
    guard policy != .dedupe else { return nil }
    // The state follows the most recently started run that was not cancelled.
    guard let latest = outcomes.lastIndex(where: { $0 != "settled cancelled" }) else {
      return state.status == .idle ? nil : "every run was cancelled, yet the status is \(state.status)"
    }
    switch outcomes[latest] {
    case "success":
      if state.status != .success || state.value != latest {
        return
          "run \(latest) succeeded last in start order, yet the state is \(state.status) with \(String(describing: state.value)) (\(outcomes))"
      }
    default:
      if state.status != .error {
        return "run \(latest) failed last in start order, yet the state is \(state.status) (\(outcomes))"
      }
    }
    return nil
  }
}
