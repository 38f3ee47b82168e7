import Foundation
import TestSupport
import Testing

@testable import SharedState

/// An HTTP error of the tests' server.
private struct HTTPError: Error, CustomStringConvertible {
  var status: Int
  var description: String { "HTTP \(status)" }
}

/// A server of todos that answers each title as told (a status code, or success), applies each idempotency key
/// once and records every call.
private actor AnsweringServer {
  struct Call: Equatable {
    var id: UUID
    var title: String
    var attempt: Int
  }

  private(set) var todos: [String] = ["milk"]
  private(set) var calls: [Call] = []
  private var applied: Set<UUID> = []
  /// The status each title is refused with; a title not in it is applied.
  private var refusals: [String: Int] = [:]

  func refuse(_ title: String, with status: Int?) {
    refusals[title] = status
  }

  func add(_ title: String, context: MutationQueueContext) throws -> [String] {
    calls.append(Call(id: context.id, title: title, attempt: context.attempt))
    if let status = refusals[title] { throw HTTPError(status: status) }
    if applied.insert(context.id).inserted { todos.append(title) }
    return todos
  }
}

/// The todos query and a queue whose "add-todo" gives up on a 4xx, or after `maxAttempts`.
private struct GivingUpApp {
  let todos: Shared<OperationState<[String]>>
  let queue: MutationQueue

  static func policy(_ maxAttempts: Int?) -> QueuedMutationRetryPolicy {
    QueuedMutationRetryPolicy(maxAttempts: maxAttempts) { error in
      guard let status = (error as? HTTPError)?.status else { return false }
      return (400..<500).contains(status)
    }
  }

  init(file: URL, server: AnsweringServer, network: ManualOnlineStatus, clock: ManualClock, maxAttempts: Int?) {
    todos = Shared(wrappedValue: OperationState(), .query(["todos"]) { await server.todos })
    queue = MutationQueue(file: file, network: network, retryDelay: { _ in .seconds(10) }, clock: clock)
    let insert = OptimisticMutation { (title: String, cache: OptimisticCache) in
      cache.update(
        ["todos"], as: OperationState<[String]>.self,
        OptimisticUpdate(
          apply: { todos in if todos.value?.contains(title) == false { todos.value?.append(title) } },
          rollback: { todos in todos.value?.removeAll { $0 == title } }))
    }
    queue.register(
      .mutation("add-todo"), invalidates: [["todos"]], awaitsRefetches: true, retry: Self.policy(maxAttempts),
      optimistic: insert
    ) { (title: String, context) in
      try await server.add(title, context: context)
    }
  }

  /// Makes the app in a registry of its own, as another run of the program would.
  static func inRegistry(
    file: URL, server: AnsweringServer, network: ManualOnlineStatus, clock: ManualClock = ManualClock(),
    maxAttempts: Int? = nil
  ) -> GivingUpApp {
    SharedRegistry.$current.withValue(SharedRegistry()) {
      GivingUpApp(file: file, server: server, network: network, clock: clock, maxAttempts: maxAttempts)
    }
  }
}

/// The document of the queue's file, as JSON values.
private func fileDocument(_ url: URL) throws -> [String: Any] {
  try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
}

@Suite(.freshRegistry) struct QueuedMutationRetryPolicyTests {
  @Test func aPermanentFailureGivesUpUndoesItsChangeAndTheEntriesBehindItOfTheSameKeyGoOn() async throws {
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let server = AnsweringServer()
    await server.refuse("bad", with: 422)
    let network = ManualOnlineStatus(isOnline: false)
    let app = GivingUpApp.inRegistry(file: folder.file("queue.json"), server: server, network: network)
    await waitUntil { app.todos.wrappedValue.value == ["milk"] }
    try app.queue.restore()
    let bad = try app.queue.enqueue("add-todo", "bad")
    try app.queue.enqueue("add-todo", "good")
    #expect(app.todos.wrappedValue.value == ["milk", "bad", "good"])
    network.setOnline(true)
    await waitUntil { app.queue.entries.isEmpty && app.queue.state.wrappedValue.failed.count == 1 }
    let failed = try #require(app.queue.state.wrappedValue.failed.first)
    #expect(failed.id == bad && failed.status == .failed && failed.attempts == 1 && failed.failureCount == 1)
    #expect((failed.lastError?.error as? HTTPError)?.status == 422)
    #expect(await server.calls.map(\.title) == ["bad", "good"])  // once: a 4xx is not retried
    await waitUntil { app.todos.wrappedValue.value == ["milk", "good"] }  // the refused change is undone
    try await app.queue.flush()
    let document = try fileDocument(folder.file("queue.json"))
    #expect(document["version"] as? Int == 2)
    #expect((document["failed"] as? [[String: Any]])?.first?["id"] as? String == bad.uuidString)
    #expect((document["failed"] as? [[String: Any]])?.first?["lastError"] as? String == "HTTP 422")

    // Retried once the server takes it: its change shows again, and it runs at the end with a fresh count.
    await server.refuse("bad", with: nil)
    #expect(app.queue.retry(bad))
    #expect(!app.queue.retry(bad))  // not given up any more
    #expect(app.todos.wrappedValue.value == ["milk", "good", "bad"])
    await waitUntil { app.queue.entries.isEmpty && app.queue.state.wrappedValue.failed.isEmpty }
    #expect(await server.calls.map(\.attempt) == [1, 1, 1])
    #expect(await server.todos == ["milk", "good", "bad"])
  }

  @Test func anEntryGivesUpAfterItsMaximumAttemptsAndADiscardRemovesItForGood() async throws {
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let server = AnsweringServer()
    await server.refuse("a", with: 503)
    let network = ManualOnlineStatus(isOnline: true)
    let clock = ManualClock()
    let app = GivingUpApp.inRegistry(
      file: folder.file("queue.json"), server: server, network: network, clock: clock, maxAttempts: 2)
    try app.queue.restore()
    let a = try app.queue.enqueue("add-todo", "a")
    await waitUntil { app.queue.entries.first?.status == .waitingToRetry }
    await clock.waitForSleepers(1)
    clock.advance(by: .seconds(10))
    await waitUntil { app.queue.state.wrappedValue.failed.map(\.id) == [a] }
    #expect(await server.calls.map(\.attempt) == [1, 2])
    #expect(app.queue.entries.isEmpty)
    #expect(app.queue.discard(a))
    #expect(!app.queue.discard(a))
    #expect(app.queue.state.wrappedValue.failed.isEmpty)
    try await app.queue.flush()
    #expect((try fileDocument(folder.file("queue.json"))["failed"] as? [Any])?.isEmpty == true)
  }

  /// Attempts and given-up entries are in the file: the next launch goes on counting, and still shows the refused
  /// entry with its error, for the app to retry or discard.
  @Test func attemptsAndGivenUpEntriesSurviveARelaunch() async throws {
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let server = AnsweringServer()
    await server.refuse("bad", with: 404)
    await server.refuse("a", with: 503)
    let file = folder.file("queue.json")
    var ids: [UUID] = []
    do {
      let first = GivingUpApp.inRegistry(
        file: file, server: server, network: ManualOnlineStatus(isOnline: true), maxAttempts: 3)
      try first.queue.restore()
      ids = [try first.queue.enqueue("add-todo", "bad"), try first.queue.enqueue("add-todo", "a")]
      await waitUntil { first.queue.entries.first?.status == .waitingToRetry }
      try await first.queue.flush()
    }
    #expect(await server.calls.map(\.title) == ["bad", "a"])

    let clock = ManualClock()
    let network = ManualOnlineStatus(isOnline: false)
    let second = GivingUpApp.inRegistry(file: file, server: server, network: network, clock: clock, maxAttempts: 3)
    try second.queue.restore()
    let failed = try #require(second.queue.state.wrappedValue.failed.first)
    #expect(failed.id == ids[0] && failed.status == .failed)
    #expect(failed.lastError?.description == "HTTP 404")
    #expect(second.queue.entries.map(\.attempts) == [1])
    #expect(second.queue.entries.map(\.failureCount) == [1])
    network.setOnline(true)
    await waitUntil { second.queue.entries.first?.status == .waitingToRetry }
    await clock.waitForSleepers(1)
    clock.advance(by: .seconds(10))
    // The third attempt, counted over both launches, is the last.
    await waitUntil { second.queue.state.wrappedValue.failed.map(\.id) == ids }
    #expect(await server.calls.filter { $0.title == "a" }.map(\.attempt) == [1, 2, 3])
  }

  /// A kill during the last allowed attempt leaves the file counting it: the next launch runs the entry once more,
  /// and a launch after a kill during that one gives up without running it.
  @Test func anEntryKilledDuringItsLastAttemptRunsOnceMoreAndNoMore() async throws {
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let server = AnsweringServer()
    await server.refuse("a", with: 503)
    let id = UUID()
    let file = folder.file("queue.json")
    let interrupted = { (attempts: Int) in
      Data(
        #"{"version":2,"entries":[{"id":"\#(id)","key":["add-todo"],"arguments":"\"a\"","enqueuedAt":0,"attempts":\#(attempts),"failures":\#(attempts - 1),"lastError":"HTTP 503"}],"failed":[]}"#
          .utf8)
    }
    try interrupted(2).write(to: file)
    do {
      let app = GivingUpApp.inRegistry(
        file: file, server: server, network: ManualOnlineStatus(isOnline: true), maxAttempts: 2)
      try app.queue.restore()
      await waitUntil { app.queue.state.wrappedValue.failed.map(\.id) == [id] }
      #expect(await server.calls.map(\.attempt) == [3])
      #expect(app.queue.state.wrappedValue.failed.first?.attempts == 3)
      try await app.queue.flush()  // no write of this launch lands over the file written next
    }

    try interrupted(3).write(to: file)
    let app = GivingUpApp.inRegistry(
      file: file, server: server, network: ManualOnlineStatus(isOnline: true), maxAttempts: 2)
    await waitUntil { app.todos.wrappedValue.value == ["milk"] }
    try app.queue.restore()
    let failed = try #require(app.queue.state.wrappedValue.failed.first)
    #expect(failed.lastError?.error as? MutationQueueError == .attemptsInterrupted(key: ["add-todo"], attempts: 3))
    #expect(app.queue.entries.isEmpty)
    #expect(app.todos.wrappedValue.value == ["milk"])  // its change was made at the restore, and undone
    try await app.queue.flush()
    #expect(await server.calls.count == 1)  // not run again
  }

  /// A file of the first format (no attempts, no given-up entries) is read, and written back in the current one.
  @Test func aFileOfTheFirstFormatIsReadAndWrittenBackInTheCurrentOne() async throws {
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let server = AnsweringServer()
    let id = UUID()
    let file = folder.file("queue.json")
    try Data(
      #"{"version":1,"entries":[{"id":"\#(id)","key":["add-todo"],"arguments":"\"a\"","enqueuedAt":0}]}"#.utf8
    ).write(to: file)
    let network = ManualOnlineStatus(isOnline: false)
    let app = GivingUpApp.inRegistry(file: file, server: server, network: network)
    let restored = try app.queue.restore()
    #expect(restored.map(\.id) == [id])
    #expect(restored.map(\.attempts) == [0])
    #expect(app.queue.state.wrappedValue.failed.isEmpty)
    network.setOnline(true)
    await waitUntil { app.queue.entries.isEmpty }
    #expect(await server.calls.map(\.attempt) == [1])
    try await app.queue.flush()
    #expect(try fileDocument(file)["version"] as? Int == 2)
  }

  @Test func theFileKeepsAttemptsFailuresErrorsAndGivenUpEntries() throws {
    var entry = MutationQueueEntry(id: UUID(), key: ["add-todo"], arguments: Data("\"a\"".utf8), enqueuedAt: Date())
    entry.attempts = 3
    entry.failures = 2
    entry.lastError = HashableError(HTTPError(status: 503))
    var given = MutationQueueEntry(id: UUID(), key: ["add-todo"], arguments: Data("\"b\"".utf8), enqueuedAt: Date())
    given.attempts = 1
    given.failures = 1
    given.lastError = HashableError(HTTPError(status: 422))
    let decoded = try MutationQueueFile.decode(MutationQueueFile.encode([entry], failed: [given]))
    #expect(decoded.entries.map(\.id) == [entry.id] && decoded.failed.map(\.id) == [given.id])
    #expect(decoded.entries.map(\.attempts) == [3] && decoded.entries.map(\.failures) == [2])
    #expect(decoded.entries.first?.lastError?.description == "HTTP 503")
    #expect(decoded.failed.first?.lastError?.description == "HTTP 422")
    #expect(throws: (any Error).self) {
      try MutationQueueFile.decode(Data(#"{"version":3,"entries":[]}"#.utf8))
    }
  }
}
