// A helper for the mutation queue's process tests: an app with a todos query, a durable mutation queue and a fake
// backend, driven line by line over standard input, that the tests kill and start again. Not part of the product.
//
//   MutationQueueProbe FOLDER online|offline
//   MutationQueueProbe FOLDER save TITLE       queue "add-todo" with TITLE offline, wait until saved, and exit
//                                              (traced by the durability test)
//
// FOLDER holds the queue (queue.json), the fake backend's data and the calls it received (server.json), and the
// todos as last fetched (cache.json, which stands in for a persisted query cache: it seeds the query at launch).
// The probe registers "add-todo" (an optimistic insert into ["todos"]), restores the queue, and prints "ready".
// Commands, each answered by one line:
//
//   online, offline      set the network                                     -> ok
//   add TITLE            queue "add-todo" with TITLE and wait until saved    -> queued ID
//   show                 the todos shown now                                 -> shown JSON
//   loaded               wait until the todos query has a value              -> loaded JSON
//   drain                wait until the queue is empty and the query idle    -> drained JSON (value, status, error)
//   hold                 hold the backend's next "add" after it applied it   -> ok, then later: received ID
//   fail                 the backend refuses its next "add" (after recording the call; retried in an hour)  -> ok
//   failed               wait until the queue's first entry failed and waits to retry   -> failed ID
//   discard ID           discard the queued entry ID                         -> discarded true|false
//   pid                  the probe's process identifier                      -> pid NUMBER
import Foundation
import SharedState

/// Writes `line` to standard output at once (a pipe would otherwise buffer it).
func say(_ line: String) {
  FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func json(_ value: some Encodable) -> String {
  let encoder = JSONEncoder()
  encoder.outputFormatting = [.sortedKeys]
  return (try? String(decoding: encoder.encode(value), as: UTF8.self)) ?? "?"
}

/// The fake backend: its data and every call it received live in a file, so they outlast the probe. Each
/// idempotency key is applied once. Reads wait for the network, as a real request would.
actor Backend {
  struct Data: Codable {
    var todos = ["milk"]
    var calls: [Call] = []
    var applied: Set<UUID> = []
  }

  struct Call: Codable {
    var id: UUID
    var title: String
  }

  private let url: URL
  private let network: ManualOnlineStatus
  private var data: Data
  private var holdsNext = false
  private var failsNext = false
  private var held: CheckedContinuation<Void, Never>?

  init(url: URL, network: ManualOnlineStatus) {
    self.url = url
    self.network = network
    data = (try? JSONDecoder().decode(Data.self, from: Foundation.Data(contentsOf: url))) ?? Data()
  }

  func todos() async -> [String] {
    for await isOnline in network.onlineStatuses() where isOnline { break }
    return data.todos
  }

  struct Refused: Error {}

  func add(_ title: String, id: UUID) async throws -> [String] {
    data.calls.append(Call(id: id, title: title))
    if failsNext {
      failsNext = false
      save()
      throw Refused()
    }
    if data.applied.insert(id).inserted { data.todos.append(title) }
    save()
    if holdsNext {
      holdsNext = false
      say("received \(id.uuidString)")
      // The call reached the backend and was applied; its answer never leaves (the test kills the probe).
      await withCheckedContinuation { held = $0 }
    }
    return data.todos
  }

  /// Writes the backend's file beside it and renames it over the old one, with no sync (`Data.write` syncs): a kill
  /// at any moment leaves the last whole file (a power loss is not what these tests make), and a test that slows the
  /// queue's syncs (under `strace`) must not slow the backend.
  private func save() {
    let temporary = url.path + ".writing"
    guard let bytes = try? JSONEncoder().encode(data), let file = fopen(temporary, "w") else { return }
    bytes.withUnsafeBytes { _ = fwrite($0.baseAddress, 1, $0.count, file) }
    fclose(file)
    rename(temporary, url.path)
  }

  func holdNext() {
    holdsNext = true
  }

  func failNext() {
    failsNext = true
  }
}

/// What the todos query shows, as the tests compare it.
struct Shown: Encodable {
  var value: [String]?
  var status: String
  var error: String?

  init(_ state: OperationState<[String]>) {
    value = state.value
    status = "\(state.status)"
    error = state.error.map { "\($0)" }
  }
}

/// The todos as last fetched, with when.
struct CachedTodos: Codable {
  var todos: [String]
  var fetchedAt: Date
}

let arguments = CommandLine.arguments
let savesOnce = arguments.count == 4 && arguments[2] == "save"
guard savesOnce || (arguments.count == 3 && (arguments[2] == "online" || arguments[2] == "offline")) else {
  FileHandle.standardError.write(
    Foundation.Data("usage: MutationQueueProbe FOLDER online|offline, or FOLDER save TITLE\n".utf8))
  exit(64)
}
let folder = URL(fileURLWithPath: arguments[1])
let network = ManualOnlineStatus(isOnline: arguments[2] == "online")
let backend = Backend(url: folder.appendingPathComponent("server.json"), network: network)
let cacheURL = folder.appendingPathComponent("cache.json")

let todosQuery = Query<OperationState<[String]>>.query(["todos"]) {
  let todos = await backend.todos()
  try? JSONEncoder().encode(CachedTodos(todos: todos, fetchedAt: Date())).write(to: cacheURL, options: .atomic)
  return todos
}
let store = SharedRegistry.current.queries
if let cached = try? JSONDecoder().decode(CachedTodos.self, from: Foundation.Data(contentsOf: cacheURL)) {
  store.setFetchedValue(cached.todos, for: todosQuery, updatedAt: cached.fetchedAt)
}
let todos = Shared(wrappedValue: OperationState<[String]>(), todosQuery)

// A refused entry is retried after an hour, or when the network comes back: never while a test that made it fail
// still drives the probe, however slow the machine.
let queue = MutationQueue(
  file: folder.appendingPathComponent("queue.json"), network: network, retryDelay: { _ in .seconds(3_600) })
let insert = OptimisticMutation { (title: String, cache: OptimisticCache) in
  cache.update(
    ["todos"], as: OperationState<[String]>.self,
    OptimisticUpdate(
      apply: { todos in if todos.value?.contains(title) == false { todos.value?.append(title) } },
      rollback: { todos in todos.value?.removeAll { $0 == title } }))
}
queue.register(.mutation("add-todo"), invalidates: [["todos"]], awaitsRefetches: true, optimistic: insert) {
  (title: String, context) in
  try await backend.add(title, id: context.id)
}
do {
  try queue.restore()
  if savesOnce {
    try queue.enqueue("add-todo", arguments[3])
    try await queue.flush()
    exit(0)
  }
} catch {
  say("error \(error)")
  exit(1)
}

/// Standard input, line by line, read on a thread of its own.
let (lines, linesContinuation) = AsyncStream.makeStream(of: String.self)
Thread {
  while let line = readLine() { linesContinuation.yield(line) }
  linesContinuation.finish()
}.start()

say("ready")
for await line in lines {
  let words = line.split(separator: " ", maxSplits: 1).map(String.init)
  switch words.first {
  case "online":
    network.setOnline(true)
    say("ok")
  case "offline":
    network.setOnline(false)
    say("ok")
  case "add" where words.count == 2:
    do {
      let id = try queue.enqueue("add-todo", words[1])
      try await queue.flush()
      say("queued \(id.uuidString)")
    } catch {
      say("error \(error)")
    }
  case "show":
    say("shown \(json(todos.wrappedValue.value))")
  case "loaded":
    for await state in todos.values where state.value != nil { break }
    say("loaded \(json(todos.wrappedValue.value))")
  case "drain":
    for await state in queue.state.values where state.entries.isEmpty { break }
    for await state in todos.values where !state.isFetching { break }
    say("drained \(json(Shown(todos.wrappedValue)))")
  case "hold":
    await backend.holdNext()
    say("ok")
  case "fail":
    await backend.failNext()
    say("ok")
  case "failed":
    for await state in queue.state.values where state.entries.first?.status == .waitingToRetry { break }
    say("failed \(queue.entries.first?.id.uuidString ?? "?")")
  case "discard" where words.count == 2:
    say("discarded \(UUID(uuidString: words[1]).map { queue.discard($0) } ?? false)")
  case "pid":
    say("pid \(ProcessInfo.processInfo.processIdentifier)")
  default:
    say("error unknown command \(line)")
  }
}
