// A program to inspect: queries, a mutation, an in-memory key and a file key, changing on their own, with the web
// inspector attached. It prints the inspector's URL, then a line per fetch of ["todos"], until SIGTERM or SIGINT.
//
//   swift run --package-path Integrations/Devtools DevtoolsExample [--host 127.0.0.1] [--port 0]
import Foundation
import Logging
import ServiceLifecycle
import SharedDevtools
import SharedState
import UnixSignals

/// Writes a line to standard output at once: it is often read through a pipe, which would otherwise buffer it.
func say(_ line: String) {
  FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func option(_ name: String, in arguments: [String]) -> String? {
  guard let index = arguments.firstIndex(of: name), arguments.indices.contains(index + 1) else { return nil }
  return arguments[index + 1]
}

let arguments = CommandLine.arguments
if arguments.contains("--help") {
  say("usage: DevtoolsExample [--host 127.0.0.1] [--port 0]")
  exit(0)
}
let host = option("--host", in: arguments) ?? "127.0.0.1"
guard let port = Int(option("--port", in: arguments) ?? "0") else {
  FileHandle.standardError.write(Data("--port takes a number\n".utf8))
  exit(2)
}

let folder = FileManager.default.temporaryDirectory
  .appendingPathComponent("SharedDevtoolsExample-\(ProcessInfo.processInfo.processIdentifier)")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)

let running: RunningDevtoolsServer
do {
  running = try await DevtoolsServer(registry: .current, host: host, port: port).start()
} catch {
  FileHandle.standardError.write(Data("\(error)\n".utf8))
  exit(1)
}
say("Devtools inspector: \(running.url)")

var logger = Logger(label: "DevtoolsExample")
logger.logLevel = .warning
let scenarios = ExampleScenarios(settingsURL: folder.appendingPathComponent("settings.json"))
let group = ServiceGroup(services: [scenarios], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
do {
  try await group.run()
} catch {
  FileHandle.standardError.write(Data("\(error)\n".utf8))
}
await running.stop()
try? await SharedRegistry.current.flush()
try? FileManager.default.removeItem(at: folder)
