import NIOCore
import NIOSSL
import PostgresNIO

extension SharedPostgresError {
  /// What went wrong with a connection or a statement: a ``Kind`` to decide on, the server's own message and SQLSTATE
  /// code when it sent one, and the error underneath (postgres-nio's `PSQLError`, a TLS error, this integration's
  /// deadline).
  ///
  /// ```swift
  /// if case .disconnected(let cause) = error as? SharedPostgresError {
  ///   switch cause.kind {
  ///   case .authenticationFailed: print("check the password:", cause.serverMessage ?? "")
  ///   case .timedOut: print("the network path is down:", cause)
  ///   default: print(cause)
  ///   }
  /// }
  /// ```
  ///
  /// Its ``description`` names the failure, the server's message and the underlying error, never a password.
  /// Two causes are equal when they read the same (kind, message, code, description); ``underlying`` is not compared.
  public struct Cause: Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure, for a program to decide what to do.
    public enum Kind: Sendable, Hashable, CustomStringConvertible {
      /// The server could not be reached: the connection was refused, the host is unknown, or the network failed.
      case unreachable
      /// The server refused the login (SQLSTATE class 28: a wrong password, an unknown user, no `pg_hba.conf`
      /// entry), or asked for an authentication method the client does not offer.
      case authenticationFailed
      /// The TLS handshake failed: the server's certificate was not trusted or does not name the host, or the server
      /// does not offer TLS that the configuration requires.
      case tlsFailed
      /// No answer within the configuration's deadline (``SharedPostgresDatabase/Configuration/connectTimeout``,
      /// ``SharedPostgresDatabase/Configuration/statementTimeout`` or the keepalive check): a network partition, or a
      /// server that stopped answering. The connection is closed and made again.
      case timedOut
      /// The server, or the network, ended the connection (a restart, a terminated backend).
      case connectionClosed
      /// The server answered a statement, or the login, with an error other than an authentication failure (a
      /// missing privilege, a database that does not exist); ``Cause/sqlState`` and ``Cause/serverMessage`` say
      /// which.
      case serverError
      /// Anything else; ``Cause/underlying`` holds the error.
      case other

      /// The kind in a few words.
      public var description: String {
        switch self {
        case .unreachable: return "unreachable"
        case .authenticationFailed: return "authentication failed"
        case .tlsFailed: return "TLS failed"
        case .timedOut: return "timed out"
        case .connectionClosed: return "connection closed"
        case .serverError: return "server error"
        case .other: return "other"
        }
      }

      /// Whether connecting again may succeed with the same configuration: not after the server refused the login,
      /// the TLS handshake or the connection's database (a change on either side is needed first).
      var mayHealByReconnecting: Bool {
        switch self {
        case .authenticationFailed, .tlsFailed, .serverError: return false
        case .unreachable, .timedOut, .connectionClosed, .other: return true
        }
      }
    }

    /// The kind of failure.
    public let kind: Kind
    /// The server's SQLSTATE code (`28P01` for a wrong password), when the server answered with an error.
    public let sqlState: String?
    /// The server's message (`password authentication failed for user "app"`), when the server answered with an
    /// error.
    public let serverMessage: String?
    /// The error underneath: postgres-nio's `PSQLError` (`String(reflecting:)` shows all of it), a TLS error, or
    /// `nil` for this integration's own deadlines.
    public let underlying: (any Error)?
    /// What happened, in this integration's words, with the details the server or the network gave.
    public let description: String

    init(
      kind: Kind, summary: String, sqlState: String? = nil, serverMessage: String? = nil,
      detail: String? = nil, underlying: (any Error)? = nil
    ) {
      self.kind = kind
      self.sqlState = sqlState
      self.serverMessage = serverMessage
      self.underlying = underlying
      var text = summary
      if let serverMessage {
        text += ": \(serverMessage)"
        if let sqlState { text += " (SQLSTATE \(sqlState))" }
      }
      if let detail, !detail.isEmpty { text += " [\(detail)]" }
      self.description = text
    }

    /// No answer to `what` within `limit`.
    static func timedOut(_ what: String, after limit: Duration) -> Self {
      Self(
        kind: .timedOut,
        summary: "no answer to \(what) within \(limit) (a network partition, or a server that stopped answering)")
    }

    /// The cause `error` stands for: unwrapped from a ``SharedPostgresError``, or classified from postgres-nio's
    /// error and what lies under it.
    init(_ error: any Error) {
      if let error = error as? SharedPostgresError, let cause = error.cause {
        self = cause
      } else if let error = error as? PSQLError {
        self.init(postgres: error)
      } else if Self.isTLSError(error) {
        self.init(kind: .tlsFailed, summary: "the TLS handshake failed", detail: "\(error)", underlying: error)
      } else if case ChannelError.connectTimeout(let limit) = error {
        self.init(kind: .timedOut, summary: "could not connect within \(limit)", underlying: error)
      } else if error is IOError || error is ChannelError {
        self.init(kind: .connectionClosed, summary: "the connection failed", detail: "\(error)", underlying: error)
      } else {
        self.init(kind: .other, summary: "\(error)", underlying: error)
      }
    }

    private init(postgres error: PSQLError) {
      let sqlState = error.serverInfo?[.sqlState]
      let message = error.serverInfo?[.message]
      let details = [error.serverInfo?[.detail], error.serverInfo?[.hint]].compactMap { $0 }
      let inner = error.underlying
      let innerDetail = inner.map { "\($0)" }
      func make(_ kind: Kind, _ summary: String, _ detail: String? = nil) -> Self {
        Self(
          kind: kind, summary: summary, sqlState: sqlState, serverMessage: message,
          detail: detail ?? (details.isEmpty ? nil : details.joined(separator: "; ")), underlying: error)
      }
      if let inner, Self.isTLSError(inner) {
        self = make(.tlsFailed, "the TLS handshake failed", innerDetail)
        return
      }
      switch error.code {
      case .server:
        if let sqlState, sqlState.hasPrefix("28") {
          self = make(.authenticationFailed, "the server refused the login")
        } else if let sqlState, sqlState.hasPrefix("08") || ["57P01", "57P02", "57P03"].contains(sqlState) {
          self = make(.connectionClosed, "the server ended the connection")
        } else {
          self = make(.serverError, "the server answered with an error")
        }
      case .sslUnsupported:
        self = make(.tlsFailed, "the server does not offer TLS, which the configuration requires")
      case .failedToAddSSLHandler, .receivedUnencryptedDataAfterSSLRequest:
        self = make(.tlsFailed, "TLS could not be set up (\(error.code))", innerDetail)
      case .unsupportedAuthMechanism, .authMechanismRequiresPassword, .saslError:
        self = make(.authenticationFailed, "the login failed (\(error.code))", innerDetail)
      case .connectionError:
        if case ChannelError.connectTimeout(let limit)? = inner {
          self = make(.timedOut, "could not connect within \(limit)")
        } else {
          self = make(.unreachable, "could not connect to the server", innerDetail)
        }
      case .serverClosedConnection, .uncleanShutdown, .clientClosedConnection:
        self = make(.connectionClosed, "the connection was closed (\(error.code))", innerDetail)
      default:
        self = make(.other, "postgres-nio failed (\(error.code))", innerDetail)
      }
    }

    private static func isTLSError(_ error: any Error) -> Bool {
      error is NIOSSLError || error is BoringSSLError || error is NIOSSLExtraError
    }

    /// Equal when kind, code, message and description are.
    public static func == (lhs: Self, rhs: Self) -> Bool {
      lhs.kind == rhs.kind && lhs.sqlState == rhs.sqlState && lhs.serverMessage == rhs.serverMessage
        && lhs.description == rhs.description
    }

    /// Hashes what ``==(_:_:)`` compares.
    ///
    /// - Parameter hasher: The hasher to feed.
    public func hash(into hasher: inout Hasher) {
      hasher.combine(kind)
      hasher.combine(sqlState)
      hasher.combine(serverMessage)
      hasher.combine(description)
    }
  }

  /// The connection was lost for `reason`: a cause of kind ``Cause/Kind/connectionClosed`` with that summary.
  static func disconnected(reason: String) -> Self {
    .disconnected(Cause(kind: .connectionClosed, summary: reason))
  }

  /// `error` as this integration reports it: a ``SharedPostgresError`` or a cancellation as it is; while connecting,
  /// any other as ``disconnected(_:)``; after, an error the server answered a statement with as
  /// ``statementFailed(_:)`` and any other as ``disconnected(_:)``.
  static func wrapping(_ error: any Error, whileConnecting: Bool = false) -> any Error {
    if error is SharedPostgresError || error is CancellationError { return error }
    let cause = Cause(error)
    return cause.kind == .serverError && !whileConnecting
      ? SharedPostgresError.statementFailed(cause) : .disconnected(cause)
  }
}
