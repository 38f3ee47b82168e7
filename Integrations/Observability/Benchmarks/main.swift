// `swift run -c release ObservabilityBenchmarks`: what StoreTelemetry costs a fetch and a cache hit, beside the same
// work with nothing attached, measured in alternating rounds of one run.
import Foundation
import Metrics
import Prometheus
import SharedObservability
import SharedState
import Tracing

/// Nanoseconds per fetch of a new query key, each awaited, in a fresh registry made by `attach`.
func fetchNewKeys(_ count: Int, _ attach: @Sendable (SharedRegistry) -> Void) async -> Double {
  let registry = SharedRegistry()
  attach(registry)
  let options = QueryOptions(staleTime: .seconds(3_600), gcTime: .seconds(3_600), operation: .retry(.none))
  var sum = 0
  let start = ContinuousClock.now
  for id in 0..<count {
    let query: Query<OperationState<Int>> = .query(["items", id], options: options) { id }
    sum &+= (try? await registry.queries.fetch(query)) ?? 0
  }
  let elapsed = ContinuousClock.now - start
  precondition(sum > 0)
  return nanoseconds(elapsed) / Double(count)
}

/// Nanoseconds per answer of one fresh cached query, in a fresh registry made by `attach`.
func awaitCached(_ count: Int, _ attach: @Sendable (SharedRegistry) -> Void) async -> Double {
  let registry = SharedRegistry()
  attach(registry)
  let options = QueryOptions(staleTime: .seconds(3_600), gcTime: .seconds(3_600), operation: .retry(.none))
  let query: Query<OperationState<Int>> = .query(["cached"], options: options) { 42 }
  _ = try? await registry.queries.fetch(query)
  var sum = 0
  let start = ContinuousClock.now
  for _ in 0..<count { sum &+= (try? await registry.queries.fetch(query)) ?? 0 }
  let elapsed = ContinuousClock.now - start
  precondition(sum > 0)
  return nanoseconds(elapsed) / Double(count)
}

func nanoseconds(_ duration: Duration) -> Double {
  Double(duration.components.seconds) * 1e9 + Double(duration.components.attoseconds) / 1e9
}

/// The median of `rounds` alternating runs of `scenario` and `baseline`, and their ratio.
func compare(
  _ name: String,
  budget: Double,
  rounds: Int,
  _ scenario: () async -> Double,
  with baseline: () async -> Double
) async -> Bool {
  _ = await scenario()
  _ = await baseline()
  var scenarios: [Double] = []
  var baselines: [Double] = []
  for _ in 0..<rounds {
    scenarios.append(await scenario())
    baselines.append(await baseline())
  }
  let median = { (values: [Double]) in values.sorted()[values.count / 2] }
  let ratio = median(scenarios) / median(baselines)
  let ok = ratio <= budget
  print(
    "| \(name) | \(String(format: "%.0f", median(scenarios))) | \(String(format: "%.0f", median(baselines))) | "
      + "\(String(format: "%.2fx", ratio)) | <= \(String(format: "%.2fx", budget)) | \(ok ? "yes" : "NO") |")
  return ok
}

let quick = CommandLine.arguments.contains("--quick")
let rounds = quick ? 3 : 9
let keys = quick ? 500 : 2_000
let hits = quick ? 20_000 : 100_000
let prometheus = PrometheusMetricsFactory(registry: PrometheusCollectorRegistry())
let none: @Sendable (SharedRegistry) -> Void = { _ in }
let metricsOnly: @Sendable (SharedRegistry) -> Void = {
  StoreTelemetry.attach(to: $0, metrics: prometheus, tracer: nil)
}
let metricsAndTraces: @Sendable (SharedRegistry) -> Void = {
  StoreTelemetry.attach(to: $0, metrics: prometheus, tracer: NoOpTracer())
}

print("| scenario | ns/op | unobserved ns/op | ratio | budget | ok |")
print("|---|---|---|---|---|---|")
var allOK = true
allOK =
  await compare("fetch of a new query key, Prometheus metrics", budget: 1.5, rounds: rounds) {
    await fetchNewKeys(keys, metricsOnly)
  } with: {
    await fetchNewKeys(keys, none)
  } && allOK
allOK =
  await compare("fetch of a new query key, Prometheus metrics and spans (no-op tracer)", budget: 1.5, rounds: rounds) {
    await fetchNewKeys(keys, metricsAndTraces)
  } with: {
    await fetchNewKeys(keys, none)
  } && allOK
allOK =
  await compare("await a fresh cached query, Prometheus metrics", budget: 2, rounds: rounds) {
    await awaitCached(hits, metricsOnly)
  } with: {
    await awaitCached(hits, none)
  } && allOK
if CommandLine.arguments.contains("--check") && !allOK { exit(1) }
