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

// The instruction probe: one kind of operation and nothing else, for callgrind (see `InstructionProbe`).
if CommandLine.arguments.count == 4, CommandLine.arguments[1] == "--instruction-probe",
  let probe = InstructionProbe(rawValue: CommandLine.arguments[2]), let count = Int(CommandLine.arguments[3])
{
  if let operations = probe.synchronousOperations {
    operations(count)
  } else {
    await probe.run(count: count)
  }
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

Watchdog.shared.start(limit: arguments.scenarioLimit)
let runStart = now()
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

/// Bare `Mutex.withLock` increments timed in one go: nanoseconds per call, the baseline of the asynchronous rows
/// that compare with a `Mutex`.
func mutexIncrements(_ operations: Int) -> Double {
  let body = mutexIncrement()
  let start = now()
  body(operations)
  return Double(now() - start) / Double(operations)
}

/// Runs `makeRow` unless `--filter` excludes `name`.
@MainActor func scenario(_ name: String, _ makeRow: (String) async -> Row) async {
  guard isSelected(name) else { return }
  rows.append(await Watchdog.shared.run(name) { await makeRow(name) })
}

// Each row times its scenario and its bare baseline in alternating repetitions (see `Plan.compare`).
await scenario("withLock { $0 += 1 }, no subscribers") {
  Row(
    scenario: $0, pair: plan.compare(boxIncrement(), with: mutexIncrement()), baselineName: "Mutex.withLock",
    budget: .ratio(1.3))
}
await scenario("read") {
  Row(
    scenario: $0, pair: plan.compare(boxRead(), with: mutexRead()), baselineName: "Mutex.withLock read",
    budget: .ratio(1.3))
}
await scenario("read of a tracked box") {
  Row(
    scenario: $0, pair: plan.compare(trackedBoxRead(), with: mutexRead()), baselineName: "Mutex.withLock read",
    budget: .none)
}
await scenario("Atomic add (baseline)") {
  Row(
    scenario: $0, pair: plan.compare(atomicAdd(), with: mutexIncrement()), baselineName: "Mutex.withLock", budget: .none
  )
}
await scenario("@Observable mutation, no observer (baseline)") {
  Row(
    scenario: $0, pair: plan.compare(observableMutation(), with: mutexIncrement()), baselineName: "Mutex.withLock",
    budget: .none)
}
// Delivery to `for await` loops that each hash every element they get (`ConsumerWork`), against one AsyncStream per
// consumer doing the same; 100 and 10,000 consumers get the same number of changes, so the two compare per delivery.
let fanOuts = FanOutRows(quick: quick, plan: asyncPlan)
for (policy, name) in [(BufferingPolicy.all, ".all"), (.latest, ".latest")] {
  await scenario("1 change -> 100 consumers (\(name)), per delivery") {
    let measured = await fanOuts.measurements(policy)
    return Row(
      scenario: $0, measurement: measured.hundred, baselineName: "100 AsyncStreams", baseline: measured.streams,
      budget: .ratio(0.2))
  }
  await scenario("1 change -> 10000 consumers (\(name)), per delivery") {
    let measured = await fanOuts.measurements(policy)
    return Row(
      scenario: $0, measurement: measured.tenThousand, baselineName: "100 AsyncStreams", baseline: measured.streams,
      budget: .ratio(0.6))
  }
  await scenario("10000 / 100 consumers (\(name)), per delivery") {
    let measured = await fanOuts.measurements(policy)
    return Row(
      scenario: $0, measurement: measured.tenThousand, baselineName: "100 consumers", baseline: measured.hundred,
      budget: .ratio(3))
  }
}
await scenario("1 change -> 100 observers, per delivery") {
  let changes = quick ? 2_000 : 20_000
  let pair = await asyncPlan.compareAsync {
    boxObserverFanOut(observers: 100, changes: changes)
  } with: {
    closureFanOut(observers: 100, changes: changes)
  }
  return Row(scenario: $0, pair: pair, baselineName: "100 closures, Mutex", budget: .ratio(1.2))
}
await scenario("@Shared withLock { $0 += 1 }") {
  Row(
    scenario: $0, pair: plan.compare(sharedIncrement(), with: mutexIncrement()), baselineName: "Mutex.withLock",
    budget: .ratio(1.3))
}
await scenario("@Shared read") {
  Row(
    scenario: $0, pair: plan.compare(sharedRead(), with: mutexRead()), baselineName: "Mutex.withLock read",
    budget: .ratio(1.3))
}
await scenario("holder of an existing key") {
  let holders = Plan(repetitions: plan.repetitions, warmUps: plan.warmUps, operations: 500_000)
  return Row(
    scenario: $0, pair: holders.compare(existingKeyHolder(), with: lockedDictionaryLookup()),
    baselineName: "Dictionary lookup, Mutex", budget: .ratio(4))
}
await scenario("holder of an existing key, against a bare Mutex") {
  let holders = Plan(repetitions: plan.repetitions, warmUps: plan.warmUps, operations: 500_000)
  return Row(
    scenario: $0, pair: holders.compare(existingKeyHolder(), with: mutexIncrement()), baselineName: "Mutex.withLock",
    budget: .ratio(8))
}
for existing in quick ? [1_000] : [1_000, 100_000, 1_000_000] {
  await scenario("new key, \(existing) keys held") {
    Row(
      scenario: $0, pair: newKey(existing: existing, repetitions: quick ? 3 : 5),
      baselineName: "Dictionary insert, Mutex", budget: .ratio(8))
  }
}
for sameKey in [true, false] {
  await scenario("contention: 2 threads withLock, \(sameKey ? "one key" : "two keys")") {
    let operations = quick ? 200_000 : 2_000_000
    let pair = await asyncPlan.compareAsync {
      contendedIncrements(sameBox: sameKey, operations: operations)
    } with: {
      contendedMutex(sameMutex: sameKey, operations: operations)
    }
    return Row(scenario: $0, pair: pair, baselineName: "2 threads Mutex", budget: .none)
  }
}
await scenario("trivial operation, 4 callbacks, off the main actor") {
  let count = quick ? 2_000 : 20_000
  let pair = await asyncPlan.compareAsync {
    await trivialOperation(count)
  } with: {
    await bareTask(count)
  }
  return Row(scenario: $0, pair: pair, baselineName: "Task { } + await", budget: .ratio(2))
}
await scenario("perform, awaited") {
  let count = quick ? 2_000 : 20_000
  let pair = await asyncPlan.compareAsync {
    await performAwaited(count)
  } with: {
    await runAndAwait(count)
  }
  return Row(scenario: $0, pair: pair, baselineName: "run + await its task", budget: .ratio(1.1))
}
for queries in [1, 100] {
  await scenario("optimistic mutation, \(queries == 1 ? "1 cached query" : "\(queries) cached queries") changed") {
    let count = quick ? 500 : (queries == 1 ? 20_000 : 2_000)
    let pair = await asyncPlan.compareAsync {
      await optimisticMutation(count, queries: queries)
    } with: {
      await runAndAwait(count)
    }
    return Row(scenario: $0, pair: pair, baselineName: "run + await its task", budget: .none)
  }
}
for followsNetwork in [false, true] {
  await scenario("mutation, run and awaited\(followsNetwork ? ", online status followed" : "")") {
    let count = quick ? 2_000 : 20_000
    let pair = await asyncPlan.compareAsync {
      await mutationRun(count, followsNetwork: followsNetwork)
    } with: {
      await runAndAwait(count)
    }
    return Row(scenario: $0, pair: pair, baselineName: "run + await its task", budget: .none)
  }
}
await scenario("interval tick, per held query (1,000 held)") {
  let ticks = quick ? 2 : 10
  let pair = await asyncPlan.compareAsync {
    await intervalTick(held: 1_000, ticks: ticks)
  } with: {
    await tasksStartedThenAwaited(1_000)
  }
  return Row(scenario: $0, pair: pair, baselineName: "Task { } started, then awaited", budget: .none)
}
await scenario("new query key") {
  let cache = await QueryCache(cached: 0)
  let pair = await asyncPlan.compareAsync {
    await cache.newKeys(2_000)
  } with: {
    await bareTask(2_000)
  }
  return Row(scenario: $0, pair: pair, baselineName: "Task { } + await", budget: .ratio(3))
}
for (retries, followsNetwork) in [(0, true), (3, false), (3, true)] {
  let name = "new query key\(retries > 0 ? ", \(retries) retries" : "")"
  await scenario("\(name)\(followsNetwork ? ", online status followed" : "")") {
    let cache = await QueryCache(cached: 0, retries: retries, followsNetwork: followsNetwork)
    let pair = await asyncPlan.compareAsync {
      await cache.newKeys(2_000)
    } with: {
      await bareTask(2_000)
    }
    return Row(scenario: $0, pair: pair, baselineName: "Task { } + await", budget: .none)
  }
}
await scenario("new query key, automatic fetching off") {
  let cache = await QueryCache(cached: 0, fetches: false)
  let pair = await asyncPlan.compareAsync {
    await cache.newKeys(2_000)
  } with: {
    await bareTask(2_000)
  }
  return Row(scenario: $0, pair: pair, baselineName: "Task { } + await", budget: .none)
}
await scenario("Task { } per key, made in a loop, awaited after") {
  let pair = await asyncPlan.compareAsync {
    await tasksMadeInALoop(2_000)
  } with: {
    await bareTask(2_000)
  }
  return Row(scenario: $0, pair: pair, baselineName: "Task { } + await", budget: .none)
}
var newQueryKeyCosts: [Int: Double] = [:]
for cached in quick ? [1_000] : [1_000, 100_000] {
  await scenario("new query key, \(cached) cached") {
    let cache = await QueryCache(cached: cached)
    let pair = await asyncPlan.compareAsync {
      await cache.newKeys(2_000)
    } with: {
      await bareTask(2_000)
    }
    newQueryKeyCosts[cached] = pair.scenario.median
    return Row(scenario: $0, pair: pair, baselineName: "Task { } + await", budget: .ratio(3))
  }
}
await scenario("await a fresh cached query") {
  let pair = await asyncPlan.compareAsync {
    await awaitFreshCachedQuery(100_000)
  } with: {
    mutexIncrements(100_000)
  }
  return Row(scenario: $0, pair: pair, baselineName: "Mutex.withLock", budget: .ratio(20))
}
await scenario("await a fresh cached query through its holder") {
  let pair = await asyncPlan.compareAsync {
    await awaitFreshHeldQuery(100_000)
  } with: {
    mutexIncrements(100_000)
  }
  return Row(scenario: $0, pair: pair, baselineName: "Mutex.withLock", budget: .none)
}
// An instrument attached (one that counts what it hears): the store's own cost of measuring, beside the same work
// with none attached.
await scenario("fetch of a new query key, an instrument attached") {
  let pair = await asyncPlan.compareAsync {
    await fetchNewQueryKeys(2_000, instrument: CountingInstrument())
  } with: {
    await fetchNewQueryKeys(2_000, instrument: nil)
  }
  return Row(scenario: $0, pair: pair, baselineName: "the same, none attached", budget: .ratio(1.5))
}
await scenario("await a fresh cached query, an instrument attached") {
  let pair = await asyncPlan.compareAsync {
    await awaitFreshCachedQuery(100_000, instrument: CountingInstrument())
  } with: {
    await awaitFreshCachedQuery(100_000, instrument: nil)
  }
  return Row(scenario: $0, pair: pair, baselineName: "the same, none attached", budget: .ratio(1.5))
}
// A server's cache (`QueryStore.fetch`) when most requests miss: ids that each come once over a store at its
// capacity of 10,000, each miss calling an upstream that suspends and is resumed from elsewhere, beside calling that
// upstream directly; the last row is what a per-attempt timeout adds to a miss.
let missCount = quick ? 1_000 : 10_000
for timeout in [Duration.seconds(10), nil] {
  await scenario("query miss, 10,000 capacity, \(timeout == nil ? "no timeout" : "per-attempt timeout")") {
    let misses = await QueryMisses(timeout: timeout)
    let pair = await asyncPlan.compareAsync {
      await misses.misses(missCount)
    } with: {
      await directCalls(missCount)
    }
    return Row(scenario: $0, pair: pair, baselineName: "the upstream called directly", budget: .none)
  }
}
await scenario("query miss, per-attempt timeout, against no timeout") {
  let timed = await QueryMisses(timeout: .seconds(10))
  let untimed = await QueryMisses(timeout: nil)
  let pair = await asyncPlan.compareAsync {
    await timed.misses(missCount)
  } with: {
    await untimed.misses(missCount)
  }
  return Row(scenario: $0, pair: pair, baselineName: "the same miss, no timeout", budget: .ratio(1.3))
}
await scenario("constant query fetched, per holder of 100") {
  let pair = await asyncPlan.compareAsync {
    await queryFetchTo100Holders()
  } with: {
    await bareTask(2_000)
  }
  return Row(scenario: $0, pair: pair, baselineName: "Task { } + await", budget: .none)
}
await scenario("invalidate, per matched query, 100 of 10k keys") {
  let pair = await Plan(repetitions: quick ? 1 : 3, warmUps: 0).compareAsync {
    await invalidate100Of10k() / 100
  } with: {
    mutexIncrements(100_000)
  }
  return Row(scenario: $0, pair: pair, baselineName: "Mutex.withLock", budget: .ratio(17))
}
await scenario("invalidate, per matched query, 100 of 10k sleeping keys") {
  let pair = await Plan(repetitions: quick ? 1 : 3, warmUps: 0).compareAsync {
    await invalidate100Of10kSleeping() / 100
  } with: {
    mutexIncrements(100_000)
  }
  return Row(scenario: $0, pair: pair, baselineName: "Mutex.withLock", budget: .ratio(17))
}

// The persisted query cache: a restore against decoding the same values, a write against encoding the one value
// that changed (`Scenarios+PersistedCache.swift`). The stored cache is made once, for the first row that needs it.
var storedPostsMade: [Int: StoredPosts] = [:]
@MainActor func storedPosts(_ count: Int = 10_000) -> StoredPosts {
  if let made = storedPostsMade[count] { return made }
  let made = StoredPosts(count: count)
  storedPostsMade[count] = made
  return made
}
// Nine repetitions: each one restores 10,000 queries, and a busy machine moves a single one a lot.
let restorePlan = quick ? asyncPlan : Plan(repetitions: 9, warmUps: 1)
await scenario("restore 10,000 cached queries, every value read once") {
  let stored = storedPosts()
  let pair = await restorePlan.compareAsync {
    await restorePersistedCache(stored, readingEveryValue: true)
  } with: {
    decodeStoredValues(stored)
  }
  return Row(scenario: $0, pair: pair, baselineName: "JSONDecoder, each value", budget: .ratio(1.5))
}
await scenario("restore 100,000 cached queries, every value read once") {
  let stored = storedPosts(100_000)
  let pair = await (quick ? asyncPlan : Plan(repetitions: 5, warmUps: 1)).compareAsync {
    await restorePersistedCache(stored, readingEveryValue: true)
  } with: {
    decodeStoredValues(stored)
  }
  return Row(scenario: $0, pair: pair, baselineName: "JSONDecoder, each value", budget: .ratio(1.5))
}
await scenario("restore 10,000 cached queries, values read on use") {
  let stored = storedPosts()
  let pair = await restorePlan.compareAsync {
    await restorePersistedCache(stored, readingEveryValue: false)
  } with: {
    decodeStoredValues(stored)
  }
  return Row(scenario: $0, pair: pair, baselineName: "JSONDecoder, each value", budget: .none)
}
await scenario("JSONDecoder, 10,000 values as one array (baseline)") {
  let stored = storedPosts()
  let pair = await asyncPlan.compareAsync {
    decodeStoredValuesAsOneArray(stored)
  } with: {
    decodeStoredValues(stored)
  }
  return Row(scenario: $0, pair: pair, baselineName: "JSONDecoder, each value", budget: .none)
}
// How the cost of persisting one change grows with the cache: a write appends the changed entries, so the rows of
// larger caches are measured against the same work with one cached query (budget: 2x).
await scenario("persist one changed query, 1 cached") {
  let count = quick ? 200 : 5_000
  let pair = await asyncPlan.compareAsync {
    await persistOneChangedQuery(cached: 1, count: count)
  } with: {
    encodeOneValue(count)
  }
  return Row(scenario: $0, pair: pair, baselineName: "JSONEncoder, that value", budget: .none)
}
for (cached, label, changes, quickChanges) in [
  (1_000, "1,000", 2_000, 200), (10_000, "10,000", 2_000, 200), (100_000, "100,000", 2_000, 200),
] {
  await scenario("persist one changed query, \(label) cached") {
    let count = quick ? quickChanges : changes
    let pair = await asyncPlan.compareAsync {
      await persistOneChangedQuery(cached: cached, count: count)
    } with: {
      await persistOneChangedQuery(cached: 1, count: count)
    }
    return Row(scenario: $0, pair: pair, baselineName: "the same, 1 cached", budget: .ratio(2))
  }
}
// Space under churn: 100,000 changes over 1,000 cached queries, each flushed; the bytes stored are printed.
await scenario("persist 100,000 changes to 1,000 cached queries") {
  let changes = quick ? 10_000 : 100_000
  var sizes: [(stored: Int, whole: Int)] = []
  let pair = await Plan(repetitions: quick ? 1 : 3, warmUps: 0).compareAsync {
    let churn = await persistChanges(cached: 1_000, changes: changes, over: 1_000, measuresSpace: true)
    sizes.append((churn.stored, churn.whole))
    return churn.nanoseconds
  } with: {
    await persistOneChangedQuery(cached: 1, count: 2_000)
  }
  for size in sizes {
    print(
      "  stored after \(changes) changes to 1,000 queries: \(size.stored) bytes; the same cache written whole: "
        + "\(size.whole) bytes (\(String(format: "%.2f", Double(size.stored) / Double(size.whole)))x)")
  }
  return Row(scenario: $0, pair: pair, baselineName: "one change, 1 cached", budget: .ratio(2))
}

// Scaling sweeps: how cost and memory grow with the work.
if isSelected("sweep keys") {
  let points = await Watchdog.shared.run("sweep keys") {
    (quick ? [1_000, 10_000] : [1_000, 10_000, 100_000, 1_000_000]).map { keySweepPoint(size: $0) }
  }
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
    points.append(
      await Watchdog.shared.run("sweep subscribers, \(size)") {
        await subscriberSweepPoint(size: size, changes: changes)
      })
  }
  sweeps.append(
    Results.SweepResult(
      name: "Delivery, by subscribers of one key", sizeLabel: "subscribers",
      points: points.map { .init(size: $0.size, nanoseconds: $0.nanoseconds, bytesPerItem: $0.bytesPerItem) }))
}

if !rows.isEmpty { printTable(rows) }
for sweep in sweeps {
  print("\n\(sweep.name):")
  print("| \(sweep.sizeLabel) | ns per operation | bytes per item |")
  print("|---|---|---|")
  for point in sweep.points {
    print("| \(point.size) | \(format(point.nanoseconds)) | \(format(point.bytesPerItem)) |")
  }
}
var figures: [Figure] = []
if isSelected("create/drop cycles") {
  let cycles = quick ? 100_000 : 1_000_000
  figures.append(
    Figure(
      name: "resident growth over \(cycles) create/drop cycles of a box",
      value: await Watchdog.shared.run("create/drop cycles") { createDropCycles(cycles) }, unit: "B", limit: nil))
}
if let small = newQueryKeyCosts[1_000], let large = newQueryKeyCosts[100_000] {
  figures.append(
    Figure(name: "new query key, 100000 cached / 1000 cached", value: large / small, unit: "x", limit: 1.5))
}
if isSelected("memory per query nobody holds") {
  figures.append(
    Figure(
      name: "memory per cached query nobody holds, 100000 queries",
      value: await Watchdog.shared.run("memory per query nobody holds") { probeMemory(.queries, count: 100_000) },
      unit: "B", limit: 511))
}
if isSelected("memory per key") {
  // A million keys, in quick runs too: with fewer, the registry's fixed cost counts into each key.
  let sweepPoint = sweeps.first { $0.sizeLabel == "keys held" }?.points.first { $0.size == 1_000_000 }
  var bytesPerKey = sweepPoint?.bytesPerItem
  if bytesPerKey == nil {
    bytesPerKey = await Watchdog.shared.run("memory per key") { probeMemory(.keys, count: 1_000_000) }
  }
  figures.append(Figure(name: "memory per key, 1000000 keys", value: bytesPerKey ?? 0, unit: "B", limit: 256))
}
if isSelected("memory per idle subscriber") {
  figures.append(
    Figure(
      name: "memory per idle subscriber, 100000 subscribers",
      value: await Watchdog.shared.run("memory per idle subscriber") { probeMemory(.subscribers, count: 100_000) },
      unit: "B", limit: 256))
}
let wallSeconds = Double(now() - runStart) / 1e9
figures.append(Figure(name: "wall time of this run", value: wallSeconds, unit: "s", limit: nil))
if !figures.isEmpty {
  print("")
  printFigures(figures)
}
let noisy = rows.filter(\.measurement.isNoisy).map(\.scenario)
if !noisy.isEmpty {
  print("\nnote: p90 is more than 1.5x p10 for: \(noisy.joined(separator: "; ")). Rerun on a quieter machine.")
}
let summary = summaryLine(rows: rows, figures: figures)
print("\n" + summary)

let results = Results(
  date: ISO8601DateFormatter().string(from: Date()), machine: machineDescription(), wallSeconds: wallSeconds,
  rows: rows.map(Results.RowResult.init), figures: figures.map(Results.FigureResult.init), sweeps: sweeps,
  summary: summary)
do {
  if let path = arguments.jsonPath { try writeJSON(results, to: path) }
  if let path = arguments.csvPath { try writeCSV(results, to: path) }
  if let path = arguments.svgPath { try writeSVG(results, to: path) }
} catch {
  FileHandle.standardError.write(Data("error: cannot write the results: \(error)\n".utf8))
  exit(1)
}
if arguments.checksBudgets,
  rows.contains(where: { !$0.isWithinBudget }) || figures.contains(where: { !$0.isWithinBudget })
{
  exit(1)
}
