import Foundation
import TestSupport
import Testing

@testable import SharedState

/// A server of todos that applies each idempotency key once and records every call, failing a title's first calls
/// when told to.
private actor TodoServer {
  struct Call: Equatable {
    var id: UUID
    var title: String
    var attempt: Int
    var key: QueryKey
  }

  private(set) var todos: [String]
  private(set) var calls: [Call] = []
  private var applied: Set<UUID> = []
  private var failuresLeft: [String: Int] = [:]
  /// The queue's file, read at each call when set: what a kill at that moment would leave.
  private var queueFile: URL?
  /// The entries the queue's file held at each call, by the call's title.
  private(set) var fileAtCall: [String: [UUID]] = [:]

  init(todos: [String] = ["milk"]) {
    self.todos = todos
  }

  func failNext(_ count: Int, callsOf title: String) {
    failuresLeft[title] = count
  }

  func readsQueueFile(at url: URL) {
    queueFile = url
  }

  func add(_ title: String, context: MutationQueueContext) throws -> [String] {
    calls.append(Call(id: context.id, title: title, attempt: context.attempt, key: context.key))
    if let queueFile { fileAtCall[title] = try fileEntries(queueFile).map(\.id) }
    if let left = failuresLeft[title], left > 0 {
      failuresLeft[title] = left - 1
      throw TestFailure(code: left)
    }
    if applied.insert(context.id).inserted { todos.append(title) }
    return todos
  }
}

/// The todos query, the queue and its server, as an app of its own registry would set them up.
private struct TodoApp {
  let todos: Shared<OperationState<[String]>>
  let queue: MutationQueue

  static let insert = OptimisticMutation { (title: String, cache: OptimisticCache) in
    cache.update(
      ["todos"], as: OperationState<[String]>.self,
      OptimisticUpdate(
        apply: { todos in if todos.value?.contains(title) == false { todos.value?.append(title) } },
        rollback: { todos in todos.value?.removeAll { $0 == title } }))
  }

  /// Holds the todos query and makes the queue, in the current registry; registers "add-todo" unless told not to.
  init(
    file: URL, server: TodoServer, network: ManualOnlineStatus, clock: ManualClock = ManualClock(),
    registers: Bool = true
  ) {
    todos = Shared(wrappedValue: OperationState(), .query(["todos"]) { await server.todos })
    queue = MutationQueue(
      file: file, network: network, retryDelay: { failures in .seconds(10 * failures) }, clock: clock)
    if registers { Self.register(on: queue, server: server) }
  }

  static func register(on queue: MutationQueue, server: TodoServer) {
    queue.register(.mutation("add-todo"), invalidates: [["todos"]], awaitsRefetches: true, optimistic: insert) {
      (title: String, context) in
      try await server.add(title, context: context)
    }
  }

  /// Makes the app in a registry of its own, as another run of the program would.
  static func inRegistry(
    _ registry: SharedRegistry, file: URL, server: TodoServer, network: ManualOnlineStatus, registers: Bool = true
  ) -> TodoApp {
    SharedRegistry.$current.withValue(registry) {
      TodoApp(file: file, server: server, network: network, registers: registers)
    }
  }
}

/// One entry of a queue's file.
private struct FileEntry {
  var id: UUID
  var key: QueryKey
  var arguments: String
}

/// The entries of a queue's file, in order.
private func fileEntries(_ url: URL) throws -> [FileEntry] {
  try MutationQueueFile.decode(Data(contentsOf: url)).entries.map {
    FileEntry(id: $0.id, key: $0.key, arguments: String(decoding: $0.arguments, as: UTF8.self))
  }
}

/// Runs the app once, offline, in a registry of its own: restores the queue, queues `titles`, waits until they are
/// saved, and ends (the queue is freed on return). Returns the entries' identifiers.
private func runOffline(queueing titles: [String], file: URL, server: TodoServer) async throws -> [UUID] {
  let app = TodoApp.inRegistry(
    SharedRegistry(), file: file, server: server, network: ManualOnlineStatus(isOnline: false))
  try app.queue.restore()
  let ids = try titles.map { try app.queue.enqueue("add-todo", $0) }
  try await app.queue.flush()
  return ids
}

@Suite(.freshRegistry) struct MutationQueueTests {
  @Test func mutationsQueuedOfflineShowAtOnceAreSavedAndRunInOrderOnceOnline() async throws {
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let server = TodoServer()
    let network = ManualOnlineStatus(isOnline: false)
    let app = TodoApp(file: folder.file("queue.json"), server: server, network: network)
    await waitUntil { app.todos.wrappedValue.value == ["milk"] }
    try app.queue.restore()
    let ids = try ["a", "b", "c"].map { try app.queue.enqueue("add-todo", $0) }
    #expect(app.todos.wrappedValue.value == ["milk", "a", "b", "c"])  // at once
    try await app.queue.flush()
    #expect(try fileEntries(folder.file("queue.json")).map(\.id) == ids)
    #expect(try fileEntries(folder.file("queue.json")).map(\.arguments) == ["\"a\"", "\"b\"", "\"c\""])
    #expect(app.queue.isPaused)
    #expect(app.queue.entries.map(\.status) == [.waiting, .waiting, .waiting])
    #expect(app.queue.entries.allSatisfy { $0.isSaved })
    #expect(try app.queue.entries.map { try $0.arguments(as: String.self) } == ["a", "b", "c"])
    #expect(await server.calls.isEmpty)

    // Holders of the mutation's key see its runs.
    let addTodo = Shared(wrappedValue: MutationState<String, [String]>(), .mutation("add-todo"))
    network.setOnline(true)
    await waitUntil { app.queue.entries.isEmpty }
    #expect(await server.calls.map(\.id) == ids)
    #expect(await server.calls.map(\.title) == ["a", "b", "c"])
    #expect(app.todos.wrappedValue.value == ["milk", "a", "b", "c"])
    #expect(app.todos.wrappedValue.status == .success)
    #expect(addTodo.wrappedValue.history.map(\.status) == [.success, .success, .success])
    #expect(addTodo.wrappedValue.value == ["milk", "a", "b", "c"])
    try await app.queue.flush()
    #expect(try fileEntries(folder.file("queue.json")).isEmpty)
    #expect(!app.queue.isPaused)
  }

  @Test func aFailingEntryIsRetriedAfterItsBackoffWhileTheEntriesBehindItWait() async throws {
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let server = TodoServer()
    await server.failNext(2, callsOf: "a")
    let network = ManualOnlineStatus(isOnline: true)
    let clock = ManualClock()
    let app = TodoApp(file: folder.file("queue.json"), server: server, network: network, clock: clock)
    try app.queue.restore()
    let a = try app.queue.enqueue("add-todo", "a")
    let b = try app.queue.enqueue("add-todo", "b")
    await waitUntil { app.queue.entries.first?.failureCount == 1 && app.queue.entries.first?.status == .waitingToRetry }
    #expect(app.queue.entries.map(\.status) == [.waitingToRetry, .waiting])
    #expect(app.queue.entries.first?.lastError != nil)
    await clock.waitForSleepers(1)
    clock.advance(by: .seconds(10))
    await waitUntil { app.queue.entries.first?.failureCount == 2 && app.queue.entries.first?.status == .waitingToRetry }
    #expect(await server.calls.map(\.title) == ["a", "a"])  // b waits behind a
    await clock.waitForSleepers(1)
    clock.advance(by: .seconds(19))
    #expect(await server.calls.count == 2)  // the second backoff is 20 s
    clock.advance(by: .seconds(1))
    await waitUntil { app.queue.entries.isEmpty }
    let calls = await server.calls
    #expect(calls.map(\.id) == [a, a, a, b])
    #expect(calls.map(\.attempt) == [1, 2, 3, 1])
    #expect(await server.todos == ["milk", "a", "b"])
  }

  @Test func theNetworkComingBackRetriesAFailedEntryAtOnce() async throws {
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let server = TodoServer()
    await server.failNext(1, callsOf: "a")
    let network = ManualOnlineStatus(isOnline: true)
    let clock = ManualClock()
    let app = TodoApp(file: folder.file("queue.json"), server: server, network: network, clock: clock)
    try app.queue.restore()
    try app.queue.enqueue("add-todo", "a")
    await waitUntil { app.queue.entries.first?.status == .waitingToRetry }
    network.setOnline(false)
    await waitUntil { app.queue.isPaused }
    network.setOnline(true)
    await waitUntil { app.queue.entries.isEmpty }
    #expect(await server.calls.map(\.attempt) == [1, 2])
    #expect(clock.now == ManualClock().now)  // no time passed: the backoff was not waited out
  }

  @Test func theQueueIsPausedAndResumedBeforeSetOnlineReturns() async throws {
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let network = ManualOnlineStatus(isOnline: true)
    let app = TodoApp(file: folder.file("queue.json"), server: TodoServer(), network: network)
    try app.queue.restore()
    #expect(!app.queue.isPaused)
    network.setOnline(false)
    #expect(app.queue.isPaused)  // on the very next line, as the store's paused work
    #expect(!app.queue.state.wrappedValue.isOnline)
    network.setOnline(true)
    #expect(!app.queue.isPaused)
    network.setOnline(false)
    network.setOnline(true)
    network.setOnline(false)
    #expect(app.queue.isPaused)
  }

  @Test func aRestartShowsTheOptimisticChangesAgainAndRunsEachEntryOnceWithItsIdentifier() async throws {
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let file = folder.file("queue.json")
    let server = TodoServer()
    let ids = try await runOffline(queueing: ["a", "b"], file: file, server: server)  // then the program ends
    let network = ManualOnlineStatus(isOnline: false)
    let second = TodoApp.inRegistry(SharedRegistry(), file: file, server: server, network: network)
    await waitUntil { second.todos.wrappedValue.value == ["milk"] }
    let restored = try second.queue.restore()
    #expect(restored.map(\.id) == ids)
    #expect(second.todos.wrappedValue.value == ["milk", "a", "b"])  // shown again
    network.setOnline(true)
    await waitUntil { second.queue.entries.isEmpty }
    #expect(await server.calls.map(\.id) == ids)
    #expect(second.todos.wrappedValue.value == ["milk", "a", "b"])
  }

  @Test func entriesOfAnUnregisteredMutationWaitUntilItIsRegistered() async throws {
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let file = folder.file("queue.json")
    let server = TodoServer()
    _ = try await runOffline(queueing: ["a"], file: file, server: server)
    let network = ManualOnlineStatus(isOnline: false)
    let second = TodoApp.inRegistry(SharedRegistry(), file: file, server: server, network: network, registers: false)
    await waitUntil { second.todos.wrappedValue.value == ["milk"] }
    try second.queue.restore()
    network.setOnline(true)
    await waitUntil { !second.queue.isPaused }
    #expect(second.queue.entries.map(\.status) == [.blocked(.notRegistered(key: ["add-todo"]))])
    #expect(second.todos.wrappedValue.value == ["milk"])
    TodoApp.register(on: second.queue, server: server)
    #expect(second.todos.wrappedValue.value == ["milk", "a"])  // its optimistic change, once registered
    await waitUntil { second.queue.entries.isEmpty }
    #expect(await server.calls.map(\.title) == ["a"])
  }

  @Test func argumentsThatNoLongerDecodeBlockTheQueueUntilTheEntryIsDiscarded() async throws {
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let file = folder.file("queue.json")
    let stale = UUID()
    let fine = UUID()
    let document = """
      {"version":1,"entries":[\
      {"id":"\(stale.uuidString)","key":["add-todo"],"arguments":"42","enqueuedAt":0},\
      {"id":"\(fine.uuidString)","key":["add-todo"],"arguments":"\\"b\\"","enqueuedAt":0}]}
      """
    try Data(document.utf8).write(to: file)
    let server = TodoServer()
    let network = ManualOnlineStatus(isOnline: true)
    let app = TodoApp(file: file, server: server, network: network)
    await waitUntil { app.todos.wrappedValue.value == ["milk"] }
    let restored = try app.queue.restore()
    #expect(restored.map(\.id) == [stale, fine])
    guard case .blocked(.undecodableArguments(let key, _)) = restored.first?.status else {
      Issue.record("the stale entry is not blocked: \(String(describing: restored.first?.status))")
      return
    }
    #expect(key == ["add-todo"])
    #expect(restored.last?.status == .waiting)
    #expect(await server.calls.isEmpty)
    #expect(app.queue.discard(stale))
    await waitUntil { app.queue.entries.isEmpty }
    #expect(await server.calls.map(\.id) == [fine])
  }

  @Test func anUnreadableFileIsMovedAsideAndTheQueueStartsEmpty() async throws {
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let file = folder.file("queue.json")
    try Data("{not json".utf8).write(to: file)
    let server = TodoServer()
    let app = TodoApp(file: file, server: server, network: ManualOnlineStatus(isOnline: false))
    let error = #expect(throws: MutationQueueError.self) { try app.queue.restore() }
    guard case .unreadableFile(let url, let movedTo, _) = error else {
      Issue.record("not an unreadable file: \(String(describing: error))")
      return
    }
    #expect(url == file)
    let aside = try #require(movedTo)
    #expect(try Data(contentsOf: aside) == Data("{not json".utf8))  // kept, not lost
    #expect(app.queue.state.wrappedValue.isRestored)
    try app.queue.enqueue("add-todo", "a")
    try await app.queue.flush()
    #expect(try fileEntries(file).map(\.arguments) == ["\"a\""])
  }

  @Test func discardingAnEntryUndoesItsOptimisticChangeAndTakesItOutOfTheFile() async throws {
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let server = TodoServer()
    let app = TodoApp(file: folder.file("queue.json"), server: server, network: ManualOnlineStatus(isOnline: false))
    await waitUntil { app.todos.wrappedValue.value == ["milk"] }
    try app.queue.restore()
    let a = try app.queue.enqueue("add-todo", "a")
    let b = try app.queue.enqueue("add-todo", "b")
    #expect(app.todos.wrappedValue.value == ["milk", "a", "b"])
    #expect(app.queue.discard(a))
    #expect(!app.queue.discard(a))  // no longer queued
    #expect(app.todos.wrappedValue.value == ["milk", "b"])
    try await app.queue.flush()
    #expect(try fileEntries(folder.file("queue.json")).map(\.id) == [b])
  }

  /// "Discarded, it never runs": the entry behind a discarded one starts only once the file no longer holds the
  /// discarded one, so a kill during its run cannot bring the discarded entry back to run after it.
  @Test func theEntryBehindADiscardedOneRunsOnlyOnceTheFileNoLongerHoldsTheDiscardedOne() async throws {
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let file = folder.file("queue.json")
    let server = TodoServer()
    await server.failNext(1, callsOf: "a")
    await server.readsQueueFile(at: file)
    let app = TodoApp(file: file, server: server, network: ManualOnlineStatus(isOnline: true))
    await waitUntil { app.todos.wrappedValue.value == ["milk"] }
    try app.queue.restore()
    let a = try app.queue.enqueue("add-todo", "a")
    let b = try app.queue.enqueue("add-todo", "b")
    let c = try app.queue.enqueue("add-todo", "c")
    await waitUntil { app.queue.entries.first?.status == .waitingToRetry }
    #expect(app.queue.discard(a))
    await waitUntil { app.queue.entries.isEmpty }
    #expect(await server.calls.map(\.id) == [a, b, c])
    let fileAtCall = await server.fileAtCall
    #expect(fileAtCall["a"]?.first == a)
    #expect(fileAtCall["b"] == [b, c])  // a kill now restarts with b: a never runs again
    #expect(fileAtCall["c"] == [c])
    #expect(await server.todos == ["milk", "b", "c"])
  }

  @Test func nothingIsWrittenBeforeTheRestoreAndEntriesQueuedMeanwhileRunAfterTheRestoredOnes() async throws {
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let file = folder.file("queue.json")
    let server = TodoServer()
    let earlier = try await runOffline(queueing: ["a"], file: file, server: server)
    let network = ManualOnlineStatus(isOnline: true)
    let second = TodoApp.inRegistry(SharedRegistry(), file: file, server: server, network: network)
    let meanwhile = try second.queue.enqueue("add-todo", "b")
    try await second.queue.flush()  // returns at once: nothing may be written yet
    #expect(try fileEntries(file).map(\.id) == earlier)
    #expect(second.queue.isPaused)
    #expect(await server.calls.isEmpty)
    try second.queue.restore()
    await waitUntil { second.queue.entries.isEmpty }
    #expect(await server.calls.map(\.id) == earlier + [meanwhile])
  }

  @Test func aFailedWriteShowsItsErrorAndTheEntriesStillRun() async throws {
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    // The queue's folder would be a file: no write can succeed.
    try Data().write(to: folder.file("blocker"))
    let file = folder.file("blocker").appendingPathComponent("queue.json")
    let server = TodoServer()
    let network = ManualOnlineStatus(isOnline: false)
    let app = TodoApp(file: file, server: server, network: network)
    try app.queue.restore()
    try app.queue.enqueue("add-todo", "a")
    await #expect(throws: FileStorageError.self) { try await app.queue.flush() }
    #expect(app.queue.state.wrappedValue.saveError != nil)
    #expect(app.queue.entries.first?.isSaved == false)
    network.setOnline(true)
    await waitUntil { app.queue.entries.isEmpty }
    #expect(await server.calls.map(\.title) == ["a"])
  }

  @Test func aMutationRegisteredUnderAPrefixRunsTheKeysUnderIt() async throws {
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let queue = MutationQueue(file: folder.file("queue.json"), network: ManualOnlineStatus(isOnline: true))
    let seen = Collector<MutationQueueContext>()
    queue.register(MutationKey<String, Int>(["posts"])) { (title: String, context) in
      seen.append(context)
      return title.count
    }
    try queue.restore()
    let id = try queue.enqueue(["posts", 42, "rename"], "New title")
    await waitUntil { queue.entries.isEmpty }
    #expect(seen.elements.map(\.id) == [id])
    #expect(seen.elements.map(\.key) == [["posts", 42, "rename"]])
    #expect(seen.elements.first?.idempotencyKey == id.uuidString)
  }

  /// The flush at exit writes, on the calling thread, entries whose write had not ended; the write still under way
  /// cannot put the older contents back.
  @Test func theExitWritesEntriesWhoseWriteHadNotEndedOnTheCallingThread() async throws {
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let network = ManualOnlineStatus(isOnline: false)
    let app = TodoApp(file: folder.file("queue.json"), server: TodoServer(), network: network)
    try app.queue.restore()
    let ids = try ["a", "b"].map { try app.queue.enqueue("add-todo", $0) }
    try app.queue.flushBeforeExit()
    #expect(try fileEntries(folder.file("queue.json")).map(\.id) == ids)
    try await app.queue.flush()
    #expect(try fileEntries(folder.file("queue.json")).map(\.id) == ids)
    // With everything written, the exit writes nothing: the file is not touched again.
    try FileManager.default.removeItem(at: folder.file("queue.json"))
    try app.queue.flushBeforeExit()
    #expect(!FileManager.default.fileExists(atPath: folder.file("queue.json").path))
  }

  /// Before the restore the exit writes nothing, so an earlier run's entries are never overwritten unread.
  @Test func theExitWritesNothingBeforeTheRestore() throws {
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let app = TodoApp(
      file: folder.file("queue.json"), server: TodoServer(), network: ManualOnlineStatus(isOnline: false))
    try app.queue.enqueue("add-todo", "a")
    try app.queue.flushBeforeExit()
    #expect(!FileManager.default.fileExists(atPath: folder.file("queue.json").path))
  }

  /// The registry's flush writes the queue with the values of the registry.
  @Test func theRegistrysFlushWritesTheQueue() async throws {
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let app = TodoApp(
      file: folder.file("queue.json"), server: TodoServer(), network: ManualOnlineStatus(isOnline: false))
    try app.queue.restore()
    let id = try app.queue.enqueue("add-todo", "a")
    try await SharedRegistry.current.flush()
    #expect(app.queue.entries.map(\.isSaved) == [true])
    #expect(try fileEntries(folder.file("queue.json")).map(\.id) == [id])
  }

  @Test func queueingRejectsUnregisteredKeysOtherTypesAndKeysAFileCannotHold() throws {
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let queue = MutationQueue(file: folder.file("queue.json"), network: ManualOnlineStatus(isOnline: false))
    queue.register(MutationKey<String, Int>(["posts"])) { (title: String, _) in title.count }
    #expect(throws: MutationQueueError.notRegistered(key: ["todos"])) {
      try queue.enqueue(MutationKey<String, Int>(["todos"]), "a")
    }
    #expect(throws: MutationQueueError.self) { try queue.enqueue(MutationKey<Int, Int>(["posts"]), 1) }
    #expect(throws: MutationQueueError.self) {
      try queue.enqueue(MutationKey<String, Int>(["posts", 1.5 as Float]), "a")
    }
    #expect(queue.entries.isEmpty)
  }

  @Test func keyPartsReadBackAsTheTypesTheyWereWrittenWith() throws {
    let key: QueryKey = ["posts", 42, true, 1.5, UUID(uuidString: "00000000-0000-0000-0000-000000000001")!, "42"]
    let entry = MutationQueueEntry(id: UUID(), key: key, arguments: Data("1".utf8), enqueuedAt: Date())
    let decoded = try MutationQueueFile.decode(MutationQueueFile.encode([entry])).entries
    #expect(decoded.map(\.key) == [key])
    #expect(
      decoded.first?.key != ["posts", "42", true, 1.5, UUID(uuidString: "00000000-0000-0000-0000-000000000001")!, "42"])
  }
}
