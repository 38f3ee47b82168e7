import Foundation
public import Logging
public import SharedState

/// A web inspector for one registry: a page that lists its keys, queries and mutations live, and acts on them.
///
/// Start it where the program starts, open the URL it prints, and stop it when done:
///
/// ```swift
/// func inspect(registry: SharedRegistry) async throws {
///   let server = DevtoolsServer(registry: registry)
///   let running = try await server.start()
///   print("Devtools inspector: \(running.url)")
///   await running.stop()
/// }
/// ```
///
/// Nothing listens, and the registry records no events, until ``start()`` (or ``run()``): the registry's inspector
/// attaches only while a page is connected. The server binds `127.0.0.1` by default, so only programs of this machine
/// reach it. Bound to any other address, it requires a token on every request (`?token=` in the URL, or an
/// `Authorization: Bearer` header); the token is generated when none is given, and ``RunningDevtoolsServer/url``
/// carries it.
///
/// The server answers:
///
/// - `GET /`: the page (inline HTML, CSS and JavaScript; nothing is loaded from elsewhere).
/// - `GET /api/snapshot`: every key of the registry as JSON.
/// - `GET /api/events`: server-sent events: a `snapshot` at once and whenever a key changes (within half a second),
///   and an `inspection` event for each of the registry's events, after the most recent ones.
/// - `POST /api/actions`: `{"key": "<id>", "action": "invalidate"}` acts on a query (the framework's `InspectorAction`, by name).
///
/// At most ``maximumEventStreams`` pages are open at once, and a page that stops reading costs the program at most
/// ``maximumBufferedBytesPerStream``, and loses its stream once it fell behind ``maximumDropsWithoutReading`` times
/// in a row (see the README's "Memory").
///
/// Errors are JSON, `{"error": "<code>", "message": "..."}`: `401 unauthorized` without the token (or a wrong one),
/// `403 forbiddenHost` for a request addressed to another host than loopback when no token is needed, `403
/// forbiddenOrigin` for a request of the event stream or an action sent from another site's page, `503
/// tooManyStreams` past ``maximumEventStreams`` pages, `404
/// unknownKey`, `400 unknownAction`, `400 notAQuery`, `400 badRequest`, `409 nothingToRestore` (restore without a
/// force) and `409 notPerformed` (a disabled query asked to refetch, a sleeping query asked to be forced).
public struct DevtoolsServer: Sendable {
  /// The registry the page shows.
  public let registry: SharedRegistry

  /// The address the server binds: `127.0.0.1` unless told otherwise.
  public let host: String

  /// The port the server binds; `0` picks a free one (``RunningDevtoolsServer/port`` tells which).
  public let port: Int

  /// The token every request must carry, or `nil` when none is needed (bound to a loopback address without one).
  ///
  /// Given to ``init(registry:host:port:token:logger:)``, or generated there (32 random bytes, in hexadecimal) when
  /// the server binds an address other than loopback.
  public let token: String?

  /// Where the server logs; by default, to standard output at the `warning` level.
  public let logger: Logger

  /// The most pages (event streams) a server keeps open at once: 16. One more is answered `503 tooManyStreams`.
  public static let maximumEventStreams = 16

  /// The most bytes of frames a server keeps waiting for one page that reads slower than they come: 1 MiB.
  ///
  /// Past it, the page's waiting frames are dropped and the latest snapshot takes their place, so the page catches up
  /// from a whole picture. A snapshot larger than this is kept alone; its bytes are shared by every page.
  public static let maximumBufferedBytesPerStream = 1 << 20

  /// How many times in a row a page may fall behind without reading a single frame before its stream is closed: 8.
  ///
  /// A page falls behind when more than ``maximumBufferedBytesPerStream`` waits for it; one that took nothing while
  /// that happened eight times has stopped reading (or reads far slower than the program changes). Its stream ends and
  /// its place goes to another page at once; a browser's page connects again by itself. A page that stops reading while
  /// nothing changes never falls behind, and keeps its place until its connection closes.
  public static let maximumDropsWithoutReading = 8

  /// The streams' bounds and the pump's timing; the tests make them smaller and faster.
  var limits = StreamLimits()

  /// A server for `registry`'s inspector; nothing listens until ``start()``.
  ///
  /// ```swift
  /// let onTheNetwork = DevtoolsServer(registry: .current, host: "0.0.0.0", port: 9090)
  /// print(onTheNetwork.token != nil)  // true: a token was generated
  /// ```
  ///
  /// - Parameters:
  ///   - registry: The registry to inspect; the current one by default.
  ///   - host: The address to bind; `127.0.0.1` by default. Any address other than loopback (`127.x.x.x`, `::1`,
  ///     `localhost`) requires a token.
  ///   - port: The port to bind; `0` (the default) picks a free one.
  ///   - token: The token requests must carry; generated when `nil` and `host` is not loopback. Letters, digits,
  ///     `-`, `.`, `_` and `~` only, so that it stays the same in a URL.
  ///   - logger: Where the server logs; by default, to standard output at the `warning` level.
  public init(
    registry: SharedRegistry = .current,
    host: String = "127.0.0.1",
    port: Int = 0,
    token: String? = nil,
    logger: Logger? = nil
  ) {
    self.registry = registry
    self.host = host
    self.port = port
    self.token = token ?? (AccessToken.isLoopback(host) ? nil : AccessToken.generate())
    self.logger = logger ?? Self.defaultLogger
  }

  private static var defaultLogger: Logger {
    var logger = Logger(label: "SharedDevtools")
    logger.logLevel = .warning
    return logger
  }

  /// Starts listening, and returns once the server accepts connections.
  ///
  /// ```swift
  /// func startInspector() async throws -> RunningDevtoolsServer {
  ///   let running = try await DevtoolsServer(port: 9090).start()
  ///   print(running.url)  // http://127.0.0.1:9090/
  ///   return running
  /// }
  /// ```
  ///
  /// The server runs until ``RunningDevtoolsServer/stop()``. Call it once per server value you want listening;
  /// each call binds a new listener.
  ///
  /// - Returns: The running server: its address, URL and a way to stop it.
  /// - Throws: ``DevtoolsServerError`` for a bad port or token, or when the address cannot be bound.
  public func start() async throws -> RunningDevtoolsServer {
    try validate()
    return try await RunningDevtoolsServer.start(self)
  }

  func validate() throws(DevtoolsServerError) {
    guard (0...65_535).contains(port) else { throw .invalidPort(port) }
    if let token {
      guard AccessToken.isWellFormed(token) else { throw .invalidToken }
    }
  }
}

/// How many event streams a server keeps open, how much each may hold, and how often the pump looks.
struct StreamLimits: Sendable {
  var maximumStreams = DevtoolsServer.maximumEventStreams
  var maximumBytesPerStream = DevtoolsServer.maximumBufferedBytesPerStream
  var maximumDropsWithoutReading = DevtoolsServer.maximumDropsWithoutReading
  var timing = EventStreamPump.Timing()
}
