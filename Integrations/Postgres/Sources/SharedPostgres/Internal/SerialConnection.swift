import Logging
import PostgresNIO
import Synchronization

/// One connection for reads and writes, used by one task at a time (a transaction needs it to itself), connected
/// on first use and again after it is lost. The values' table is created on each new connection if missing.
final class SerialConnection: Sendable {
  private let configuration: PostgresConnection.Configuration
  private let table: ValueTable
  private let logger: Logger
  private let turn = AsyncSemaphore()
  private let nextID = Atomic<Int>(1)
  /// Set by the task that holds `turn`; taken by ``close()`` too.
  private let current = Mutex<PostgresConnection?>(nil)
  /// The statements prepared on `current`, by their SQL; only touched by the task that holds `turn`.
  private let statements = Mutex<[String: PreparedQuery]>([:])
  private let closed = Atomic<Bool>(false)

  init(configuration: PostgresConnection.Configuration, table: ValueTable, logger: Logger) {
    self.configuration = configuration
    self.table = table
    self.logger = logger
  }

  deinit {
    // A connection must be closed before it is freed: it is kept until its close completes.
    guard let connection = current.withLock({ $0 }) else { return }
    connection.close().whenComplete { _ in withExtendedLifetime(connection) {} }
  }

  /// The connection, for the task that holds it, and the statements prepared on it.
  struct Session: Sendable {
    let connection: PostgresConnection
    fileprivate let owner: SerialConnection

    /// Throws when the server ended the connection since it was taken: a statement sent on it then would never
    /// complete (postgres-nio drops it without failing its result). ``SerialConnection/withConnection(_:)`` then
    /// drops the connection, so the next use connects again.
    func checkOpen() throws {
      guard connection.isClosed else { return }
      throw SharedPostgresError.disconnected(reason: "the server closed the connection")
    }

    /// `sql` prepared on this connection: prepared on its first use, then reused.
    func prepared(_ sql: String) async throws -> PreparedQuery {
      if let statement = owner.statements.withLock({ $0[sql] }) { return statement }
      let statement = try await connection.prepare(query: sql).get()
      owner.statements.withLock { $0[sql] = statement }
      return statement
    }
  }

  /// Runs `body` with the connection, alone; connects first if there is none.
  func withConnection<Result: Sendable>(
    _ body: (Session) async throws -> Result
  ) async throws -> Result {
    await turn.wait()
    defer { turn.signal() }
    guard !closed.load(ordering: .acquiring) else { throw SharedPostgresError.closed }
    let connection: PostgresConnection
    if let open = current.withLock({ $0 }), !open.isClosed {
      connection = open
    } else {
      connection = try await PostgresConnection.connect(
        configuration: configuration, id: nextID.add(1, ordering: .relaxed).oldValue, logger: logger)
      do {
        try await table.create(on: connection)
      } catch {
        try? await connection.close()
        throw error
      }
      current.withLock { $0 = connection }
      statements.withLock { $0 = [:] }
    }
    do {
      return try await body(Session(connection: connection, owner: self))
    } catch {
      if connection.isClosed { current.withLock { $0 = nil } }
      throw error
    }
  }

  /// For tests: whether the connection was taken and has been closed since (by the server, say).
  var isClosedForTests: Bool {
    current.withLock { $0?.isClosed ?? false }
  }

  /// Closes the connection; later uses throw ``SharedPostgresError/closed``. It does not wait for the task that
  /// holds the connection: a statement in flight on it fails, and one about to be sent finds it closed
  /// (``Session/checkOpen()``), so a use stuck elsewhere (a slow server, a test's hook) cannot hold the close.
  func close() async {
    closed.store(true, ordering: .releasing)
    let connection = current.withLock { $0.take() }
    try? await connection?.close()
  }
}
