import NIOSSL

extension SharedPostgresDatabase.Configuration.TLS {
  /// The authorities trusted to sign the server's certificate: the system's, or the ones you give, in PEM.
  ///
  /// ```swift
  /// let bundle: SharedPostgresDatabase.Configuration.TLS.CertificateAuthority = .file("/etc/ssl/db-ca.pem")
  /// ```
  ///
  /// The ones you give replace the system's: a server is trusted only if one of them signed its certificate.
  public struct CertificateAuthority: Sendable, Hashable, CustomStringConvertible {
    private enum Source: Hashable {
      case system
      case pem(String)
      case file(String)
    }

    private let source: Source

    /// The authorities the system trusts.
    public static var system: Self { Self(source: .system) }

    /// The certificates in `pem` (one or more `-----BEGIN CERTIFICATE-----` blocks).
    ///
    /// ```swift
    /// let authority: SharedPostgresDatabase.Configuration.TLS.CertificateAuthority = .pem(caCertificate)
    /// ```
    ///
    /// - Parameter pem: The certificates, in PEM.
    /// - Returns: The authority.
    public static func pem(_ pem: String) -> Self { Self(source: .pem(pem)) }

    /// The certificates in the PEM file at `path`, read when the database is made.
    ///
    /// ```swift
    /// let authority: SharedPostgresDatabase.Configuration.TLS.CertificateAuthority = .file("/etc/ssl/db-ca.pem")
    /// ```
    ///
    /// - Parameter path: The file's path.
    /// - Returns: The authority.
    public static func file(_ path: String) -> Self { Self(source: .file(path)) }

    /// Which authorities: the system's, certificates given in PEM, or a file's path.
    public var description: String {
      switch source {
      case .system: return "the system's authorities"
      case .pem: return "the authority given in PEM"
      case .file(let path): return "the authority in \(path)"
      }
    }

    /// The trust roots for a TLS configuration.
    ///
    /// - Throws: ``SharedPostgresError/invalidTLS(reason:)`` when the PEM does not parse, holds no certificate, or
    ///   the file cannot be read.
    func trustRoots() throws(SharedPostgresError) -> NIOSSLTrustRoots {
      let certificates: [NIOSSLCertificate]
      switch source {
      case .system:
        return .default
      case .pem(let pem):
        do {
          certificates = try NIOSSLCertificate.fromPEMBytes(Array(pem.utf8))
        } catch {
          throw .invalidTLS(reason: "the certificate authority's PEM does not parse: \(error)")
        }
      case .file(let path):
        do {
          certificates = try NIOSSLCertificate.fromPEMFile(path)
        } catch {
          throw .invalidTLS(reason: "the certificate authority's file \(path) cannot be read: \(error)")
        }
      }
      guard !certificates.isEmpty else { throw .invalidTLS(reason: "the certificate authority holds no certificate") }
      return .certificates(certificates)
    }
  }
}
