import Foundation
import SharedState

extension OfflineScenario {
  /// The scenario as `swift run Demo offline` shows it: the edit half and the resume half, each in a process of
  /// its own when `executable` (this demo) can be started again, else each in a registry of its own in this
  /// process. Returns the summary line, made from what the server received.
  @MainActor
  static func run(_ options: DemoOptions, executable: URL?) async -> String {
    let console = DemoEnvironment.current.console
    console.heading("Offline: edits that survive a restart")
    let folder =
      options.offlineFolder.map { URL(fileURLWithPath: $0) }
      ?? FileManager.default.temporaryDirectory.appendingPathComponent("shared-state-demo-offline-\(UUID().uuidString)")
    let backend = NotesBackend(url: folder.appendingPathComponent("server.json"))
    do {
      try await backend.reset(notes: ["Water the plants"])
    } catch {
      return "offline: could not start the fake server in \(folder.path): \(error)"
    }
    if let executable {
      for phase in ["edit", "resume"] {
        let status = await runProcess(
          executable, ["offline", "--offline-phase", phase, "--offline-folder", folder.path, "--no-color"],
          console: console)
        guard status == 0 else { return "offline: the \(phase) process ended with status \(status)" }
      }
    } else {
      await SharedRegistry.$current.withValue(SharedRegistry()) { _ = await edit(in: folder) }
      console.line("(the same program started again: a new registry in this process)")
      _ = await SharedRegistry.$current.withValue(SharedRegistry()) { await resume(in: folder) }
    }
    let received = await backend.contents()
    let edits = received.notes.count - 1
    let duplicates = received.requests.count - Set(received.requests).count
    return "offline: \(edits) edits made offline reached the server after a restart, "
      + "\(received.applied.count) applied from \(received.requests.count) requests (\(duplicates) sent again)"
  }

  /// Runs the half of the scenario `options` names, in this process (started by ``run(_:executable:)``).
  @MainActor
  static func runPhase(_ phase: DemoOptions.OfflinePhase, in folder: URL) async {
    switch phase {
    case .edit:
      _ = await edit(in: folder)
    case .resume:
      _ = await resume(in: folder)
    }
  }

  /// Starts `executable` with `arguments`, waits for it to end without blocking a thread, then shows its output
  /// line by line; returns its exit status.
  @MainActor
  private static func runProcess(_ executable: URL, _ arguments: [String], console: Console) async -> Int32 {
    let output = FileManager.default.temporaryDirectory.appendingPathComponent("demo-offline-\(UUID().uuidString)")
    guard FileManager.default.createFile(atPath: output.path, contents: nil),
      let handle = FileHandle(forWritingAtPath: output.path)
    else { return -1 }
    defer { try? FileManager.default.removeItem(at: output) }
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    process.standardOutput = handle
    let status = await withCheckedContinuation { (continuation: CheckedContinuation<Int32, Never>) in
      process.terminationHandler = { ended in continuation.resume(returning: ended.terminationStatus) }
      do {
        try process.run()
      } catch {
        process.terminationHandler = nil
        continuation.resume(returning: -1)
      }
    }
    try? handle.close()
    let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
    console.line("process \(process.processIdentifier) (\(arguments[2])):")
    for line in text.split(separator: "\n") { console.line("  " + line) }
    return status
  }
}
