import Foundation
import Synchronization
import Testing

/// A running `PostgresProbe`: another process that shares a value through the server, driven line by line.
final class ProbeProcess: Sendable {
  private let process: Process
  private let input: FileHandle
  private let lines = LineBuffer()

  /// Starts the probe on `key`, with the environment of the tests (the server it names).
  init(key: String, policy: String) throws {
    let bundle = URL(fileURLWithPath: Bundle.main.executablePath ?? CommandLine.arguments[0])
    let executable = bundle.deletingLastPathComponent().appendingPathComponent("PostgresProbe")
    guard FileManager.default.isExecutableFile(atPath: executable.path) else {
      throw ProbeMissing(path: executable.path)
    }
    let process = Process()
    process.executableURL = executable
    process.arguments = [key, policy]
    self.input = try lines.run(process)
    self.process = process
  }

  struct ProbeMissing: Error, CustomStringConvertible {
    var path: String
    var description: String { "the PostgresProbe helper is built with the tests, but is not at \(path)" }
  }

  struct UnexpectedAnswer: Error, CustomStringConvertible {
    var command: String
    var answer: String?
    var description: String { "the probe answered \(answer ?? "nothing (it ended)") to \(command)" }
  }

  /// Sends `command` and waits for its answer, which must be `expected`; fails after `limit`.
  func run(_ command: String, expecting expected: String, limit: Duration = .seconds(60)) async throws {
    input.write(Data((command + "\n").utf8))
    let lines = self.lines
    let answer = try await bounded(limit, "the probe's answer to \(command)") { await lines.next() }
    guard answer == expected else { throw UnexpectedAnswer(command: command, answer: answer) }
  }

  /// Sends `command` and returns its answer, which must start with `prefix`, without it; fails after `limit`.
  func run(_ command: String, answerStartingWith prefix: String, limit: Duration = .seconds(60)) async throws
    -> String
  {
    input.write(Data((command + "\n").utf8))
    let lines = self.lines
    let answer = try await bounded(limit, "the probe's answer to \(command)") { await lines.next() }
    guard let answer, answer.hasPrefix(prefix) else { throw UnexpectedAnswer(command: command, answer: answer) }
    return String(answer.dropFirst(prefix.count))
  }

  /// Sends `command` without waiting for an answer.
  func send(_ command: String) {
    input.write(Data((command + "\n").utf8))
  }

  /// Waits for the next line, which must be `expected`.
  func expect(_ expected: String, limit: Duration = .seconds(60)) async throws {
    let lines = self.lines
    let answer = try await bounded(limit, "the probe's \(expected)") { await lines.next() }
    guard answer == expected else { throw UnexpectedAnswer(command: "(waiting)", answer: answer) }
  }

  /// Ends the probe with SIGKILL, mid-whatever it does, and waits until it is gone.
  func kill() {
    Foundation.kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()
  }

  /// Ends the probe (SIGTERM, whatever it waits for) and waits until it is gone.
  func finish() {
    process.terminate()
    process.waitUntilExit()
    try? input.close()
  }
}

/// Lines read from a pipe, handed one at a time to one waiting reader.
final class LineBuffer: Sendable {
  /// Runs `process` with its standard output read into this buffer line by line (ended when the output closes);
  /// returns its standard input.
  func run(_ process: Process) throws -> FileHandle {
    let output = Pipe()
    let input = Pipe()
    process.standardOutput = output
    process.standardInput = input
    output.fileHandleForReading.readabilityHandler = { [self] handle in
      let data = handle.availableData
      if data.isEmpty {
        handle.readabilityHandler = nil
        end()
      } else {
        append(data)
      }
    }
    try process.run()
    return input.fileHandleForWriting
  }

  private struct State {
    var pending = Data()
    var lines: [String] = []
    var ended = false
    var waiter: CheckedContinuation<String?, Never>?
  }

  private let state = Mutex(State())

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

  /// The next line, or `nil` when the pipe ended or the caller was cancelled.
  func next() async -> String? {
    await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<String?, Never>) in
        let now = state.withLock { state -> String?? in
          if !state.lines.isEmpty { return .some(state.lines.removeFirst()) }
          if state.ended || Task.isCancelled { return .some(nil) }
          state.waiter = continuation
          return nil
        }
        if let now { continuation.resume(returning: now) }
      }
    } onCancel: {
      let waiter = state.withLock { state in
        defer { state.waiter = nil }
        return state.waiter
      }
      waiter?.resume(returning: nil)
    }
  }
}

/// Two probes on one key, started and ready (each has loaded the value); `finish()` ends both.
struct ProbePair {
  let first: ProbeProcess
  let second: ProbeProcess

  init(key: String, policy: String) async throws {
    first = try ProbeProcess(key: key, policy: policy)
    do {
      second = try ProbeProcess(key: key, policy: policy)
    } catch {
      first.finish()
      throw error
    }
    do {
      try await first.run("ready", expecting: "ready")
      try await second.run("ready", expecting: "ready")
    } catch {
      finish()
      throw error
    }
  }

  func finish() {
    first.finish()
    second.finish()
  }
}
