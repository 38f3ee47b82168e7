public import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import SharedState
import Synchronization

/// A ``DevtoolsServer`` that listens: where to open the page, and how to stop it.
///
/// ```swift
/// func inspectWhileRunning(_ work: () async throws -> Void) async throws {
///   let running = try await DevtoolsServer().start()
///   print("Devtools inspector: \(running.url)")
///   try await work()
///   await running.stop()
/// }
/// ```
///
/// The server listens until ``stop()``; releasing this value does not stop it.
public final class RunningDevtoolsServer: Sendable {
  /// The address the server is bound to, as the system reports it: `127.0.0.1` by default.
  public let host: String

  /// The port the server listens on: the one asked for, or the one the system picked for port `0`.
  public let port: Int

  /// The token every request must carry, or `nil` when none is needed.
  public let token: String?

  /// The page's address, with the token in its query when one is needed: `http://127.0.0.1:9090/`, or
  /// `http://127.0.0.1:9090/?token=...` for a server bound to every address (`0.0.0.0` or `::`), which a browser
  /// cannot open: from another machine, put this machine's name or address in its place.
  public let url: URL

  private let group: ServiceGroup
  private let task: Task<Void, Never>
  /// The open event streams; internal for the tests, which read its counters.
  let hub: EventStreamHub
  /// What the event streams' pump did; internal for the tests.
  let pumpCounters: PumpCounters
  private let pump: Task<Void, Never>

  private init(
    host: String, port: Int, token: String?, group: ServiceGroup, task: Task<Void, Never>,
    hub: EventStreamHub, pump: Task<Void, Never>, pumpCounters: PumpCounters
  ) {
    self.host = host
    self.port = port
    self.token = token
    self.group = group
    self.task = task
    self.hub = hub
    self.pump = pump
    self.pumpCounters = pumpCounters
    let hostInURL = Self.hostInURL(bound: host)
    let query = token.map { "?token=\($0)" } ?? ""
    // The host is an address or a name and the token is made of characters a URL keeps: the text is a URL.
    url = URL(string: "http://\(hostInURL):\(port)/\(query)")!
  }

  /// Stops the server: ends every page's event stream, stops accepting connections, and returns once the server
  /// is stopped (a request still answered after two seconds is cancelled).
  ///
  /// ```swift
  /// func shutDown(_ running: RunningDevtoolsServer) async {
  ///   await running.stop()  // the port is free again
  /// }
  /// ```
  ///
  /// Calling it again waits for the same end.
  public func stop() async {
    hub.closeAll()
    await group.triggerGracefulShutdown()
    await task.value
    await pump.value
  }

  /// The host a browser opens for a server bound to `host`: loopback for an address that means every address.
  static func hostInURL(bound host: String) -> String {
    switch host {
    case "0.0.0.0", "": return "127.0.0.1"
    case "::", "[::]", "::0": return "[::1]"
    default: return host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
    }
  }

  static func start(_ server: DevtoolsServer) async throws -> RunningDevtoolsServer {
    let hub = EventStreamHub(
      maximumStreams: server.limits.maximumStreams, maximumBytesPerStream: server.limits.maximumBytesPerStream,
      maximumDropsWithoutReading: server.limits.maximumDropsWithoutReading)
    let counters = PumpCounters()
    let routes = DevtoolsRoutes(inspector: server.registry.inspector, token: server.token, hub: hub)
    let listening = ListeningSignal()
    let application = Application(
      router: routes.makeRouter(),
      configuration: ApplicationConfiguration(address: .hostname(server.host, port: server.port), serverName: nil),
      onServerRunning: { channel in
        let address = channel.localAddress
        listening.resolve(
          .success(BoundAddress(host: address?.ipAddress ?? server.host, port: address?.port ?? server.port)))
      },
      logger: server.logger)
    var configuration = ServiceGroupConfiguration(
      services: [.init(service: application)], logger: server.logger)
    configuration.maximumGracefulShutdownDuration = .seconds(2)
    let group = ServiceGroup(configuration: configuration)
    let task = Task {
      do {
        try await group.run()
        listening.resolve(.failure(.cannotBind(host: server.host, port: server.port, reason: "stopped at once")))
      } catch {
        listening.resolve(
          .failure(.cannotBind(host: server.host, port: server.port, reason: String(describing: error))))
      }
    }
    let bound: BoundAddress
    do {
      bound = try await listening.wait()
    } catch {
      hub.closeAll()
      throw error
    }
    let pump = EventStreamPump(
      inspector: server.registry.inspector, hub: hub, eventBufferLimit: 256, timing: server.limits.timing,
      counters: counters)
    let pumpTask = Task { await pump.run() }
    return RunningDevtoolsServer(
      host: bound.host, port: bound.port, token: server.token, group: group, task: task, hub: hub, pump: pumpTask,
      pumpCounters: counters)
  }
}

/// Where a server listens.
struct BoundAddress: Sendable {
  var host: String
  var port: Int
}

/// Where the server listens, or why it does not: told once, by whichever comes first.
final class ListeningSignal: Sendable {
  private enum State {
    case waiting(CheckedContinuation<BoundAddress, any Error>?)
    case resolved(Result<BoundAddress, DevtoolsServerError>)
  }

  private let state = Mutex(State.waiting(nil))

  func resolve(_ result: Result<BoundAddress, DevtoolsServerError>) {
    let waiter: CheckedContinuation<BoundAddress, any Error>? = state.withLock { state in
      guard case .waiting(let waiter) = state else { return nil }
      state = .resolved(result)
      return waiter
    }
    waiter?.resume(with: result.mapError { $0 as any Error })
  }

  func wait() async throws -> BoundAddress {
    try await withCheckedThrowingContinuation { continuation in
      let result: Result<BoundAddress, DevtoolsServerError>? = state.withLock { state in
        switch state {
        case .waiting:
          state = .waiting(continuation)
          return nil
        case .resolved(let result):
          return result
        }
      }
      if let result { continuation.resume(with: result.mapError { $0 as any Error }) }
    }
  }
}
