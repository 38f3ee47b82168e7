/// Why a ``DevtoolsServer`` did not start.
///
/// ```swift
/// func startOrExplain(_ server: DevtoolsServer) async -> RunningDevtoolsServer? {
///   do {
///     return try await server.start()
///   } catch {
///     print("no inspector: \(error)")
///     return nil
///   }
/// }
/// ```
public enum DevtoolsServerError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The port is outside `0...65535`.
  case invalidPort(Int)

  /// The token is empty or holds a character other than letters, digits, `-`, `.`, `_` and `~`.
  case invalidToken

  /// The address could not be bound: taken, or not an address of this machine.
  ///
  /// - Parameters:
  ///   - host: The address.
  ///   - port: The port.
  ///   - reason: What the system said.
  case cannotBind(host: String, port: Int, reason: String)

  /// A description that names the problem and its fix.
  public var description: String {
    switch self {
    case .invalidPort(let port):
      "The devtools port \(port) is outside 0...65535 (0 picks a free port)."
    case .invalidToken:
      "The devtools token must be letters, digits, '-', '.', '_' or '~', and not empty."
    case .cannotBind(let host, let port, let reason):
      "The devtools server cannot listen on \(host):\(port): \(reason)"
    }
  }
}
