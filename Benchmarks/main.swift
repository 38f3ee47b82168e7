// `swift run -c release Benchmarks`: every scenario beside a bare primitive measured in the same run.
import Foundation
import Reactive
import Shared

let arguments = CommandLine.arguments.dropFirst()
var filter: String?
if let index = arguments.firstIndex(of: "--filter"), arguments.index(after: index) < arguments.endIndex {
  filter = arguments[arguments.index(after: index)]
}

let plan = Plan()
var rows: [Row] = []

/// Runs `makeRow` unless `--filter` excludes `name`.
@MainActor func scenario(_ name: String, _ makeRow: (String) async -> Row) async {
  if let filter, !name.localizedCaseInsensitiveContains(filter) { return }
  rows.append(await makeRow(name))
}

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
await scenario("1 change -> 100 subscribers (.all), per delivery") {
  let fanOutPlan = Plan(repetitions: 5, warmUps: 1)
  let streams = await fanOutPlan.measureAsync { await asyncStreamFanOut(subscribers: 100, changes: 5_000) }
  let fanOut = await fanOutPlan.measureAsync { await boxFanOut(subscribers: 100, changes: 5_000) }
  return Row(
    scenario: $0, measurement: fanOut,
    baselineName: "100 AsyncStreams", baseline: streams, budget: .nanoseconds(60))
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
    scenario: $0, measurement: existingKeyHolder(Plan(operations: 500_000)),
    baselineName: "Mutex.withLock", baseline: mutexIncrements, budget: .nanoseconds(150))
}
for existing in [1_000, 100_000, 1_000_000] {
  await scenario("new key, \(existing) keys held") {
    Row(
      scenario: $0, measurement: newKey(existing: existing, repetitions: 5),
      baselineName: "Mutex.withLock", baseline: mutexIncrements, budget: .nanoseconds(1_000))
  }
}

await scenario("trivial operation, 4 callbacks, off the main actor") {
  let taskPlan = Plan(repetitions: 7, warmUps: 1)
  let bare = await taskPlan.measureAsync { await bareTask(20_000) }
  let operation = await taskPlan.measureAsync { await trivialOperation(20_000) }
  return Row(
    scenario: $0, measurement: operation, baselineName: "Task { } + await", baseline: bare, budget: .ratio(2))
}

await scenario("new query key") {
  let queryPlan = Plan(repetitions: 5, warmUps: 1)
  return Row(
    scenario: $0, measurement: await queryPlan.measureAsync { await newQueryKey(2_000) },
    baselineName: "Task { } + await", baseline: await queryPlan.measureAsync { await bareTask(2_000) },
    budget: .none)
}
await scenario("constant query fetched, per holder of 100") {
  let queryPlan = Plan(repetitions: 5, warmUps: 1)
  return Row(
    scenario: $0, measurement: await queryPlan.measureAsync { await queryFetchTo100Holders() },
    baselineName: "Task { } + await", baseline: await queryPlan.measureAsync { await bareTask(2_000) },
    budget: .none)
}
await scenario("invalidate 100 matching among 10k keys") {
  let queryPlan = Plan(repetitions: 5, warmUps: 0)
  return Row(
    scenario: $0, measurement: await queryPlan.measureAsync { await invalidate100Of10k() },
    baselineName: "Mutex.withLock", baseline: mutexIncrements, budget: .nanoseconds(200_000))
}

printTable(rows)
if filter == "newbox" {
  let m = newBox(Plan(operations: 200_000))
  print("new box", m.median)
}
if filter == "memory" {
  let registry = SharedRegistry()
  let names = (0..<100_000).map { "key-\($0)" }
  SharedRegistry.$current.withValue(registry) {
    let before = residentBytes()
    for name in names { blackHole(Shared(wrappedValue: 0, InMemoryKey<Int>(name))) }
    print("bytes per in-memory key", Double(residentBytes() - before) / Double(names.count))
    var boxes: [ReactiveBox<Int>] = []
    boxes.reserveCapacity(names.count)
    let beforeBoxes = residentBytes()
    for index in 0..<names.count { boxes.append(ReactiveBox(index)) }
    print("bytes per box", Double(residentBytes() - beforeBoxes) / Double(names.count))
    withExtendedLifetime(boxes) {}
  }
}
if filter == "parts" {
  let post = Shared(value: OperationState<Int>())
  let n = 200_000
  var start = now()
  for _ in 0..<n { blackHole(post.wrappedValue) }
  print("read", Double(now() - start) / Double(n))
  start = now()
  for _ in 0..<n { post.withLock { $0.operationStatus = .pending } }
  print("withLock", Double(now() - start) / Double(n))
  start = now()
  for _ in 0..<n { post.reset() }
  print("reset (runner lookup + withLock + Date)", Double(now() - start) / Double(n))
}
