import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import SharedState
import Synchronization
import Testing

@testable import SharedDevtools

/// Runs `body` with a server of `registry` listening on a free port, and stops the server after it, whatever happens.
func withServer<Result>(
  registry: SharedRegistry, host: String = "127.0.0.1", token: String? = nil,
  _ body: (RunningDevtoolsServer) async throws -> Result
) async throws -> Result {
  let running = try await DevtoolsServer(registry: registry, host: host, port: 0, token: token).start()
  do {
    let result = try await body(running)
    await running.stop()
    return result
  } catch {
    await running.stop()
    throw error
  }
}

/// A deadline that only guards against a hang: no outcome depends on it.
let hangGuard: TimeAmount = .seconds(30)

/// An answer of the server: its status code and its body.
struct Answer {
  var status: Int
  var body: String
  var contentType: String?

  /// The body as JSON.
  var json: [String: Any] {
    get throws {
      try #require(JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])
    }
  }
}

/// `GET` (or the given method) `path` on `running`, on loopback, with `token` in the query when given.
func request(
  _ running: RunningDevtoolsServer, _ path: String, method: HTTPMethod = .GET, token: String? = nil,
  headers: [(String, String)] = [], body: String? = nil
) async throws -> Answer {
  let query = token.map { "?token=\($0)" } ?? ""
  var request = HTTPClientRequest(url: "http://127.0.0.1:\(running.port)\(path)\(query)")
  request.method = method
  for (name, value) in headers { request.headers.add(name: name, value: value) }
  if let body { request.body = .bytes(ByteBuffer(string: body)) }
  let response = try await HTTPClient.shared.execute(request, timeout: hangGuard)
  let bytes = try await response.body.collect(upTo: 16 * 1024 * 1024)
  return Answer(
    status: Int(response.status.code), body: String(buffer: bytes),
    contentType: response.headers.first(name: "content-type"))
}

/// Posts an action as the page does.
func act(
  _ running: RunningDevtoolsServer, key: String, action: String, message: String? = nil, token: String? = nil
) async throws -> Answer {
  var fields: [String: String] = ["key": key, "action": action]
  if let message { fields["message"] = message }
  let body = String(decoding: try JSONSerialization.data(withJSONObject: fields), as: UTF8.self)
  return try await request(
    running, "/api/actions", method: .POST, token: token, headers: [("Content-Type", "application/json")],
    body: body)
}

/// The keys of a snapshot's JSON, by id.
func keysByID(_ snapshot: [String: Any]) throws -> [String: [String: Any]] {
  let keys = try #require(snapshot["keys"] as? [[String: Any]])
  return Dictionary(uniqueKeysWithValues: keys.map { ($0["id"] as? String ?? "", $0) })
}

/// One frame of an event stream: its event name and its data.
struct Frame {
  var name: String
  var data: String

  var json: [String: Any] {
    get throws {
      try #require(JSONSerialization.jsonObject(with: Data(data.utf8)) as? [String: Any])
    }
  }
}

/// Reads the frames of `GET /api/events` as they arrive.
struct EventStreamReader {
  private var chunks: HTTPClientResponse.Body.AsyncIterator
  private var pending = ""

  /// The status code of the stream's answer.
  let status: Int

  init(_ running: RunningDevtoolsServer, token: String? = nil, headers: [(String, String)] = []) async throws {
    let query = token.map { "?token=\($0)" } ?? ""
    var request = HTTPClientRequest(url: "http://127.0.0.1:\(running.port)/api/events\(query)")
    for (name, value) in headers { request.headers.add(name: name, value: value) }
    let response = try await HTTPClient.shared.execute(request, timeout: hangGuard)
    status = Int(response.status.code)
    chunks = response.body.makeAsyncIterator()
  }

  /// The next frame (comments skipped), or `nil` when the stream ended.
  mutating func next() async throws -> Frame? {
    while true {
      if let end = pending.range(of: "\n\n") {
        let text = pending[..<end.lowerBound]
        pending = String(pending[end.upperBound...])
        var name = "message"
        var data: [Substring] = []
        for line in text.split(separator: "\n") {
          if line.hasPrefix("event: ") { name = String(line.dropFirst("event: ".count)) }
          if line.hasPrefix("data: ") { data.append(line.dropFirst("data: ".count)) }
        }
        if data.isEmpty { continue }
        return Frame(name: name, data: data.joined(separator: "\n"))
      }
      guard let chunk = try await chunks.next() else { return nil }
      pending += String(buffer: chunk)
    }
  }

  /// Reads frames until one satisfies `matches`, and returns it with the frames before it.
  mutating func next(where matches: (Frame) throws -> Bool) async throws -> (match: Frame?, before: [Frame]) {
    var before: [Frame] = []
    while let frame = try await next() {
      if try matches(frame) { return (frame, before) }
      before.append(frame)
    }
    return (nil, before)
  }
}

/// Holds the query `key` in `registry`, as a screen would, with `fetch` as its fetcher.
func holdQuery<Value: Sendable>(
  _ key: QueryKey, in registry: SharedRegistry, options: QueryOptions? = nil,
  fetch: @escaping @Sendable () async throws -> Value
) -> Shared<OperationState<Value>> {
  SharedRegistry.$current.withValue(registry) {
    Shared(wrappedValue: OperationState<Value>(), .query(key, options: options, fetch))
  }
}

/// Holds the in-memory key `name` in `registry`.
func holdValue<Value: Sendable>(_ name: String, in registry: SharedRegistry, initial: Value) -> Shared<Value> {
  SharedRegistry.$current.withValue(registry) {
    Shared(wrappedValue: initial, .inMemory(name))
  }
}

/// Counts a query's fetches and lets a test await the next one.
final class FetchCounter: Sendable {
  let fetches: AsyncStream<Int>
  private let continuation: AsyncStream<Int>.Continuation
  private let count = Mutex(0)

  init() {
    (fetches, continuation) = AsyncStream.makeStream(of: Int.self)
  }

  /// Called by the fetcher: numbers the fetch and announces it.
  func fetch() -> Int {
    let number = count.withLock { count in
      count += 1
      return count
    }
    continuation.yield(number)
    return number
  }
}

/// Whether something accepts connections on `port` of loopback: a refused connection answers at once (an HTTP
/// client would try again until its deadline).
func acceptsConnections(port: Int) async -> Bool {
  do {
    let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
      .connect(host: "127.0.0.1", port: port).get()
    try? await channel.close()
    return true
  } catch {
    return false
  }
}

/// Runs `body` with a server of `registry` whose event streams have `limits`, and stops the server after it.
func withServer<Result>(
  registry: SharedRegistry, limits: StreamLimits, _ body: (RunningDevtoolsServer) async throws -> Result
) async throws -> Result {
  var server = DevtoolsServer(registry: registry, port: 0)
  server.limits = limits
  let running = try await server.start()
  do {
    let result = try await body(running)
    await running.stop()
    return result
  } catch {
    await running.stop()
    throw error
  }
}

/// Suspends, without sleeping, until `condition` holds; records an issue and returns if it still does not after
/// a minute (a guard against a hang only).
func waitUntil(
  _ what: String, sourceLocation: SourceLocation = #_sourceLocation, _ condition: () -> Bool
) async {
  let giveUp = ContinuousClock.now + .seconds(60)
  var checks = 0
  while !condition() {
    checks += 1
    if checks % 1_024 == 0 && ContinuousClock.now > giveUp {
      Issue.record("never: \(what)", sourceLocation: sourceLocation)
      return
    }
    await Task.yield()
  }
}

/// A client that asks for the event stream and never reads its answer: its connection's buffers fill, and the
/// server's writes wait.
struct StalledClient {
  let channel: any Channel

  init(port: Int, path: String = "/api/events") async throws {
    channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
      .channelOption(.autoRead, value: false)
      .connect(host: "127.0.0.1", port: port).get()
    let request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nAccept: text/event-stream\r\n\r\n"
    try await channel.writeAndFlush(ByteBuffer(string: request)).get()
  }

  func close() async {
    try? await channel.close()
  }
}
