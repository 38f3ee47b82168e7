import Foundation
import TestSupport
import Testing

/// The exit probe, built next to this test bundle.
private func exitProbeExecutable() -> URL? {
  let bundle = URL(fileURLWithPath: Bundle.main.executablePath ?? CommandLine.arguments[0])
  let candidate = bundle.deletingLastPathComponent().appendingPathComponent("ExitProbe")
  return FileManager.default.isExecutableFile(atPath: candidate.path) ? candidate : nil
}

/// How a probe ended.
private struct Ending: Equatable, CustomStringConvertible {
  var reason: Process.TerminationReason
  var status: Int32
  var description: String { "\(reason == .exit ? "exit status" : "signal") \(status)" }
}

/// Runs the probe in `mode` to its end, without holding a thread of the shared pool.
private func runProbe(_ mode: String, path: String, value: Int) async throws -> Ending {
  let executable = try #require(exitProbeExecutable(), "the ExitProbe helper is built with the tests")
  let process = Process()
  process.executableURL = executable
  process.arguments = [mode, path, String(value)]
  process.standardOutput = FileHandle.nullDevice
  return try await withCheckedThrowingContinuation { continuation in
    process.terminationHandler = {
      continuation.resume(returning: Ending(reason: $0.terminationReason, status: $0.terminationStatus))
    }
    do {
      try process.run()
    } catch {
      process.terminationHandler = nil
      continuation.resume(throwing: error)
    }
  }
}

private func storedValue(at url: URL) throws -> Int {
  try JSONDecoder().decode(Int.self, from: Data(contentsOf: url))
}

/// A program that changes a file's value and ends before the save delay (an hour in the probe) has passed: the
/// change is written before the process is gone. Each probe is a real process.
// A probe that never ends would leave its test waiting: the time limit turns that into a failure.
@Suite(.timeLimit(.minutes(20))) struct ExitFlushTests {
  @Test func aProgramThatReturnsWithinTheSaveDelayLeavesTheFile() async throws {
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let url = folder.file("counter.json")
    let ending = try await runProbe("return", path: url.path, value: 42)
    #expect(ending == Ending(reason: .exit, status: 0))
    #expect(try storedValue(at: url) == 42)
  }

  /// The exit's flush writes on the exiting thread and waits for nothing on the cooperative pool, whose every
  /// thread the probe keeps busy for good.
  @Test func anExitWhileEveryPoolThreadIsBusyStillWritesTheFile() async throws {
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let url = folder.file("counter.json")
    let ending = try await runProbe("busy", path: url.path, value: 7)
    #expect(ending == Ending(reason: .exit, status: 0))
    #expect(try storedValue(at: url) == 7)
  }
}
