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
  /// Only touched by the task that holds `turn`.
  private let current = Mutex<PostgresConnection?>(nil)
  private let closed = Atomic<Bool>(false)

  init(configuration: PostgresConnection.Configuration, table: ValueTable, logger: Logger) {
    self.configuration = configuration
    self.table = table
    self.logger = logger
  }

  deinit {
    // A connection must be closed before it is freed.
    current.withLock { $0 }?.close().whenComplete { _ in }
  }

  /// Runs `body` with the connection, alone; connects first if there is none.
  func withConnection<Result: Sendable>(
    _ body: (PostgresConnection) async throws -> Result
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
    }
    do {
      return try await body(connection)
    } catch {
      if connection.isClosed { current.withLock { $0 = nil } }
      throw error
    }
  }

  /// Closes the connection; later uses throw ``SharedPostgresError/closed``.
  func close() async {
    closed.store(true, ordering: .releasing)
    await turn.wait()
    defer { turn.signal() }
    let connection = current.withLock { $0.take() }
    try? await connection?.close()
  }
}
