import Foundation
import HTTPTypes
import Hummingbird

/// An answer that names what went wrong, as JSON: `{"error": "<code>", "message": "..."}`.
struct APIError: Error {
  var status: HTTPResponse.Status
  var code: String
  var message: String

  static func unauthorized() -> APIError {
    APIError(
      status: .unauthorized, code: "unauthorized",
      message: "This inspector needs its token: open the URL the program printed (it ends with ?token=...).")
  }

  static func forbiddenHost(_ host: String) -> APIError {
    APIError(
      status: .forbidden, code: "forbiddenHost",
      message: "This inspector answers only requests addressed to this machine's loopback, not to \(host).")
  }

  static func unknownKey(_ id: String) -> APIError {
    APIError(status: .notFound, code: "unknownKey", message: "No key of the registry has the id \(id).")
  }

  static func notAQuery(_ id: String) -> APIError {
    APIError(
      status: .badRequest, code: "notAQuery", message: "The key \(id) is not a query: only queries take actions.")
  }

  static func unknownAction(_ name: String) -> APIError {
    APIError(
      status: .badRequest, code: "unknownAction",
      message: "Unknown action \(name); the actions are \(ActionRequest.actionNames.joined(separator: ", ")).")
  }

  static func nothingToRestore(_ id: String) -> APIError {
    APIError(
      status: .conflict, code: "nothingToRestore",
      message: "The query \(id) was not forced by the inspector: there is nothing to restore.")
  }

  static func notPerformed(_ id: String, action: String) -> APIError {
    APIError(
      status: .conflict, code: "notPerformed",
      message: "The query \(id) did not take \(action): a disabled query does not refetch, and a query nobody "
        + "used since the last garbage check cannot be forced.")
  }

  static func tooManyStreams(_ maximum: Int) -> APIError {
    APIError(
      status: .serviceUnavailable, code: "tooManyStreams",
      message: "This inspector already has \(maximum) pages open (their event streams); close one and reload.")
  }

  static func forbiddenOrigin(_ origin: String) -> APIError {
    APIError(
      status: .forbidden, code: "forbiddenOrigin",
      message: "This inspector answers only its own page, not a page of \(origin).")
  }

  static func badRequest(_ message: String) -> APIError {
    APIError(status: .badRequest, code: "badRequest", message: message)
  }

  var response: Response {
    struct Body: Encodable {
      var error: String
      var message: String
    }
    return Response.json(DevtoolsJSON.encode(Body(error: code, message: message)), status: status)
  }
}

extension Response {
  /// A JSON answer that no cache keeps.
  static func json(_ data: Data, status: HTTPResponse.Status = .ok) -> Response {
    Response(
      status: status,
      headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"],
      body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
  }
}
