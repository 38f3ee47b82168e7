import Foundation
import TestSupport
import Testing

/// The document the probe process writes.
private struct ProbeDocument: Codable, Equatable {
  var writer: String
  var counter: Int
  var padding: String
}

/// The probe executable, built next to this test bundle.
private func probeExecutable() -> URL? {
  let bundle = URL(fileURLWithPath: Bundle.main.executablePath ?? CommandLine.arguments[0])
  let candidate = bundle.deletingLastPathComponent().appendingPathComponent("FileFaultProbe")
  return FileManager.default.isExecutableFile(atPath: candidate.path) ? candidate : nil
}

/// A running probe and its standard output.
private struct Probe {
  let process: Process
  let output: Pipe
  let input: Pipe

  init(_ executable: URL, path: String, name: String, count: Int) throws {
    process = Process()
    process.executableURL = executable
    process.arguments = ["write", path, name, String(count)]
    output = Pipe()
    input = Pipe()
    process.standardOutput = output
    process.standardInput = input
    try process.run()
  }

  /// Tells the probe that every writer is done.
  func proceed() {
    input.fileHandleForWriting.write(Data("go\n".utf8))
  }

  /// Waits for the process to end and returns what it printed.
  func finish() async -> String {
    // Both block their thread: they run on one of their own, never on a thread of the cooperative pool.
    let output = output
    let process = process
    let data = await onThreadOfItsOwn { output.fileHandleForReading.readDataToEndOfFile() }
    await onThreadOfItsOwn { process.waitUntilExit() }
    return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
  }
}

/// Reads the file if it exists; records an issue if it exists but does not hold a whole document.
private func readWhole(_ url: URL) -> ProbeDocument? {
  guard let data = try? Data(contentsOf: url) else { return nil }
  do {
    return try JSONDecoder().decode(ProbeDocument.self, from: data)
  } catch {
    Issue.record("a reader saw a file that is not one whole document (\(data.count) bytes): \(error)")
    return nil
  }
}

// A writer process that never ends would leave its test waiting: the time limit turns that into a failure.
extension FileStoreTests {
  @Test(.timeLimit(.minutes(20))) func aWriterKilledMidWriteNeverLeavesATornFile() async throws {
    let executable = try #require(probeExecutable(), "the FileFaultProbe helper is built with the tests")
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let url = folder.file("document.json")
    for round in 0..<5 {
      let probe = try Probe(executable, path: url.path, name: "writer\(round)", count: 0)
      // Let it write a varying number of times, reading every version on the way: each must be whole.
      let target = 3 + round * 5
      await waitUntil { (readWhole(url).map { $0.writer == "writer\(round)" && $0.counter >= target }) ?? false }
      kill(probe.process.processIdentifier, SIGKILL)
      _ = await probe.finish()
      #expect(probe.process.terminationReason == .uncaughtSignal)
      let survivor = try #require(readWhole(url))
      #expect(survivor.writer == "writer\(round)")
      #expect(survivor.padding == String(repeating: survivor.writer, count: 2_000))
    }
  }

  @Test(.timeLimit(.minutes(20))) func twoWritersOfOneFileConvergeAndReadersSeeWholeDocuments() async throws {
    let executable = try #require(probeExecutable(), "the FileFaultProbe helper is built with the tests")
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let url = folder.file("document.json")
    let first = try Probe(executable, path: url.path, name: "A", count: 150)
    let second = try Probe(executable, path: url.path, name: "B", count: 150)
    var reads = 0
    let markers = ["A", "B"].map { url.path + ".\($0).done" }
    await waitUntil {
      if readWhole(url) != nil { reads += 1 }
      return markers.allSatisfy { FileManager.default.fileExists(atPath: $0) }
    }
    first.proceed()
    second.proceed()
    let firstFinal = await first.finish()
    let secondFinal = await second.finish()
    let onDisk = try #require(readWhole(url))
    #expect(firstFinal == secondFinal)
    #expect(firstFinal == "\(onDisk.writer) \(onDisk.counter)")
    #expect(reads > 0)
  }
}
