import Foundation
import HTTPTypes
import Hummingbird
import SharedState

/// The server's routes: the page, the snapshot, the event stream and the actions.
struct DevtoolsRoutes: Sendable {
  let inspector: SharedInspector
  let token: String?
  let hub: EventStreamHub

  /// The largest action request read.
  static let maximumActionBody = 64 * 1024

  func makeRouter() -> Router<BasicRequestContext> {
    let router = Router(context: BasicRequestContext.self)
    router.add(middleware: AccessMiddleware(token: token))
    router.get("/") { _, _ in page() }
    router.get("/api/snapshot") { _, _ in snapshot() }
    router.get("/api/events") { _, _ in eventStream() }
    router.post("/api/actions") { request, _ in
      do {
        return try await perform(request)
      } catch let error as APIError {
        return error.response
      }
    }
    return router
  }

  func page() -> Response {
    Response(
      status: .ok,
      headers: [
        .contentType: "text/html; charset=utf-8",
        .cacheControl: "no-store",
        // Everything the page needs is inline; it talks to this server only, and keeps its token out of referrers.
        .contentSecurityPolicy:
          "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; "
          + "img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
        .init("Referrer-Policy")!: "no-referrer",
      ],
      body: ResponseBody(byteBuffer: ByteBuffer(string: InspectorPage.html)))
  }

  func snapshot() -> Response {
    Response.json(DevtoolsJSON.encode(SnapshotPayload(inspector.snapshot())))
  }

  func eventStream() -> Response {
    let opened: (id: Int, outbox: EventStreamOutbox, lastEventSequence: UInt64)
    do {
      opened = try hub.open()
    } catch {
      switch error {
      case .stopping:
        return APIError(status: .serviceUnavailable, code: "stopping", message: "The inspector is stopping.").response
      case .tooManyStreams:
        return APIError.tooManyStreams(hub.maximumStreams).response
      }
    }
    // The events this page missed, up to those the pump sends from now on.
    let missed = inspector.recentEvents.filter { $0.sequence <= opened.lastEventSequence }
    opened.outbox.prepend(missed.map(ServerSentEvent.inspection))
    let hub = self.hub
    return Response(
      status: .ok,
      headers: [.contentType: "text/event-stream", .cacheControl: "no-store"],
      body: ResponseBody { writer in
        // Ends when the page goes away (a write fails) or the server stops (the outbox ends).
        defer { hub.close(opened.id) }
        while let frame = await opened.outbox.next() {
          try await writer.write(frame)
        }
        try await writer.finish(nil)
      })
  }

  func perform(_ request: Request) async throws -> Response {
    guard request.headers[.contentType]?.lowercased().hasPrefix("application/json") == true else {
      // A JSON content type also makes a browser ask first before another site's page may send it.
      throw APIError.badRequest("An action is a JSON body: send Content-Type: application/json.")
    }
    let body: ByteBuffer
    do {
      body = try await request.body.collect(upTo: Self.maximumActionBody)
    } catch {
      throw APIError.badRequest("An action's body must be under \(Self.maximumActionBody) bytes.")
    }
    let action: ActionRequest
    do {
      action = try JSONDecoder().decode(ActionRequest.self, from: Data(body.readableBytesView))
    } catch {
      throw APIError.badRequest(#"An action is {"key": "<id>", "action": "<name>"}: \#(error)"#)
    }
    guard let inspectorAction = action.inspectorAction else { throw APIError.unknownAction(action.action) }
    guard let key = inspector.snapshot()[id: action.key] else {
      throw APIError.unknownKey(action.key)
    }
    guard key.queryKey != nil else { throw APIError.notAQuery(action.key) }
    guard inspector.perform(inspectorAction, onKeyWithID: action.key) else {
      if inspectorAction == .restore { throw APIError.nothingToRestore(action.key) }
      throw APIError.notPerformed(action.key, action: action.action)
    }
    struct Performed: Encodable {
      var key: String
      var action: String
      var performed: Bool
    }
    return Response.json(DevtoolsJSON.encode(Performed(key: action.key, action: action.action, performed: true)))
  }
}
