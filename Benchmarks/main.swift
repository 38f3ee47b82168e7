// `swift run -c release Benchmarks`: every scenario beside a bare primitive measured in the same run.
import Foundation
import Reactive
import SharedState

// The memory probe: a fresh copy of this program measuring one kind of item (see `probeMemory`).
if CommandLine.arguments.count == 4, CommandLine.arguments[1] == "--memory-probe",
  let probe = MemoryProbe(rawValue: CommandLine.arguments[2]), let count = Int(CommandLine.arguments[3])
{
  print(await probe.bytesPerItem(count: count))
  exit(0)
}

let arguments: Arguments
do {
  arguments = try Arguments(Array(CommandLine.arguments.dropFirst()))
} catch {
  FileHandle.standardError.write(Data("error: \(error)\n\n\(Arguments.usage)\n".utf8))
  exit(64)
}
if arguments.showsHelp {
  print(Arguments.usage)
  exit(0)
}

let quick = arguments.quick
let plan = quick ? Plan(repetitions: 3, warmUps: 1, operations: 200_000) : Plan()
let asyncPlan = quick ? Plan(repetitions: 3, warmUps: 0) : Plan(repetitions: 5, warmUps: 1)
var rows: [Row] = []
var sweeps: [Results.SweepResult] = []

/// Whether `--filter` lets `name` run.
func isSelected(_ name: String) -> Bool {
  guard let filter = arguments.filter else { return true }
  return name.localizedCaseInsensitiveContains(filter)
}

/// Runs `makeRow` unless `--filter` excludes `name`.
@MainActor func scenario(_ name: String, _ makeRow: (String) async -> Row) async {
  guard isSelected(name) else { return }
  rows.append(await makeRow(name))
}

// Baselines, measured once and shared by the rows that compare with them.
let mutexIncrements = mutexIncrement(plan)
let mutexReads = mutexRead(plan)

await scenario("withLock { $0 += 1 }, no subscribers") {
  Row(
    scenario: $0, measurement: boxIncrement(plan),
    baselineName: "Mutex.withLock", baseline: mutexIncrements, budget: .ratio(3))
}
await scenario("read") {
  Row(
    scenario: $0, measurement: boxRead(plan),
    baselineName: "Mutex.withLock read", baseline: mutexReads, budget: .ratio(2))
}
await scenario("Atomic add (baseline)") {
  Row(
    scenario: $0, measurement: atomicAdd(plan),
    baselineName: "Mutex.withLock", baseline: mutexIncrements, budget: .none)
}
await scenario("@Observable mutation, no observer (baseline)") {
  Row(
    scenario: $0, measurement: observableMutation(plan),
    baselineName: "Mutex.withLock", baseline: mutexIncrements, budget: .none)
}
// Delivery to `for await` loops that each hash every element they get (`ConsumerWork`), against one AsyncStream per
// consumer doing the same; 100 and 10,000 consumers get the same number of changes, so the two compare per delivery.
let fanOuts = FanOutRows(quick: quick, plan: asyncPlan)
for (policy, name) in [(BufferingPolicy.all, ".all"), (.latest, ".latest")] {
  await scenario("1 change -> 100 consumers (\(name)), per delivery") {
    Row(
      scenario: $0, measurement: await fanOuts.box(consumers: 100, policy),
      baselineName: "100 AsyncStreams", baseline: await fanOuts.streams(policy), budget: .ratio(0.2))
  }
  await scenario("1 change -> 10000 consumers (\(name)), per delivery") {
    Row(
      scenario: $0, measurement: await fanOuts.box(consumers: 10_000, policy),
      baselineName: "100 AsyncStreams", baseline: await fanOuts.streams(policy), budget: .ratio(0.6))
  }
  await scenario("10000 / 100 consumers (\(name)), per delivery") {
    Row(
      scenario: $0, measurement: await fanOuts.box(consumers: 10_000, policy),
      baselineName: "100 consumers", baseline: await fanOuts.box(consumers: 100, policy), budget: .ratio(3))
  }
}
await scenario("1 change -> 100 observers, per delivery") {
  let changes = quick ? 2_000 : 20_000
  let observers = await asyncPlan.measureAsync { boxObserverFanOut(observers: 100, changes: changes) }
  return Row(
    scenario: $0, measurement: observers,
    baselineName: "Mutex.withLock", baseline: mutexIncrements, budget: .nanoseconds(20))
}
await scenario("@Shared withLock { $0 += 1 }") {
  Row(
    scenario: $0, measurement: sharedIncrement(plan),
    baselineName: "Mutex.withLock", baseline: mutexIncrements, budget: .ratio(3))
}
await scenario("@Shared read") {
  Row(
    scenario: $0, measurement: sharedRead(plan),
    baselineName: "Mutex.withLock read", baseline: mutexReads, budget: .ratio(2))
}
await scenario("holder of an existing key") {
  Row(
    scenario: $0, measurement: existingKeyHolder(Plan(repetitions: plan.repetitions, operations: 500_000)),
    baselineName: "Mutex.withLock", baseline: mutexIncrements, budget: .nanoseconds(150))
}
for existing in quick ? [1_000] : [1_000, 100_000, 1_000_000] {
  await scenario("new key, \(existing) keys held") {
    Row(
      scenario: $0, measurement: newKey(existing: existing, repetitions: quick ? 3 : 5),
      baselineName: "Mutex.withLock", baseline: mutexIncrements, budget: .nanoseconds(1_000))
  }
}
for sameKey in [true, false] {
  await scenario("contention: 2 threads withLock, \(sameKey ? "one key" : "two keys")") {
    let operations = quick ? 200_000 : 2_000_000
    let bare = await asyncPlan.measureAsync { contendedMutex(sameMutex: sameKey, operations: operations) }
    let box = await asyncPlan.measureAsync { contendedIncrements(sameBox: sameKey, operations: operations) }
    return Row(
      scenario: $0, measurement: box, baselineName: "2 threads Mutex", baseline: bare, budget: .none)
  }
}
await scenario("trivial operation, 4 callbacks, off the main actor") {
  let count = quick ? 2_000 : 20_000
  let bare = await asyncPlan.measureAsync { await bareTask(count) }
  let operation = await asyncPlan.measureAsync { await trivialOperation(count) }
  return Row(
    scenario: $0, measurement: operation, baselineName: "Task { } + await", baseline: bare, budget: .ratio(2))
}
await scenario("new query key") {
  Row(
    scenario: $0, measurement: await asyncPlan.measureAsync { await newQueryKey(2_000) },
    baselineName: "Task { } + await", baseline: await asyncPlan.measureAsync { await bareTask(2_000) },
    budget: .ratio(3))
}
var newQueryKeyCosts: [Int: Double] = [:]
for cached in quick ? [1_000] : [1_000, 100_000] {
  await scenario("new query key, \(cached) cached") {
    let measurement = await asyncPlan.measureAsync { await newQueryKey(2_000, cached: cached) }
    newQueryKeyCosts[cached] = measurement.median
    return Row(
      scenario: $0, measurement: measurement,
      baselineName: "Task { } + await", baseline: await asyncPlan.measureAsync { await bareTask(2_000) },
      budget: .ratio(3))
  }
}
await scenario("await a fresh cached query") {
  Row(
    scenario: $0, measurement: await asyncPlan.measureAsync { await awaitFreshCachedQuery(100_000) },
    baselineName: "Mutex.withLock", baseline: mutexIncrements, budget: .ratio(20))
}
await scenario("await a fresh cached query through its holder") {
  Row(
    scenario: $0, measurement: await asyncPlan.measureAsync { await awaitFreshHeldQuery(100_000) },
    baselineName: "Mutex.withLock", baseline: mutexIncrements, budget: .none)
}
await scenario("constant query fetched, per holder of 100") {
  Row(
    scenario: $0, measurement: await asyncPlan.measureAsync { await queryFetchTo100Holders() },
    baselineName: "Task { } + await", baseline: await asyncPlan.measureAsync { await bareTask(2_000) },
    budget: .none)
}
await scenario("invalidate 100 matching among 10k keys") {
  Row(
    scenario: $0,
    measurement: await Plan(repetitions: quick ? 1 : 3, warmUps: 0).measureAsync {
      await invalidate100Of10k()
    },
    baselineName: "Mutex.withLock", baseline: mutexIncrements, budget: .nanoseconds(200_000))
}
await scenario("invalidate 100 matching among 10k sleeping keys") {
  Row(
    scenario: $0,
    measurement: await Plan(repetitions: quick ? 1 : 3, warmUps: 0).measureAsync {
      await invalidate100Of10kSleeping()
    },
    baselineName: "Mutex.withLock", baseline: mutexIncrements, budget: .nanoseconds(20_000))
}

// Scaling sweeps: how cost and memory grow with the work.
if isSelected("sweep keys") {
  let points = (quick ? [1_000, 10_000] : [1_000, 10_000, 100_000, 1_000_000]).map { keySweepPoint(size: $0) }
  sweeps.append(
    Results.SweepResult(
      name: "New key, by keys already held", sizeLabel: "keys held",
      points: points.map { .init(size: $0.size, nanoseconds: $0.nanoseconds, bytesPerItem: $0.bytesPerItem) }))
}
if isSelected("sweep subscribers") {
  var points: [SweepPoint] = []
  for size in quick ? [1, 10, 100] : [1, 10, 100, 1_000, 10_000, 100_000] {
    // At least 100 changes each up to 10,000 consumers, as in the fan-out rows; 20 at 100,000 to keep the run short.
    let changes = max(size > 10_000 ? 20 : 100, (quick ? 20_000 : 200_000) / size)
    points.append(await subscriberSweepPoint(size: size, changes: changes))
  }
  sweeps.append(
    Results.SweepResult(
      name: "Delivery, by subscribers of one key", sizeLabel: "subscribers",
      points: points.map { .init(size: $0.size, nanoseconds: $0.nanoseconds, bytesPerItem: $0.bytesPerItem) }))
}

printTable(rows)
for sweep in sweeps {
  print("\n\(sweep.name):")
  print("| \(sweep.sizeLabel) | ns per operation | bytes per item |")
  print("|---|---|---|")
  for point in sweep.points {
    print("| \(point.size) | \(format(point.nanoseconds)) | \(format(point.bytesPerItem)) |")
  }
}
if isSelected("create/drop cycles") {
  let cycles = quick ? 100_000 : 1_000_000
  print("\nresident growth over \(cycles) create/drop cycles of a box: \(Int(createDropCycles(cycles))) B")
}
if let small = newQueryKeyCosts[1_000], let large = newQueryKeyCosts[100_000] {
  print("\nnew query key, 100000 cached / 1000 cached: \(format(large / small))x (budget <= 1.5x)")
}
if isSelected("memory per query nobody holds") {
  let bytes = probeMemory(.queries, count: quick ? 10_000 : 100_000)
  print("\nmemory per cached query nobody holds: \(format(bytes)) B (budget <= 512 B)")
}
if let keys = sweeps.first(where: { $0.sizeLabel == "keys held" }), let largest = keys.points.last {
  print("\nmemory per key: \(format(largest.bytesPerItem)) B (budget <= 256 B)")
}
if let subscribers = sweeps.first(where: { $0.sizeLabel == "subscribers" }), let largest = subscribers.points.last {
  print("memory per idle subscriber: \(format(largest.bytesPerItem)) B (budget <= 256 B)")
}
let noisy = rows.filter(\.measurement.isNoisy).map(\.scenario)
if !noisy.isEmpty {
  print("\nnote: p90 is more than 1.5x p10 for: \(noisy.joined(separator: "; ")). Rerun on a quieter machine.")
}

let results = Results(
  date: ISO8601DateFormatter().string(from: Date()), machine: machineDescription(),
  rows: rows.map(Results.RowResult.init), sweeps: sweeps)
do {
  if let path = arguments.jsonPath { try writeJSON(results, to: path) }
  if let path = arguments.csvPath { try writeCSV(results, to: path) }
  if let path = arguments.svgPath { try writeSVG(results, to: path) }
} catch {
  FileHandle.standardError.write(Data("error: cannot write the results: \(error)\n".utf8))
  exit(1)
}
