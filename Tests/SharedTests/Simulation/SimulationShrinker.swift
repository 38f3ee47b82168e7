/// Shrinks a failing program to a small one that fails the same way (delta debugging).
///
/// It drops chunks of steps, halving the chunk size while nothing can be dropped, then single steps, keeping each
/// smaller program that still breaks the same invariant (the failure's text with its step number left out, so a
/// shrunk program does not drift to another defect).
enum SimulationShrinker {
  static func shrink(
    _ program: SimulationProgram, failure: SimulationFailure, maxRuns: Int = 400
  ) async -> (program: SimulationProgram, failure: SimulationFailure) {
    var steps = program.steps
    var kept = failure
    // The steps after the failing one play no part.
    let prefix = Array(steps.prefix(failure.step))
    if prefix.count < steps.count,
      let failure = await SimulationRunner.run(
        SimulationProgram(seed: program.seed, setup: program.setup, steps: prefix), settleGuard: .milliseconds(300)),
      failure.kind == kept.kind
    {
      steps = prefix
      kept = failure
    }
    var runs = 0

    func failsTheSameWay(_ candidate: [SimulationStep]) async -> SimulationFailure? {
      runs += 1
      let trial = SimulationProgram(seed: program.seed, setup: program.setup, steps: candidate)
      // A program that fails breaks its invariant at once: a short guard keeps each trial quick.
      guard let failure = await SimulationRunner.run(trial, settleGuard: .milliseconds(300)),
        failure.kind == kept.kind
      else {
        return nil
      }
      return failure
    }

    var chunks = 2
    while steps.count >= 2 && runs < maxRuns {
      let size = max(1, steps.count / chunks)
      var start = 0
      var dropped = false
      while start < steps.count && runs < maxRuns {
        var candidate = steps
        candidate.removeSubrange(start..<min(start + size, steps.count))
        if let failure = await failsTheSameWay(candidate) {
          steps = Array(candidate.prefix(failure.step))
          kept = failure
          dropped = true
        } else {
          start += size
        }
      }
      if dropped {
        chunks = max(chunks - 1, 2)
      } else if size == 1 {
        break
      } else {
        chunks = min(chunks * 2, steps.count)
      }
    }
    return (SimulationProgram(seed: program.seed, setup: program.setup, steps: steps), kept)
  }
}
