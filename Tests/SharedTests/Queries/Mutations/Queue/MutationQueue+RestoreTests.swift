import Foundation
import TestSupport
import Testing

@testable import SharedState

/// The mutation queue across real process deaths: the MutationQueueProbe app is killed with SIGKILL and started
/// again on the same folder, and its fake backend records every call it receives in a file.
@Suite(
  .enabled(if: queueProbeExecutable() != nil, "needs the MutationQueueProbe helper, built with the tests"),
  .timeLimit(.minutes(20)))
struct MutationQueueRestoreTests {
  /// The backend's file: its todos and every call it received, in order.
  struct Backend: Decodable {
    struct Call: Decodable, Equatable {
      var id: UUID
      var title: String
    }

    var todos: [String]
    var calls: [Call]

    /// The backend's file in `folder`; no todos and no calls if it received none yet.
    init(folder: URL) throws {
      let file = folder.appendingPathComponent("server.json")
      guard FileManager.default.fileExists(atPath: file.path) else {
        self.init(todos: [], calls: [])
        return
      }
      self = try JSONDecoder().decode(Self.self, from: Data(contentsOf: file))
    }

    init(todos: [String], calls: [Call]) {
      self.todos = todos
      self.calls = calls
    }
  }

  /// Queues `titles` offline in a probe started online (so the todos are fetched first); returns the probe, the
  /// entries' identifiers and the todos it shows then.
  private func queueOffline(_ titles: [String], in folder: URL) async throws -> (QueueProbe, [UUID], String) {
    let probe = try await QueueProbe(folder: folder, online: true)
    #expect(try await probe.ask("loaded", answer: "loaded") == #"["milk"]"#)
    try await probe.ask("offline", expecting: "ok")
    var ids: [UUID] = []
    for title in titles {
      ids.append(try #require(UUID(uuidString: try await probe.ask("add \(title)", answer: "queued"))))
    }
    return (probe, ids, try await probe.ask("show", answer: "shown"))
  }

  /// Twenty-four kills at moments no one chooses, while the queue sends online: each launch queues two more entries
  /// (each acknowledged once saved) and is killed after a varying number of round trips, wherever its sends are.
  /// In the end every acknowledged entry reached the backend, was applied once, and in the order it was queued.
  @Test func entriesQueuedAcrossTwentyFourKillsEachApplyOnceInOrder() async throws {
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    var titles: [String] = []
    var ids: [UUID] = []
    for round in 0..<24 {
      let probe = try await QueueProbe(folder: folder.url, online: true)
      for index in 0..<2 {
        let title = "r\(round)-\(index)"
        ids.append(try #require(UUID(uuidString: try await probe.ask("add \(title)", answer: "queued"))))
        titles.append(title)
      }
      for _ in 0..<(round % 4) { _ = try await probe.ask("show", answer: "shown") }
      await probe.kill()
    }
    let last = try await QueueProbe(folder: folder.url, online: true)
    let end = try await last.ask("drain", answer: "drained")
    await last.kill()
    let backend = try Backend(folder: folder.url)
    #expect(backend.todos == ["milk"] + titles)
    // Each entry was sent at least once (again after a kill during its run, by the same key), in the order queued.
    var firstCalls: [UUID] = []
    for call in backend.calls where !firstCalls.contains(call.id) { firstCalls.append(call.id) }
    #expect(firstCalls == ids)
    #expect(end.contains(#""value":["milk","r0-0""#))
  }

  @Test func mutationsQueuedOfflineSurviveAKillAndEachRunsOnceInOrderEndingAsWithoutTheRestart() async throws {
    // Without a restart: queued offline, then sent.
    let unbroken = try TemporaryFolder()
    defer { unbroken.delete() }
    let (control, _, controlShown) = try await queueOffline(["a", "b", "c"], in: unbroken.url)
    try await control.ask("online", expecting: "ok")
    let controlEnd = try await control.ask("drain", answer: "drained")
    await control.kill()

    // The same, with the program killed after queueing and started again, offline.
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let (first, ids, shownBeforeKill) = try await queueOffline(["a", "b", "c"], in: folder.url)
    #expect(shownBeforeKill == #"["milk","a","b","c"]"#)
    #expect(shownBeforeKill == controlShown)
    await first.kill()
    let second = try await QueueProbe(folder: folder.url, online: false)
    // The optimistic changes show again after the restart, before anything was sent.
    #expect(try await second.ask("show", answer: "shown") == shownBeforeKill)
    #expect(try Backend(folder: folder.url).calls.isEmpty)
    try await second.ask("online", expecting: "ok")
    let end = try await second.ask("drain", answer: "drained")
    await second.kill()

    let backend = try Backend(folder: folder.url)
    #expect(backend.calls.map(\.id) == ids)  // each once, in order, by its idempotency key
    #expect(backend.calls.map(\.title) == ["a", "b", "c"])
    #expect(backend.todos == ["milk", "a", "b", "c"])
    #expect(end == controlEnd)  // the cache ends as if there had been no restart
    #expect(end.contains(#""status":"success""#))
    #expect(try Backend(folder: unbroken.url).calls.map(\.title) == ["a", "b", "c"])
  }

  /// The queue's file is written as file storage writes: one write of a new file, an fsync of it, a rename over the
  /// file, an fsync of the folder.
  @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/strace"), "needs strace"))
  func aQueuedMutationIsWrittenOnceSyncedRenamedAndItsFolderSynced() async throws {
    let probe = try #require(queueProbeExecutable())
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let base = folder.url.resolvingSymlinksInPath()
    let file = base.appendingPathComponent("queue.json")
    let (status, calls) = try await TracedCalls.trace(probe, [base.path, "save", "a"], file: file, in: folder)
    #expect(status == 0)
    #expect(calls.isOneDurableWrite, "\(calls.lines)")
    let saved = try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any]
    #expect((saved?["entries"] as? [[String: Any]])?.first?["arguments"] as? String == #""a""#)
  }

  @Test func aKillWhileAMutationRunsRunsOnlyThatOneAgainWithTheSameIdempotencyKey() async throws {
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let (first, ids, _) = try await queueOffline(["a", "b"], in: folder.url)
    try await first.ask("hold", expecting: "ok")
    // The backend applies "a" and holds its answer: killed then, the probe never hears that "a" succeeded.
    let answer = try await first.ask("online")
    let answers = Set([answer, await first.next()])
    #expect(answers == ["ok", "received \(ids[0].uuidString)"])
    await first.kill()

    let second = try await QueueProbe(folder: folder.url, online: true)
    let end = try await second.ask("drain", answer: "drained")
    await second.kill()
    let backend = try Backend(folder: folder.url)
    // At least once: "a" ran again, with the same key, and the backend applied it once. "b" ran once.
    #expect(backend.calls.map(\.id) == [ids[0], ids[0], ids[1]])
    #expect(backend.todos == ["milk", "a", "b"])
    #expect(end.contains(#""value":["milk","a","b"]"#))
  }

  /// "Discarded, it never runs", across a real kill: the app discards a failing first entry, the entry behind it
  /// runs, and the program is killed during that run. Each write of the queue's file is held 0.6 s (its syncs, under
  /// `strace`), so the kill comes before the discard's write could end unless the entry behind waited for it.
  @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/strace"), "needs strace"))
  func aKillAfterADiscardNeverRunsTheDiscardedEntryAndRunsOnlyTheRunningOneAgain() async throws {
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let first = try await QueueProbe(folder: folder.url, online: false, slowSyncs: true)
    var ids: [UUID] = []
    for title in ["a", "b", "c"] {
      ids.append(try #require(UUID(uuidString: try await first.ask("add \(title)", answer: "queued"))))
    }
    try await first.ask("fail", expecting: "ok")
    try await first.ask("online", expecting: "ok")
    #expect(try await first.ask("failed", answer: "failed") == ids[0].uuidString)
    try await first.ask("hold", expecting: "ok")
    // "b" runs once "a" is discarded; the backend applies it and holds its answer, and the probe is killed then.
    let answer = try await first.ask("discard \(ids[0].uuidString)")
    let answers = Set([answer, await first.next()])
    #expect(answers == ["discarded true", "received \(ids[1].uuidString)"])
    await first.kill()

    let second = try await QueueProbe(folder: folder.url, online: true)
    let end = try await second.ask("drain", answer: "drained")
    await second.kill()
    let backend = try Backend(folder: folder.url)
    // "a" ran once (refused) and never again; "b", which was running, ran again with the same key; then "c".
    #expect(backend.calls.map(\.id) == [ids[0], ids[1], ids[1], ids[2]])
    #expect(backend.todos == ["milk", "b", "c"])
    #expect(end.contains(#""value":["milk","b","c"]"#))
  }
}

/// The probe executable, built next to this test bundle.
func queueProbeExecutable() -> URL? {
  let bundle = URL(fileURLWithPath: Bundle.main.executablePath ?? CommandLine.arguments[0])
  let candidate = bundle.deletingLastPathComponent().appendingPathComponent("MutationQueueProbe")
  return FileManager.default.isExecutableFile(atPath: candidate.path) ? candidate : nil
}

/// A running MutationQueueProbe, driven line by line.
final class QueueProbe: Sendable {
  /// The probe, or the `strace` it runs under.
  private let process: Process
  /// The probe's own process identifier: what a kill ends.
  private let probeIdentifier: Int32
  private let input: FileHandle
  private let lines = ProbeLines()

  struct UnexpectedAnswer: Error, CustomStringConvertible {
    var command: String
    var answer: String?
    var description: String { "the probe answered \(answer ?? "nothing (it ended)") to \(command)" }
  }

  /// Starts the probe on `folder` and waits until it is ready. With `slowSyncs`, it runs under `strace`, which
  /// holds each of its `fsync` calls for 0.3 s: every write of the queue's file ends 0.6 s later.
  init(folder: URL, online: Bool, slowSyncs: Bool = false) async throws {
    let executable = try #require(queueProbeExecutable())
    let process = Process()
    let arguments = [folder.path, online ? "online" : "offline"]
    if slowSyncs {
      // Syncs: the queue's writes sync the file and its folder, the fake backend's writes do not, so only the queue
      // is slowed.
      let syncs = "fsync,fdatasync"
      process.executableURL = URL(fileURLWithPath: "/usr/bin/strace")
      process.arguments =
        ["-f", "-qq", "-o", "/dev/null", "-e", "trace=\(syncs)", "-e", "inject=\(syncs):delay_enter=300000"]
        + [executable.path] + arguments
    } else {
      process.executableURL = executable
      process.arguments = arguments
    }
    let output = Pipe()
    let input = Pipe()
    process.standardOutput = output
    process.standardInput = input
    output.fileHandleForReading.readabilityHandler = { [lines] handle in
      let data = handle.availableData
      if data.isEmpty {
        handle.readabilityHandler = nil
        lines.end()
      } else {
        lines.append(data)
      }
    }
    try process.run()
    self.process = process
    self.input = input.fileHandleForWriting
    let ready = await lines.next()
    guard ready == "ready" else { throw UnexpectedAnswer(command: "(start)", answer: ready) }
    if slowSyncs {
      // The tracer is not the probe: a kill must end the probe itself.
      self.input.write(Data("pid\n".utf8))
      let answer = await lines.next()
      guard let answer, answer.hasPrefix("pid "), let identifier = Int32(answer.dropFirst(4)) else {
        throw UnexpectedAnswer(command: "pid", answer: answer)
      }
      probeIdentifier = identifier
    } else {
      probeIdentifier = process.processIdentifier
    }
  }

  /// The next line the probe prints, or `nil` once it ended.
  func next() async -> String? {
    await lines.next()
  }

  /// Sends `command` and returns the next line.
  func ask(_ command: String) async throws -> String? {
    input.write(Data((command + "\n").utf8))
    return await next()
  }

  /// Sends `command`, whose answer must be `expected`.
  func ask(_ command: String, expecting expected: String) async throws {
    let answer = try await ask(command)
    guard answer == expected else { throw UnexpectedAnswer(command: command, answer: answer) }
  }

  /// Sends `command`, whose answer must start with the word `word`; returns the rest.
  func ask(_ command: String, answer word: String) async throws -> String {
    let answer = try await ask(command)
    guard let answer, answer.hasPrefix(word + " ") else { throw UnexpectedAnswer(command: command, answer: answer) }
    return String(answer.dropFirst(word.count + 1))
  }

  /// Ends the probe with SIGKILL, whatever it is doing, and waits until it is gone.
  func kill() async {
    Foundation.kill(probeIdentifier, SIGKILL)
    let process = self.process
    // Waiting blocks: on a thread of its own, not one of the pool's.
    await onThreadOfItsOwn { process.waitUntilExit() }
    try? input.close()
  }
}

/// Lines read from a pipe, handed one at a time to one waiting reader.
private final class ProbeLines: Sendable {
  private struct State {
    var pending = Data()
    var lines: [String] = []
    var ended = false
    var waiter: CheckedContinuation<String?, Never>?
  }

  private let state = Lock(State())

  func append(_ data: Data) {
    let resume = state.withLock { state -> (CheckedContinuation<String?, Never>, String)? in
      state.pending.append(data)
      while let newline = state.pending.firstIndex(of: UInt8(ascii: "\n")) {
        state.lines.append(String(decoding: state.pending[..<newline], as: UTF8.self))
        state.pending.removeSubrange(...newline)
      }
      guard let waiter = state.waiter, !state.lines.isEmpty else { return nil }
      state.waiter = nil
      return (waiter, state.lines.removeFirst())
    }
    if let (waiter, line) = resume { waiter.resume(returning: line) }
  }

  func end() {
    let waiter = state.withLock { state in
      state.ended = true
      defer { state.waiter = nil }
      return state.waiter
    }
    waiter?.resume(returning: nil)
  }

  /// The next line, or `nil` once the pipe ended.
  func next() async -> String? {
    await withCheckedContinuation { (continuation: CheckedContinuation<String?, Never>) in
      let now = state.withLock { state -> String?? in
        if !state.lines.isEmpty { return .some(state.lines.removeFirst()) }
        if state.ended { return .some(nil) }
        state.waiter = continuation
        return nil
      }
      if let now { continuation.resume(returning: now) }
    }
  }
}
