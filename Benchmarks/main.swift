// `swift run -c release Benchmarks`: every scenario beside a bare primitive measured in the same run.

let plan = Plan()
var rows: [Row] = []

let mutexIncrements = mutexIncrement(plan)
rows.append(
  Row(
    scenario: "withLock { $0 += 1 }, no subscribers", measurement: boxIncrement(plan),
    baselineName: "Mutex.withLock", baseline: mutexIncrements, budget: .ratio(3)))

rows.append(
  Row(
    scenario: "read", measurement: boxRead(plan),
    baselineName: "Mutex.withLock read", baseline: mutexRead(plan), budget: .ratio(2)))

let fanOutPlan = Plan(repetitions: 5, warmUps: 1)
let streams = await fanOutPlan.measureAsync { await asyncStreamFanOut(subscribers: 100, changes: 5_000) }
let fanOut = await fanOutPlan.measureAsync { await boxFanOut(subscribers: 100, changes: 5_000) }
rows.append(
  Row(
    scenario: "1 change -> 100 subscribers (.all), per delivery", measurement: fanOut,
    baselineName: "100 AsyncStreams", baseline: streams, budget: .nanoseconds(60)))

printTable(rows)
