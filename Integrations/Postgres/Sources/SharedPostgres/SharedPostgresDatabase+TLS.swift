import NIOSSL

extension SharedPostgresDatabase.Configuration {
  /// Whether the connections use TLS, and how the server is verified.
  ///
  /// Managed PostgreSQL services require TLS: use ``require(certificateAuthority:verification:)``, which verifies
  /// the server's certificate against the system's trusted authorities, or against the authority you give (the
  /// service's CA bundle, say), and checks that it names the host:
  ///
  /// ```swift
  /// let configuration = SharedPostgresDatabase.Configuration(
  ///   host: "db.internal", username: "app", password: secret, database: "app",
  ///   tls: .require(certificateAuthority: .file("/etc/ssl/db-ca.pem")))
  /// ```
  ///
  /// ``prefer(certificateAuthority:verification:)`` uses TLS when the server offers it and a plain connection when
  /// it does not; a server that offers TLS is still verified. ``disable`` (the default) never uses TLS: values and
  /// the login cross the network in clear text.
  public struct TLS: Sendable, Hashable, CustomStringConvertible {
    /// When TLS is used.
    public enum Mode: Sendable, Hashable {
      /// Never: a plain connection.
      case disable
      /// When the server offers it; a plain connection when it does not.
      case prefer
      /// Always: a server that does not offer TLS is not connected to.
      case require
    }

    /// How much of the server's certificate is checked.
    public enum ServerVerification: Sendable, Hashable {
      /// The certificate chains to a trusted authority and names the host (a DNS name, or an IP address for a host
      /// given as one): the default.
      case full
      /// The certificate chains to a trusted authority; the name in it is not checked (a server reached through an
      /// address its certificate does not name).
      case certificateOnly
      /// Nothing is checked: the connection is encrypted, but anyone on the path can pose as the server. For tests
      /// only.
      case unverified
    }

    /// When TLS is used.
    public var mode: Mode
    /// How much of the server's certificate is checked.
    public var verification: ServerVerification
    /// The authorities trusted to sign the server's certificate.
    public var certificateAuthority: CertificateAuthority

    /// Never use TLS.
    public static var disable: Self {
      Self(mode: .disable, verification: .full, certificateAuthority: .system)
    }

    /// Use TLS when the server offers it, and verify the server then; connect without it when the server does not
    /// offer it.
    ///
    /// ```swift
    /// let tls: SharedPostgresDatabase.Configuration.TLS = .prefer()
    /// ```
    ///
    /// - Parameters:
    ///   - certificateAuthority: The authorities trusted to sign the server's certificate; the system's by default.
    ///   - verification: How much of the certificate is checked; all of it by default.
    /// - Returns: The setting.
    public static func prefer(
      certificateAuthority: CertificateAuthority = .system, verification: ServerVerification = .full
    ) -> Self {
      Self(mode: .prefer, verification: verification, certificateAuthority: certificateAuthority)
    }

    /// Always use TLS, and verify the server: a server that does not offer TLS, or whose certificate does not
    /// verify, is not connected to (``SharedPostgresError/Cause/Kind/tlsFailed``).
    ///
    /// ```swift
    /// let tls: SharedPostgresDatabase.Configuration.TLS = .require(certificateAuthority: .pem(caCertificate))
    /// ```
    ///
    /// - Parameters:
    ///   - certificateAuthority: The authorities trusted to sign the server's certificate; the system's by default.
    ///   - verification: How much of the certificate is checked; all of it by default.
    /// - Returns: The setting.
    public static func require(
      certificateAuthority: CertificateAuthority = .system, verification: ServerVerification = .full
    ) -> Self {
      Self(mode: .require, verification: verification, certificateAuthority: certificateAuthority)
    }

    /// The mode, and for TLS the verification and the authority.
    public var description: String {
      switch mode {
      case .disable: return "disabled"
      case .prefer: return "preferred, \(verificationDescription)"
      case .require: return "required, \(verificationDescription)"
      }
    }

    private var verificationDescription: String {
      switch verification {
      case .full: return "verifying the server against \(certificateAuthority)"
      case .certificateOnly: return "verifying the server's certificate (not its name) against \(certificateAuthority)"
      case .unverified: return "not verifying the server"
      }
    }

    /// The TLS context the connections use, or `nil` when TLS is disabled.
    ///
    /// - Throws: ``SharedPostgresError/invalidTLS(reason:)`` when the authority cannot be read.
    func makeContext() throws(SharedPostgresError) -> NIOSSLContext? {
      guard mode != .disable else { return nil }
      var configuration = TLSConfiguration.makeClientConfiguration()
      switch verification {
      case .full: configuration.certificateVerification = .fullVerification
      case .certificateOnly: configuration.certificateVerification = .noHostnameVerification
      case .unverified: configuration.certificateVerification = .none
      }
      configuration.trustRoots = try certificateAuthority.trustRoots()
      do {
        return try NIOSSLContext(configuration: configuration)
      } catch {
        throw .invalidTLS(reason: "\(error)")
      }
    }
  }
}
