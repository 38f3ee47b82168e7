/// The spread of repeated timings of one scenario, in nanoseconds per operation.
struct Measurement {
  let samples: [Double]

  init(samples: [Double]) {
    self.samples = samples.sorted()
  }

  var median: Double { percentile(0.5) }
  var p10: Double { percentile(0.1) }
  var p90: Double { percentile(0.9) }

  /// Whether the samples disagree too much for the median to be trusted.
  var isNoisy: Bool { p90 > p10 * 1.5 }

  private func percentile(_ fraction: Double) -> Double {
    let position = fraction * Double(samples.count - 1)
    let lower = Int(position.rounded(.down))
    let upper = Int(position.rounded(.up))
    let weight = position - Double(lower)
    return samples[lower] * (1 - weight) + samples[upper] * weight
  }
}

/// How many times each scenario runs, and how long each run lasts.
struct Plan {
  var repetitions = 7
  var warmUps = 1
  var operations = 2_000_000

  /// Times `body(operations)` once per repetition after the warm-ups, and divides by `operations`.
  func measure(_ body: (Int) -> Void) -> Measurement {
    for _ in 0..<warmUps { body(operations / 10) }
    var samples: [Double] = []
    for _ in 0..<repetitions {
      let start = now()
      body(operations)
      samples.append(Double(now() - start) / Double(operations))
    }
    return Measurement(samples: samples)
  }

  /// Times `scenario` and `baseline` in alternating repetitions, so that both see the same machine: a ratio of the
  /// two then means the same on a quiet machine and on a busy one.
  func compare(_ scenario: (Int) -> Void, with baseline: (Int) -> Void) -> Pair {
    for _ in 0..<warmUps {
      baseline(operations / 10)
      scenario(operations / 10)
    }
    var scenarioSamples: [Double] = []
    var baselineSamples: [Double] = []
    for _ in 0..<repetitions {
      baselineSamples.append(Self.time(operations, baseline))
      scenarioSamples.append(Self.time(operations, scenario))
    }
    return Pair(scenario: Measurement(samples: scenarioSamples), baseline: Measurement(samples: baselineSamples))
  }

  /// Runs `scenario` and `baseline` in alternating repetitions after the warm-ups; each returns nanoseconds per
  /// operation.
  func compareAsync(
    isolation: isolated (any Actor)? = #isolation,
    _ scenario: () async -> Double,
    with baseline: () async -> Double
  ) async -> Pair {
    for _ in 0..<warmUps {
      _ = await baseline()
      _ = await scenario()
    }
    var scenarioSamples: [Double] = []
    var baselineSamples: [Double] = []
    for _ in 0..<repetitions {
      baselineSamples.append(await baseline())
      scenarioSamples.append(await scenario())
    }
    return Pair(scenario: Measurement(samples: scenarioSamples), baseline: Measurement(samples: baselineSamples))
  }

  private static func time(_ operations: Int, _ body: (Int) -> Void) -> Double {
    let start = now()
    body(operations)
    return Double(now() - start) / Double(operations)
  }

  /// Runs `body` once per repetition after the warm-ups; `body` returns nanoseconds per operation.
  func measureAsync(
    isolation: isolated (any Actor)? = #isolation,
    _ body: () async -> Double
  ) async -> Measurement {
    for _ in 0..<warmUps { _ = await body() }
    var samples: [Double] = []
    for _ in 0..<repetitions {
      samples.append(await body())
    }
    return Measurement(samples: samples)
  }
}

/// A scenario and its baseline, timed in alternating repetitions of one run.
struct Pair {
  let scenario: Measurement
  let baseline: Measurement
}
