// The snippets of the integration's README, DocC catalog and doc comments, as they show them, so they are known to
// compile.
import Logging
import ServiceLifecycle
import SharedDevtools
import SharedState
import UnixSignals

enum DocumentationSnippets {
  // The framework's README, "The devtools web inspector".
  func startDevtools(registry: SharedRegistry) async throws -> RunningDevtoolsServer {
    let running = try await DevtoolsServer(registry: registry).start()
    print("Devtools inspector: \(running.url)")  // http://127.0.0.1:PORT/
    return running
  }

  func inspect(registry: SharedRegistry) async throws {
    let server = DevtoolsServer(registry: registry)
    let running = try await server.start()
    print("Devtools inspector: \(running.url)")
    await running.stop()
  }

  func serve(app: some Service, registry: SharedRegistry, logger: Logger) async throws {
    let devtools = DevtoolsServer(registry: registry)
    let group = ServiceGroup(services: [app, devtools], gracefulShutdownSignals: [.sigterm], logger: logger)
    try await group.run()
  }

  func inspectFromAnotherMachine(registry: SharedRegistry) async throws -> RunningDevtoolsServer {
    let running = try await DevtoolsServer(registry: registry, host: "0.0.0.0", port: 9090).start()
    print("Devtools inspector: \(running.url)")  // http://127.0.0.1:9090/?token=…
    return running
  }

  func startInspector() async throws -> RunningDevtoolsServer {
    let running = try await DevtoolsServer(port: 9090).start()
    print(running.url)  // http://127.0.0.1:9090/
    return running
  }

  func serveAndPrint(registry: SharedRegistry) async throws {
    try await DevtoolsServer(registry: registry).run { running in
      print("Devtools inspector: \(running.url)")
    }
  }

  func tokenIsGenerated() {
    let onTheNetwork = DevtoolsServer(registry: .current, host: "0.0.0.0", port: 9090)
    print(onTheNetwork.token != nil)  // true: a token was generated
  }

  func startOrExplain(_ server: DevtoolsServer) async -> RunningDevtoolsServer? {
    do {
      return try await server.start()
    } catch {
      print("no inspector: \(error)")
      return nil
    }
  }

  func inspectWhileRunning(_ work: () async throws -> Void) async throws {
    let running = try await DevtoolsServer().start()
    print("Devtools inspector: \(running.url)")
    try await work()
    await running.stop()
  }

  func shutDown(_ running: RunningDevtoolsServer) async {
    await running.stop()  // the port is free again
  }
}
