import Foundation
import Logging
import ServiceLifecycle
import SharedDevtools
import SharedState
import Testing

@Suite struct ServiceTests {
  /// A service that runs the server and hands over where it listens.
  struct Inspecting: Service {
    let server: DevtoolsServer
    let started: AsyncStream<RunningDevtoolsServer>.Continuation

    func run() async throws {
      try await server.run { running in started.yield(running) }
    }
  }

  @Test func runServesUntilAGracefulShutdown() async throws {
    let (started, continuation) = AsyncStream.makeStream(of: RunningDevtoolsServer.self)
    let service = Inspecting(server: DevtoolsServer(registry: SharedRegistry()), started: continuation)
    let group = ServiceGroup(services: [service], logger: Logger(label: "ServiceTests"))
    let run = Task { try await group.run() }
    var iterator = started.makeAsyncIterator()
    let running = try #require(await iterator.next())
    #expect(try await request(running, "/api/snapshot").status == 200)

    await group.triggerGracefulShutdown()
    try await run.value

    #expect(await !acceptsConnections(port: running.port))
  }

  @Test func runStopsWhenCancelled() async throws {
    let (started, continuation) = AsyncStream.makeStream(of: RunningDevtoolsServer.self)
    let server = DevtoolsServer(registry: SharedRegistry())
    let run = Task { try await server.run { running in continuation.yield(running) } }
    var iterator = started.makeAsyncIterator()
    let running = try #require(await iterator.next())
    #expect(try await request(running, "/api/snapshot").status == 200)

    run.cancel()
    try await run.value

    #expect(await !acceptsConnections(port: running.port))
  }
}
