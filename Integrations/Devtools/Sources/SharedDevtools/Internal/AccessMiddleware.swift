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
      guard let host = Self.hostName(of: authority), AccessToken.isLoopback(host) else {
        return APIError.forbiddenHost(authority).response
      }
    }
    // A browser names the page that sent a request (an action, the event stream) in Origin: only this server's own
    // page may act or listen, whatever else another site's page could present.
    if let origin = request.headers[.origin], !Self.isSameOrigin(origin, authority: request.head.authority) {
      return APIError.forbiddenOrigin(origin).response
    }
    return try await next(request, context)
  }

  /// The token in the URL's query (`token=`), or else in an `Authorization: Bearer` header (the scheme in any case).
  static func presentedToken(of request: Request) -> Substring? {
    if let fromQuery = request.uri.queryParameters["token"] { return fromQuery }
    guard let authorization = request.headers[.authorization] else { return nil }
    let parts = authorization.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
    guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
    let token = parts[1].drop { $0 == " " }
    return token.isEmpty ? nil : token
  }

  /// The host of a whole `Host` header, or `nil` when the header is not a host with an optional port:
  /// `127.0.0.1:8080` → `127.0.0.1`, `[::1]:8080` → `[::1]`; `[::1]evil.example` and `127.0.0.1:1@evil.example` →
  /// `nil`.
  static func hostName(of authority: String) -> String? {
    var host: Substring
    var rest: Substring
    if authority.hasPrefix("[") {
      guard let end = authority.firstIndex(of: "]") else { return nil }
      host = authority[...end]
      rest = authority[authority.index(after: end)...]
      let inside = host.dropFirst().dropLast()
      guard !inside.isEmpty, inside.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else { return nil }
    } else {
      let colon = authority.firstIndex(of: ":") ?? authority.endIndex
      host = authority[..<colon]
      rest = authority[colon...]
      let allowed = { (character: Character) in
        character.isASCII && (character.isLetter || character.isNumber || character == "." || character == "-")
      }
      guard !host.isEmpty, host.allSatisfy(allowed) else { return nil }
    }
    if !rest.isEmpty {
      guard rest.first == ":" else { return nil }
      let port = rest.dropFirst()
      guard !port.isEmpty, port.count <= 5, port.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
    }
    return String(host)
  }

  /// Whether `origin` is this server's own page as the request addressed it: `http://` and the same host and port.
  static func isSameOrigin(_ origin: String, authority: String?) -> Bool {
    guard let authority, origin.hasPrefix("http://") else { return false }
    return origin.dropFirst("http://".count).lowercased() == authority.lowercased()
  }
}
