import Logging
import PostgresNIO
import Synchronization

/// One connection for reads and writes, used by one task at a time (a transaction needs it to itself), connected
/// on first use and again after it is lost. The values' table is created on each new connection if missing.
///
/// Every use has a deadline (the statement timeout): past it the connection is taken as partitioned, closed and
/// dropped, and the use fails with ``SharedPostgresError/Cause/Kind/timedOut``; so does every use that was waiting
/// for its turn meanwhile, or that waited while a connection could not be made, rather than wait out its own deadline
/// on the same path. An idle connection is checked every keepalive interval.
final class SerialConnection: Sendable {
  private let settings: ConnectionSettings
  private let table: ValueTable
  private let turn = AsyncSemaphore()
  private let nextID = Atomic<Int>(1)
  /// Set by the task that holds `turn`; taken by ``close()`` too.
  private let current = Mutex<PostgresConnection?>(nil)
  /// The statements prepared on the current connection, by their SQL, and that connection's id: a statement
  /// prepared by a use left behind at its deadline, on a connection dropped since, is not kept.
  private let statements = Mutex<(connection: Int, bySQL: [String: PreparedQuery])>((0, [:]))
  private let closed = Atomic<Bool>(false)
  /// How many uses began: the idle check leaves a connection used since the last check alone.
  private let uses = Atomic<UInt64>(0)
  /// The failures of the path (a connection that could not be made, a deadline passed) and the last one.
  private let failures = Mutex<(count: UInt64, last: (any Error)?)>((0, nil))
  /// For tests: how many connections this side closed and dropped (a deadline passed, an idle check failed, the
  /// table could not be made).
  private let dropped = Atomic<Int>(0)

  init(settings: ConnectionSettings, table: ValueTable) {
    self.settings = settings
    self.table = table
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
      let id = connection.id
      if let statement = owner.statements.withLock({ $0.connection == id ? $0.bySQL[sql] : nil }) {
        return statement
      }
      let statement = try await connection.prepare(query: sql).get()
      owner.statements.withLock { if $0.connection == id { $0.bySQL[sql] = statement } }
      return statement
    }
  }

  /// Runs `body` with the connection, alone, within the statement deadline; connects first if there is none.
  ///
  /// - Throws: ``SharedPostgresError/closed``; ``SharedPostgresError/disconnected(_:)`` when no connection could be
  ///   made, the deadline passed (the connection is then dropped, and `body` left behind), or the path failed while
  ///   this use waited for its turn; ``SharedPostgresError/statementFailed(_:)`` for an error the server answered.
  func withConnection<Result: Sendable>(
    _ body: @escaping @Sendable (Session) async throws -> Result
  ) async throws -> Result {
    let failuresBefore = failures.withLock { $0.count }
    uses.add(1, ordering: .relaxed)
    await turn.wait()
    defer { turn.signal() }
    guard !closed.load(ordering: .acquiring) else { throw SharedPostgresError.closed }
    if let failure = failures.withLock({ $0.count != failuresBefore ? $0.last : nil }) { throw failure }
    let connection = try await open()
    let session = Session(connection: connection, owner: self)
    do {
      return try await withDeadline(settings.statementTimeout) { try await body(session) }
    } catch is DeadlinePassed {
      let failure = SharedPostgresError.disconnected(.timedOut("a statement", after: settings.statementTimeout))
      settings.logger.warning(
        "PostgreSQL: a statement got no answer in time; the read/write connection is dropped",
        metadata: ["cause": "\(failure)"])
      recordFailure(failure)
      drop(connection)
      throw failure
    } catch {
      if connection.isClosed { current.withLock { $0 = nil } }
      throw SharedPostgresError.wrapping(error)
    }
  }

  /// The open connection, or a new one with the table made (the caller holds the turn).
  private func open() async throws -> PostgresConnection {
    if let open = current.withLock({ $0 }), !open.isClosed { return open }
    let id = nextID.add(1, ordering: .relaxed).oldValue
    let connection: PostgresConnection
    do {
      connection = try await settings.connect(id: id)
    } catch {
      settings.logger.warning(
        "PostgreSQL: the read/write connection could not be made", metadata: ["cause": "\(error)"])
      recordFailure(error)
      throw error
    }
    do {
      let table = self.table
      try await withDeadline(settings.statementTimeout) { try await table.create(on: connection) }
    } catch {
      drop(connection)
      guard error is DeadlinePassed else { throw SharedPostgresError.wrapping(error) }
      let failure = SharedPostgresError.disconnected(
        .timedOut("the table's creation", after: settings.statementTimeout))
      recordFailure(failure)
      throw failure
    }
    current.withLock { $0 = connection }
    statements.withLock { $0 = (id, [:]) }
    settings.logger.debug("PostgreSQL: the read/write connection is made", metadata: ["connection": "\(id)"])
    return connection
  }

  private func recordFailure(_ error: any Error) {
    failures.withLock { failures in
      failures.count += 1
      failures.last = error
    }
  }

  /// Closes `connection` without waiting (on a half-open connection nothing answers) and forgets it.
  private func drop(_ connection: PostgresConnection) {
    current.withLock { current in
      if current === connection { current = nil }
    }
    dropped.add(1, ordering: .relaxed)
    connection.close().whenComplete { _ in withExtendedLifetime(connection) {} }
  }

  /// Checks the connection every keepalive interval while it is idle (unused since the last check) with a cheap
  /// query; one not answered within the interval means a half-open connection (a partition): it is dropped, so the
  /// next use connects again rather than wait out its deadline. Runs until cancelled.
  func checkWhileIdle() async {
    var usesAtLastCheck = uses.load(ordering: .relaxed)
    while !Task.isCancelled {
      try? await Task.sleep(for: settings.keepaliveInterval)
      if Task.isCancelled || closed.load(ordering: .acquiring) { return }
      let usesNow = uses.load(ordering: .relaxed)
      defer { usesAtLastCheck = usesNow }
      guard usesNow == usesAtLastCheck else { continue }
      await checkIdleConnection()
    }
  }

  private func checkIdleConnection() async {
    await turn.wait()
    defer { turn.signal() }
    guard !closed.load(ordering: .acquiring), let connection = current.withLock({ $0 }), !connection.isClosed
    else { return }
    let logger = settings.logger
    do {
      try await withDeadline(settings.keepaliveInterval) {
        _ = try await connection.query("SELECT 1", logger: logger).collect()
      }
    } catch {
      let cause: SharedPostgresError.Cause =
        error is DeadlinePassed
        ? .timedOut("the idle read/write connection's check", after: settings.keepaliveInterval) : .init(error)
      logger.warning(
        "PostgreSQL: the idle read/write connection failed its check and is dropped", metadata: ["cause": "\(cause)"])
      drop(connection)
    }
  }

  /// For tests: whether the connection was taken and has been closed since (by the server, say).
  var isClosedForTests: Bool {
    current.withLock { $0?.isClosed ?? false }
  }

  /// For tests: how many connections this side closed and dropped.
  var droppedForTests: Int {
    dropped.load(ordering: .relaxed)
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
