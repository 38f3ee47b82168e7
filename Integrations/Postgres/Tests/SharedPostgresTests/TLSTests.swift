import Foundation
import Logging
import PostgresNIO
import SharedState
import Testing

@testable import SharedPostgres

extension ServerTests {
  /// TLS against the test server, whose certificate a throwaway authority made by `.ci/postgres-tests` signed
  /// (`SHARED_POSTGRES_CA_FILE`), for `localhost` and `127.0.0.1`.
  @Suite struct TLSTests {
    static func authorityFile() throws -> String {
      guard let file = ProcessInfo.processInfo.environment["SHARED_POSTGRES_CA_FILE"] else {
        throw FaultTests.MissingCommand(name: "SHARED_POSTGRES_CA_FILE")
      }
      return file
    }

    static func tlsOnlyUser() throws -> String {
      guard let user = ProcessInfo.processInfo.environment["SHARED_POSTGRES_TLS_ONLY_USER"] else {
        throw FaultTests.MissingCommand(name: "SHARED_POSTGRES_TLS_ONLY_USER")
      }
      return user
    }

    /// Required TLS, verified against the test authority (the certificate names 127.0.0.1): values are saved over an
    /// encrypted connection, and another instance without TLS hears them.
    @Test func requiredTLSVerifiedAgainstTheGivenAuthorityEncryptsTheConnection() async throws {
      var configuration = try TestDatabase.configuration()
      configuration.tls = .require(certificateAuthority: .file(try Self.authorityFile()))
      let database = try SharedPostgresDatabase(validating: configuration)
      try await bounded(.seconds(20)) { try await database.waitUntilListening() }
      let other = try await TestDatabase.instance()
      let key = TestDatabase.uniqueKey()
      let flags = Shared(wrappedValue: Flags(), .postgres(key, in: database))
      let seen = Shared(wrappedValue: Flags(), .postgres(key, in: other))
      try await flags.load()
      try await seen.load()
      flags.withLock { $0.limit = 5 }
      try await flags.save()
      try await waitForValue(seen, "the change saved over TLS") { $0.limit == 5 }

      let encrypted = try await database.core.connection.withConnection { session in
        let rows = try await session.connection.query(
          "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()", logger: Logger(label: "tests"))
        for try await ssl in rows.decode(Bool.self) { return ssl }
        return false
      }
      #expect(encrypted)
      await database.close()
      await other.close()
    }

    /// Reached by a name rather than an address, the server is verified against the DNS name in its certificate.
    @Test func theServerIsVerifiedAgainstTheNameItIsReachedBy() async throws {
      var configuration = try TestDatabase.configuration()
      configuration.host = "localhost"
      configuration.tls = .require(certificateAuthority: .file(try Self.authorityFile()))
      let database = SharedPostgresDatabase(configuration)
      try await bounded(.seconds(20)) { try await database.waitUntilListening() }
      await database.close()
    }

    /// Reached through an address its certificate does not name (the server also listens on 127.0.0.2), the server
    /// is refused under full verification, the default, and reached when only its certificate is checked.
    @Test func aServerReachedThroughAnAddressItsCertificateDoesNotNameIsRefused() async throws {
      guard let unnamedHost = ProcessInfo.processInfo.environment["SHARED_POSTGRES_UNNAMED_HOST"] else {
        throw FaultTests.MissingCommand(name: "SHARED_POSTGRES_UNNAMED_HOST")
      }
      var configuration = try TestDatabase.configuration()
      configuration.host = unnamedHost
      configuration.tls = .require(certificateAuthority: .file(try Self.authorityFile()))
      let verified = SharedPostgresDatabase(configuration)
      let error = await #expect(throws: SharedPostgresError.self) {
        try await bounded(.seconds(30)) { try await verified.waitUntilListening(timeout: .seconds(600)) }
      }
      #expect(error?.cause?.kind == .tlsFailed)
      await verified.close()

      configuration.tls = .require(
        certificateAuthority: .file(try Self.authorityFile()), verification: .certificateOnly)
      let certificateOnly = SharedPostgresDatabase(configuration)
      try await bounded(.seconds(20)) { try await certificateOnly.waitUntilListening() }
      await certificateOnly.close()
    }

    /// The server refuses the TLS-only user a plain connection, with its message; with TLS preferred (the authority
    /// given in PEM), the same user listens.
    @Test func aUserTheServerOnlyTakesOverTLSIsRefusedWithoutItAndListensWithIt() async throws {
      var configuration = try TestDatabase.configuration()
      configuration.username = try Self.tlsOnlyUser()
      let plain = SharedPostgresDatabase(configuration)
      let error = await #expect(throws: SharedPostgresError.self) {
        try await bounded(.seconds(30)) { try await plain.waitUntilListening(timeout: .seconds(600)) }
      }
      #expect(error?.cause?.kind == .authenticationFailed)
      #expect(error?.cause?.sqlState == "28000")
      #expect(error?.cause?.serverMessage?.contains("no encryption") == true)
      await plain.close()

      let pem = try String(contentsOfFile: try Self.authorityFile(), encoding: .utf8)
      configuration.tls = .prefer(certificateAuthority: .pem(pem))
      let encrypted = try SharedPostgresDatabase(validating: configuration)
      try await bounded(.seconds(20)) { try await encrypted.waitUntilListening() }
      await encrypted.close()
    }

    /// Verification is on by default: the system's authorities did not sign the test server's certificate, so the
    /// handshake is refused, and `waitUntilListening` throws it at once.
    @Test func aServerNoTrustedAuthorityVouchesForIsRefused() async throws {
      var configuration = try TestDatabase.configuration()
      configuration.tls = .require()
      let database = SharedPostgresDatabase(configuration)
      let error = await #expect(throws: SharedPostgresError.self) {
        try await bounded(.seconds(30)) { try await database.waitUntilListening(timeout: .seconds(600)) }
      }
      #expect(error?.cause?.kind == .tlsFailed)
      await database.close()

      // Without verification the same server is reached (encrypted, but unauthenticated).
      configuration.tls = .require(verification: .unverified)
      let unverified = SharedPostgresDatabase(configuration)
      try await bounded(.seconds(20)) { try await unverified.waitUntilListening() }
      await unverified.close()
    }
  }
}

/// TLS settings that cannot be used are refused at the call, or, without validation, by every wait.
@Suite struct TLSSettingsTests {
  @Test func anAuthorityThatDoesNotParseIsRefused() async throws {
    var configuration = SharedPostgresDatabase.Configuration(
      host: "127.0.0.1", username: "app", password: nil, database: "app")
    configuration.tls = .require(certificateAuthority: .pem("not a certificate"))
    #expect(throws: SharedPostgresError.self) { try configuration.validate() }
    #expect(throws: SharedPostgresError.self) { try SharedPostgresDatabase(validating: configuration) }
    configuration.tls = .require(certificateAuthority: .file("/nonexistent/authority.pem"))
    let error = #expect(throws: SharedPostgresError.self) { try configuration.validate() }
    guard case .invalidTLS? = error else {
      Issue.record("expected invalidTLS, got \(String(describing: error))")
      return
    }
    let database = SharedPostgresDatabase(configuration)
    await #expect(throws: SharedPostgresError.self) {
      try await bounded(.seconds(20)) { try await database.waitUntilListening() }
    }
    await database.close()
  }

  @Test func theDescriptionNamesTheModeAndNeverThePassword() {
    let configuration = SharedPostgresDatabase.Configuration(
      host: "db.example", username: "app", password: "hunter2-secret", database: "app",
      tls: .require(certificateAuthority: .file("/etc/ssl/db-ca.pem")))
    #expect(configuration.description.contains("TLS required"))
    #expect(configuration.description.contains("/etc/ssl/db-ca.pem"))
    #expect(!configuration.description.contains("hunter2"))
    #expect(SharedPostgresDatabase.Configuration.TLS.disable.description == "disabled")
  }
}
