import HTTPTypes
import Hummingbird

/// Lets a request through only with the server's token, when it has one; without one (bound to loopback), only
/// requests addressed to loopback, so that a web page elsewhere cannot reach the server through a name it made point
/// to 127.0.0.1.
struct AccessMiddleware: RouterMiddleware {
  typealias Context = BasicRequestContext

  let token: String?

  func handle(
    _ request: Request, context: Context, next: (Request, Context) async throws -> Response
  ) async throws -> Response {
    if let token {
      guard let presented = Self.presentedToken(of: request), AccessToken.matches(presented, expected: token) else {
        return APIError.unauthorized().response
      }
    } else if let authority = request.head.authority {
      let host = Self.hostName(of: authority)
      guard AccessToken.isLoopback(host) else { return APIError.forbiddenHost(host).response }
    }
    return try await next(request, context)
  }

  /// The token in the URL's query (`token=`), or else in an `Authorization: Bearer` header.
  static func presentedToken(of request: Request) -> Substring? {
    if let fromQuery = request.uri.queryParameters["token"] { return fromQuery }
    guard let authorization = request.headers[.authorization], authorization.hasPrefix("Bearer ") else { return nil }
    return authorization.dropFirst("Bearer ".count)
  }

  /// `authority` without its port: `127.0.0.1:8080` → `127.0.0.1`, `[::1]:8080` → `[::1]`.
  static func hostName(of authority: String) -> String {
    if authority.hasPrefix("["), let end = authority.firstIndex(of: "]") {
      return String(authority[...end])
    }
    return String(authority.split(separator: ":", maxSplits: 1).first ?? "")
  }
}
