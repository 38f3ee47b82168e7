// A helper for the two-process tests: a separate instance that shares one value through PostgreSQL, driven by
// commands on standard input, one per line, each answered by one line on standard output. Not part of the product.
//
//   PostgresProbe KEY lww|merge|update   hold KEY (last writer wins, merging the items of both ends, or last writer
//                                        wins with the hammer and increments made by checked updates)
//
// Commands:
//   ready            wait until listening and loaded; answers "ready"
//   count N          set the counter to 1, 2, ... N, one change each, letting the saves run between them (a
//                    Task.yield after each change, and every 50th change waits for its save); answers "counted N"
//   insert NAME N    insert NAME-1 ... NAME-N into the items, the same way; answers "inserted N"
//   save             save now; answers "saved" or "save-failed"
//   await N          wait until the counter is N; answers "value N"
//   items N          wait until there are N items; answers "items N"
//   increment N      add 1 to the counter N times, each a checked update (`PostgresKey.update`), one after another;
//                    answers "incremented N"
//   hammer           save large values in a loop, in the background, until killed or stopped (under `update`: checked
//                    updates that add 1 to the counter); answers "hammering" after the first save
//   stop             stop hammering, then save until a save succeeds (under `update`: an increment); answers
//                    "stopped N", N the counter saved
//   acknowledged     answers "acknowledged N", N the checked updates that returned without an error
// The server the environment names (SHARED_POSTGRES_*, as the tests).
import Foundation
import SharedPostgres
import SharedState
import Synchronization

struct ProbeValue: Codable, Sendable, Equatable {
  var counter = 0
  var items: Set<String> = []
  var padding = ""
}

func answer(_ line: String) {
  FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

let arguments = CommandLine.arguments
let environment = ProcessInfo.processInfo.environment
guard arguments.count == 3, let host = environment["SHARED_POSTGRES_HOST"],
  let user = environment["SHARED_POSTGRES_USER"], let databaseName = environment["SHARED_POSTGRES_DATABASE"]
else {
  FileHandle.standardError.write(
    Data("usage: PostgresProbe KEY lww|merge|update (with SHARED_POSTGRES_* set)\n".utf8))
  exit(64)
}
let database = SharedPostgresDatabase(
  .init(
    host: host, port: Int(environment["SHARED_POSTGRES_PORT"] ?? "") ?? 5432, username: user,
    password: environment["SHARED_POSTGRES_PASSWORD"], database: databaseName,
    reconnectDelay: .milliseconds(50), maximumReconnectDelay: .milliseconds(500)))
let conflicts: PostgresConflictPolicy<ProbeValue> =
  arguments[2] == "merge"
  ? .merge { local, remote in
    ProbeValue(
      counter: max(local.counter, remote.counter), items: local.items.union(remote.items),
      padding: local.padding.count >= remote.padding.count ? local.padding : remote.padding)
  }
  : .lastWriterWins
let key = PostgresKey(arguments[1], in: database, conflicts: conflicts)
let value = Shared(wrappedValue: ProbeValue(), key)
let checkedUpdates = arguments[2] == "update"
let padding = String(repeating: "p", count: 50_000)
/// The checked updates that returned without an error.
let acknowledged = Mutex(0)

/// Adds 1 to the stored counter with a checked update, again until one succeeds; returns the counter written.
func incrementUntilWritten(padded: Bool = false) async -> Int {
  while true {
    let written = try? await key.update(ifMissing: ProbeValue()) { stored in
      stored.counter += 1
      if padded { stored.padding = padding }
    }
    if let written {
      acknowledged.withLock { $0 += 1 }
      return written.counter
    }
    try? await Task.sleep(for: .milliseconds(20))
  }
}

/// Lets the save of a change run before the next change: a yield after each, and a wait for the save every 50th.
func letSavesRun(after step: Int) async {
  if step % 50 == 0 {
    try? await value.save()
  } else {
    await Task.yield()
  }
}

/// Saves until a save succeeds (the server may be restarting).
func saveUntilSaved() async {
  while (try? await value.save()) == nil {
    try? await Task.sleep(for: .milliseconds(20))
  }
}

var hammering: Task<Void, Never>?

func waitUntil(_ predicate: @escaping @Sendable (ProbeValue) -> Bool) async {
  for await current in value.values where predicate(current) { return }
}

while let line = readLine() {
  let words = line.split(separator: " ").map(String.init)
  switch (words.first ?? "", words.count) {
  case ("ready", 1):
    try? await database.waitUntilListening()
    try? await value.load()
    answer("ready")
  case ("count", 2):
    let count = Int(words[1]) ?? 0
    for step in 0..<count {
      value.withLock { $0.counter = step + 1 }
      await letSavesRun(after: step + 1)
    }
    answer("counted \(count)")
  case ("insert", 3):
    let count = Int(words[2]) ?? 0
    for step in 0..<count {
      _ = value.withLock { $0.items.insert("\(words[1])-\(step + 1)") }
      await letSavesRun(after: step + 1)
    }
    answer("inserted \(count)")
  case ("save", 1):
    do {
      try await value.save()
      answer("saved")
    } catch {
      answer("save-failed")
    }
  case ("await", 2):
    let target = Int(words[1]) ?? 0
    await waitUntil { $0.counter == target }
    answer("value \(target)")
  case ("items", 2):
    let target = Int(words[1]) ?? 0
    await waitUntil { $0.items.count == target }
    answer("items \(target)")
  case ("increment", 2):
    let count = Int(words[1]) ?? 0
    for _ in 0..<count { _ = await incrementUntilWritten() }
    answer("incremented \(count)")
  case ("acknowledged", 1):
    answer("acknowledged \(acknowledged.withLock { $0 })")
  case ("hammer", 1) where checkedUpdates:
    let started = AsyncStream<Void>.makeStream()
    hammering = Task {
      var first = true
      while !Task.isCancelled {
        let written = try? await key.update(ifMissing: ProbeValue()) { stored in
          stored.counter += 1
          stored.padding = padding
        }
        if written != nil {
          acknowledged.withLock { $0 += 1 }
        }
        if first {
          first = false
          started.continuation.finish()
        }
      }
    }
    for await _ in started.stream {}
    answer("hammering")
  case ("stop", 1) where checkedUpdates:
    hammering?.cancel()
    await hammering?.value
    hammering = nil
    answer("stopped \(await incrementUntilWritten(padded: true))")
  case ("hammer", 1):
    let started = AsyncStream<Void>.makeStream()
    hammering = Task {
      var step = 0
      while !Task.isCancelled {
        step += 1
        let current = step
        value.withLock { $0 = ProbeValue(counter: current, padding: padding) }
        try? await value.save()
        if current == 1 { started.continuation.finish() }
      }
    }
    for await _ in started.stream {}
    answer("hammering")
  case ("stop", 1):
    hammering?.cancel()
    await hammering?.value
    hammering = nil
    await saveUntilSaved()
    answer("stopped \(value.wrappedValue.counter)")
  default:
    answer("unknown \(line)")
  }
}
await database.close()
