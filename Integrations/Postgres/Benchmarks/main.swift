// Numbers for the PostgreSQL integration, against bare PostgreSQL in the same run, on the server the environment
// names (SHARED_POSTGRES_*, as the tests; `bash .ci/postgres-tests --serve` starts one).
//
//   swift run -c release --package-path Integrations/Postgres PostgresBenchmarks [--quick]
//
// - propagation: a round trip between this process and a child process (this one changes the value, the child
//   sees it and answers with a change of its own, this one sees that), halved, p50 and p99; against a bare
//   NOTIFY/LISTEN round trip between the same two processes, in alternating blocks.
// - saves per second: `withLock` + `save()` one after another on one key, and on 1,000 keys saved at once; against
//   bare upserts of the same JSON on one connection.
// - increments per second: checked updates (`PostgresKey.update`) adding 1 to one counter, one after another in
//   this process, from 3 processes at once, and from 3 and 6 processes that each hold the key meanwhile (every
//   increment reaches every other process's value); against a bare `UPDATE … SET n = n + 1` the same ways (the
//   contended rows alternate bare and checked runs, twice each).
import Foundation
import Logging
import PostgresNIO
import SharedPostgres
import SharedState

struct Counter: Codable, Sendable, Equatable {
  var value = 0
}

let environment = ProcessInfo.processInfo.environment
guard let host = environment["SHARED_POSTGRES_HOST"], let user = environment["SHARED_POSTGRES_USER"],
  let databaseName = environment["SHARED_POSTGRES_DATABASE"]
else {
  print("Set SHARED_POSTGRES_HOST/PORT/USER/PASSWORD/DATABASE (bash .ci/postgres-tests --serve starts a server).")
  exit(64)
}
let configuration = SharedPostgresDatabase.Configuration(
  host: host, port: Int(environment["SHARED_POSTGRES_PORT"] ?? "") ?? 5432, username: user,
  password: environment["SHARED_POSTGRES_PASSWORD"], database: databaseName, tableName: "benchmark_values",
  channel: "benchmark_values")
let logger = Logger(label: "benchmarks", factory: { _ in SwiftLogNoOpLogHandler() })

func connect() async throws -> PostgresConnection {
  try await PostgresConnection.connect(
    configuration: .init(
      host: configuration.host, port: configuration.port, username: configuration.username,
      password: configuration.password, database: configuration.database, tls: .disable),
    id: 1, logger: logger)
}

func execute(_ query: PostgresQuery, on connection: PostgresConnection) async throws {
  _ = try await connection.query(query, logger: logger)
}

let arguments = CommandLine.arguments

// MARK: Child modes

if arguments.count == 3, arguments[1] == "--echo-shared" {
  // Answers every odd value with the next even one.
  let database = SharedPostgresDatabase(configuration)
  try await database.waitUntilListening()
  let counter = Shared(wrappedValue: Counter(), .postgres(arguments[2], in: database))
  try await counter.load()
  FileHandle.standardOutput.write(Data("ready\n".utf8))
  for await current in counter.values where current.value % 2 == 1 {
    counter.withLock { $0.value = current.value + 1 }
  }
  exit(0)
}
if arguments.count == 3, arguments[1] == "--echo-bare" {
  // Answers every notification on the channel `ping_NAME` with one on `pong_NAME`.
  let listener = try await connect()
  let sender = try await connect()
  let name = arguments[2]
  try await listener.listen(on: "ping_\(name)") { notifications in
    FileHandle.standardOutput.write(Data("ready\n".utf8))
    for try await notification in notifications {
      try await sender.query("SELECT pg_notify(\("pong_\(name)"), \(notification.payload))::text", logger: logger)
    }
  }
  exit(0)
}

if arguments.count == 4,
  ["--increment-shared", "--increment-held", "--increment-bare"].contains(arguments[1])
{
  // Answers "ready" once connected, then, on a line of standard input, adds 1 to the counter ARGUMENT[2] as many times
  // as ARGUMENT[3] says, and answers "done". `--increment-held` keeps the key open meanwhile (a `Shared` value of
  // it, loaded and listening), so every other process's increment reaches it.
  let count = Int(arguments[3]) ?? 0
  let name = arguments[2]
  if arguments[1] != "--increment-bare" {
    let database = SharedPostgresDatabase(configuration)
    let counter = PostgresKey<Counter>(name, in: database)
    try await counter.update(ifMissing: Counter()) { _ in }
    var held: Shared<Counter>?
    if arguments[1] == "--increment-held" {
      try await database.waitUntilListening()
      let value = Shared(wrappedValue: Counter(), .postgres(name, in: database))
      try await value.load()
      held = value
    }
    FileHandle.standardOutput.write(Data("ready\n".utf8))
    _ = readLine()
    for _ in 0..<count { try await counter.update(ifMissing: Counter()) { $0.value += 1 } }
    withExtendedLifetime(held) {}
    await database.close()
  } else {
    let connection = try await connect()
    FileHandle.standardOutput.write(Data("ready\n".utf8))
    _ = readLine()
    for _ in 0..<count {
      try await execute("UPDATE bare_counters SET n = n + 1 WHERE id = \(name)", on: connection)
    }
    try await connection.close().get()
  }
  FileHandle.standardOutput.write(Data("done\n".utf8))
  exit(0)
}

// MARK: Measurements

let quick = arguments.contains("--quick")
let samples = quick ? 50 : 1_000

func percentile(_ sorted: [Duration], _ fraction: Double) -> Duration {
  sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))]
}

func microseconds(_ duration: Duration) -> String {
  let (seconds, attoseconds) = duration.components
  return String(format: "%.1f µs", Double(seconds) * 1e6 + Double(attoseconds) / 1e12)
}

/// Starts this executable as a child in `mode`, and waits for its "ready".
func child(_ mode: String, _ name: String) throws -> Process {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: arguments[0])
  process.arguments = [mode, name]
  let output = Pipe()
  process.standardOutput = output
  try process.run()
  var line = Data()
  while !line.contains(UInt8(ascii: "\n")) {
    let chunk = output.fileHandleForReading.availableData
    if chunk.isEmpty { break }
    line.append(chunk)
  }
  return process
}

let run = UUID().uuidString.prefix(8).lowercased()

// Propagation, measured side by side: blocks of bare NOTIFY/LISTEN round trips alternate with blocks of the shared
// value's round trips, all halved, so both see the same load on the machine; the first round trips of each block are
// not counted (what the other kind left running is then over). Two rounds: changes by `withLock`, then by checked
// updates (a checked write before the notification), each with its own echoing child.
let bareChild = try child("--echo-bare", "b\(run)")
let bareListener = try await connect()
let bareSender = try await connect()
let database = SharedPostgresDatabase(configuration)
try await database.waitUntilListening()
var (bare, shared) = try await roundTrips(database: database, key: "propagation-\(run)")
var (bareBesideUpdates, updated) = try await roundTrips(
  database: database, key: "propagation-update-\(run)", checked: true)
bareChild.terminate()

/// `samples` round trips of each kind, halved, in alternating blocks: bare ones, and ones of the shared value of
/// `key`, changed by `withLock` or by a checked update, with a child echoing it.
func roundTrips(
  database: SharedPostgresDatabase, key: String, checked: Bool = false
) async throws -> (bare: [Duration], shared: [Duration]) {
  let sharedChild = try child("--echo-shared", key)
  defer { sharedChild.terminate() }
  let counter = Shared(wrappedValue: Counter(), .postgres(key, in: database))
  try await counter.load()
  let block = 25
  let skipped = 5
  var bare: [Duration] = []
  var shared: [Duration] = []
  try await bareListener.listen(on: "pong_b\(run)") { notifications in
    var bareIterator = notifications.makeAsyncIterator()
    var sharedIterator = counter.values.makeAsyncIterator()
    var sent = 1
    while shared.count < samples {
      for sample in 0..<block {
        let start = ContinuousClock.now
        try await bareSender.query("SELECT pg_notify(\("ping_b\(run)"), \(String(sample)))::text", logger: logger)
        _ = try await bareIterator.next()
        if sample >= skipped { bare.append((ContinuousClock.now - start) / 2) }
      }
      for sample in 0..<block {
        let value = sent
        sent += 2
        let start = ContinuousClock.now
        if checked {
          try await PostgresKey<Counter>(key, in: database).update(ifMissing: Counter()) { $0.value = value }
        } else {
          counter.withLock { $0.value = value }
        }
        while let current = await sharedIterator.next(), current.value != value + 1 {}
        if sample >= skipped { shared.append((ContinuousClock.now - start) / 2) }
      }
    }
  }
  return (bare, shared)
}

bare.sort()
shared.sort()
bareBesideUpdates.sort()
updated.sort()
func row(_ name: String, _ sorted: [Duration]) {
  print("| \(name) | \(microseconds(percentile(sorted, 0.5))) | \(microseconds(percentile(sorted, 0.99))) |")
}
func ratios(_ name: String, _ sorted: [Duration], against bare: [Duration], goal: String = "") {
  let p50 = percentile(sorted, 0.5).seconds / percentile(bare, 0.5).seconds
  let p99 = percentile(sorted, 0.99).seconds / percentile(bare, 0.99).seconds
  print("| \(name) | " + String(format: "%.2fx", p50) + goal + " | " + String(format: "%.2fx", p99) + goal + " |")
}
print("| propagation (one way, half a round trip between two processes; samples side by side) | p50 | p99 |")
print("|---|---|---|")
row("bare NOTIFY/LISTEN (beside withLock)", bare)
row("withLock -> observer in the other process", shared)
ratios("withLock ratio", shared, against: bare, goal: " (goal <= 2x)")
row("bare NOTIFY/LISTEN (beside checked updates)", bareBesideUpdates)
row("checked update -> observer in the other process", updated)
ratios("checked update ratio", updated, against: bareBesideUpdates)

// Saves per second.
let saves = quick ? 200 : 2_000
let json = String(decoding: try JSONEncoder().encode(Counter(value: 1)), as: UTF8.self)
let bareConnection = try await connect()
try await execute(
  "CREATE TABLE IF NOT EXISTS bare_values (id text PRIMARY KEY, value text NOT NULL, version bigint NOT NULL)",
  on: bareConnection)
func bareUpsert(_ key: String) async throws {
  try await bareConnection.query(
    """
    INSERT INTO bare_values AS stored (id, value, version) VALUES (\(key), \(json), 1)
    ON CONFLICT (id) DO UPDATE SET value = EXCLUDED.value, version = stored.version + 1
    """, logger: logger)
}

var start = ContinuousClock.now
for _ in 0..<saves { try await bareUpsert("one-\(run)") }
let bareOneKey = Double(saves) / (ContinuousClock.now - start).seconds

let one = Shared(wrappedValue: Counter(), .postgres("one-\(run)", in: database))
try await one.load()
start = ContinuousClock.now
for step in 0..<saves {
  one.withLock { $0.value = step }
  try await one.save()
}
let sharedOneKey = Double(saves) / (ContinuousClock.now - start).seconds

let keyCount = quick ? 100 : 1_000
start = ContinuousClock.now
for index in 0..<keyCount { try await bareUpsert("many-\(run)-\(index)") }
let bareManyKeys = Double(keyCount) / (ContinuousClock.now - start).seconds

let many = (0..<keyCount).map { Shared(wrappedValue: Counter(), .postgres("many-\(run)-\($0)", in: database)) }
for value in many { try await value.load() }
start = ContinuousClock.now
try await withThrowingTaskGroup(of: Void.self) { group in
  for value in many {
    value.withLock { $0.value = 1 }
    group.addTask { try await value.save() }
  }
  try await group.waitForAll()
}
let sharedManyKeys = Double(keyCount) / (ContinuousClock.now - start).seconds

print("")
print("| saves per second | bare upserts | shared values | ratio |")
print("|---|---|---|---|")
print(
  String(
    format: "| one key, one after another | %.0f | %.0f | %.2fx |", bareOneKey, sharedOneKey, sharedOneKey / bareOneKey)
)
print(
  String(
    format: "| %d keys at once | %.0f | %.0f | %.2fx |", keyCount, bareManyKeys, sharedManyKeys,
    sharedManyKeys / bareManyKeys))
// Increments: checked updates against a bare `UPDATE … SET n = n + 1`, one after another and from 3 processes.
let increments = quick ? 200 : 2_000
try await execute(
  "CREATE TABLE IF NOT EXISTS bare_counters (id text PRIMARY KEY, n bigint NOT NULL)", on: bareConnection)
try await execute("INSERT INTO bare_counters VALUES (\("one-\(run)"), 0)", on: bareConnection)
start = ContinuousClock.now
for _ in 0..<increments {
  try await execute("UPDATE bare_counters SET n = n + 1 WHERE id = \("one-\(run)")", on: bareConnection)
}
let bareIncrements = Double(increments) / (ContinuousClock.now - start).seconds

let counter = PostgresKey<Counter>("increments-\(run)", in: database)
try await counter.update(ifMissing: Counter()) { _ in }
start = ContinuousClock.now
for _ in 0..<increments { try await counter.update(ifMissing: Counter()) { $0.value += 1 } }
let sharedIncrements = Double(increments) / (ContinuousClock.now - start).seconds

/// Starts `processes` children in `mode` on `name`, each adding 1 `perProcess` times once told to go; returns
/// increments per second, from the go to the last "done".
func incrementsFromProcesses(_ processes: Int, _ mode: String, _ name: String, perProcess: Int) throws -> Double {
  var children: [(process: Process, input: FileHandle, output: FileHandle)] = []
  for _ in 0..<processes {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: arguments[0])
    process.arguments = [mode, name, String(perProcess)]
    let output = Pipe()
    let input = Pipe()
    process.standardOutput = output
    process.standardInput = input
    try process.run()
    children.append((process, input.fileHandleForWriting, output.fileHandleForReading))
  }
  func waitForLine(from output: FileHandle) {
    var line = Data()
    while !line.contains(UInt8(ascii: "\n")) {
      let chunk = output.availableData
      if chunk.isEmpty { break }
      line.append(chunk)
    }
  }
  for child in children { waitForLine(from: child.output) }
  let start = ContinuousClock.now
  for child in children { child.input.write(Data("go\n".utf8)) }
  for child in children {
    waitForLine(from: child.output)
    child.process.waitUntilExit()
  }
  return Double(processes * perProcess) / (ContinuousClock.now - start).seconds
}

/// One row of contended increments: `processes` processes on one counter, bare and with checked updates (the key
/// held by every process, or not), in two rounds each, one after the other (bare, checked, bare, checked), so that a
/// change in the machine's load falls on both; the checked updates' counter is read back to show none was lost.
struct ContendedRow {
  var processes: Int
  var held: Bool
  var bare: Double
  var shared: Double
  var kept: Int
  var expected: Int
}
let perProcess = quick ? 100 : 500
let rounds = 2
var contendedRows: [ContendedRow] = []
for (processes, held) in [(3, false), (3, true), (6, true)] {
  let bareName = "bare-\(processes)-\(held)-\(run)"
  let name = "contended-\(processes)-\(held)-\(run)"
  try await execute("INSERT INTO bare_counters VALUES (\(bareName), 0)", on: bareConnection)
  var bareSeconds = 0.0
  var sharedSeconds = 0.0
  let increments = Double(processes * perProcess)
  for _ in 0..<rounds {
    bareSeconds +=
      increments / (try incrementsFromProcesses(processes, "--increment-bare", bareName, perProcess: perProcess))
    sharedSeconds +=
      increments
      / (try incrementsFromProcesses(
        processes, held ? "--increment-held" : "--increment-shared", name, perProcess: perProcess))
  }
  let kept = try await PostgresKey<Counter>(name, in: database).update(ifMissing: Counter()) { _ in }.value
  contendedRows.append(
    ContendedRow(
      processes: processes, held: held, bare: Double(rounds) * increments / bareSeconds,
      shared: Double(rounds) * increments / sharedSeconds, kept: kept, expected: rounds * processes * perProcess))
}

print("")
print("| increments per second | bare `UPDATE … SET n = n + 1` | checked updates | ratio |")
print("|---|---|---|---|")
print(
  String(
    format: "| one after another, one process | %.0f | %.0f | %.2fx |", bareIncrements, sharedIncrements,
    sharedIncrements / bareIncrements))
for row in contendedRows {
  let holding = row.held ? "each holding the key" : "the key not held"
  print(
    "| \(row.processes) processes at once, one counter, \(holding) (\(row.kept) of \(row.expected) kept) "
      + String(format: "| %.0f | %.0f | %.2fx |", row.bare, row.shared, row.shared / row.bare))
}
try await execute("DROP TABLE bare_counters", on: bareConnection)
try await execute("DROP TABLE bare_values", on: bareConnection)
try await bareConnection.close().get()
try await bareListener.close().get()
try await bareSender.close().get()
await database.close()

extension Duration {
  var seconds: Double {
    let (seconds, attoseconds) = components
    return Double(seconds) + Double(attoseconds) / 1e18
  }
}
