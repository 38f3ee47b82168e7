import Logging
public import ServiceLifecycle

extension DevtoolsServer: Service {
  /// Runs the server until a graceful shutdown or cancellation: a service of a `ServiceGroup`.
  ///
  /// ```swift
  /// func serve(app: some Service, registry: SharedRegistry, logger: Logger) async throws {
  ///   let devtools = DevtoolsServer(registry: registry)
  ///   let group = ServiceGroup(services: [app, devtools], gracefulShutdownSignals: [.sigterm], logger: logger)
  ///   try await group.run()
  /// }
  /// ```
  ///
  /// The page's URL is logged at the `info` level; ``run(onStart:)`` hands it to you instead.
  ///
  /// - Throws: ``DevtoolsServerError`` when the server cannot start.
  public func run() async throws {
    try await run { running in
      logger.info("Devtools inspector: \(running.url)")
    }
  }

  /// Runs the server until a graceful shutdown or cancellation, and tells `onStart` where it listens.
  ///
  /// ```swift
  /// func serveAndPrint(registry: SharedRegistry) async throws {
  ///   try await DevtoolsServer(registry: registry).run { running in
  ///     print("Devtools inspector: \(running.url)")
  ///   }
  /// }
  /// ```
  ///
  /// - Parameter onStart: Called once the server accepts connections.
  /// - Throws: ``DevtoolsServerError`` when the server cannot start.
  public func run(onStart: (RunningDevtoolsServer) async -> Void) async throws {
    let running = try await start()
    await onStart(running)
    // Returns at a graceful shutdown, throws at cancellation: either way, the server stops.
    try? await gracefulShutdown()
    await running.stop()
  }
}
