import Foundation

extension PostgresKey {
  /// Changes the stored value without losing any other instance's change: reads the row, applies `change` to it,
  /// and writes the result only if the row is still at the version read; when another instance wrote first, reads
  /// the newer value and applies `change` again. Returns the value written.
  ///
  /// ```swift
  /// struct Visits: Codable, Sendable, Equatable { var count = 0 }
  ///
  /// func countVisit(database: SharedPostgresDatabase) async throws {
  ///   let visits = PostgresKey<Visits>("visits", in: database)
  ///   @Shared(visits) var shown = Visits()
  ///   let now = try await visits.update(ifMissing: Visits()) { $0.count += 1 }
  ///   print(now.count, shown.count)  // the same: memory has it when `update` returns
  /// }
  /// ```
  ///
  /// Three machines each counting 500 visits this way store 1,500; with `$shown.withLock { $0.count += 1 }` each
  /// save replaces the row (or merges values, not changes), so increments made at once are lost. Use it for every
  /// change of a value whose changes must all count: a `withLock` of the same value is still saved by its
  /// ``conflicts`` policy, and under last writer wins it replaces the row.
  ///
  /// The value written reaches this instance's holders of the key as another instance's change does: before
  /// `update` returns, unless a save or a load of the key runs then, in which case right after it. Other instances
  /// hear it through the channel. Nothing is written, and the error is thrown, when the server cannot be reached or
  /// the row does not decode (``SharedPostgresError/undecodableRow(key:version:)``; a key's `migration` converts
  /// it first). No transaction and no row lock: each attempt is one checked write. The first starts from the newest
  /// row this instance saw (written, heard or read; announcements carry the value, so a busy row is seen without a
  /// read); a refused write brings back the row as it found it, and the next attempt starts from that, or from a
  /// newer row heard meanwhile, and reads the row only when it has neither.
  ///
  /// > Important: `change` may run several times (once per attempt), each time on the newest stored value: keep it
  /// > a function of that value, without effects of its own. It runs on the caller's isolation, never under a lock.
  ///
  /// - Parameters:
  ///   - initial: The value `change` applies to when the row is missing.
  ///   - isolation: Where `change` runs; the caller's isolation by default.
  ///   - change: Changes the newest stored value in place.
  /// - Returns: The value written.
  /// - Throws: ``SharedPostgresError``, the server's error, or what `change` throws (nothing is written then);
  ///   `CancellationError` when the caller is cancelled before an attempt (an attempt whose write succeeded is not
  ///   undone).
  @discardableResult
  public func update(
    ifMissing initial: @autoclosure () -> Value,
    isolation: isolated (any Actor)? = #isolation,
    _ change: (inout Value) throws -> Void
  ) async throws -> Value {
    let core = database.core
    core.writeStarted()
    defer { core.writeFinished() }
    // The first attempt starts from the newest row this instance saw (no read); the version check catches a row
    // that moved on since, and every later attempt reads the row.
    var seen = core.lastRowSeen(name)
    while true {
      // A cancelled caller stops before an attempt, never between an attempt's write and its landing.
      try Task.checkCancellation()
      let insertVersion = core.insertVersion(of: name)
      let row: ValueTable.Row?
      let fromMemory = seen != nil
      if let known = seen {
        row = known
        seen = nil
      } else {
        row = try await core.readRow(name)
      }
      var value: Value
      if let row {
        do {
          value = try decodeStored(row.json)
        } catch {
          // A row seen earlier may have been written over since: read it.
          if fromMemory { continue }
          core.rowDecoded(name, version: row.version, decodes: false)
          throw SharedPostgresError.undecodableRow(key: name, version: row.version)
        }
      } else {
        value = initial()
      }
      try change(&value)
      let json = try Self.encode(value, key: name)
      let outcome = try await core.writeChecked(
        name, json: json, expected: row?.version ?? 0, insertVersion: insertVersion)
      guard case .written(let version) = outcome else {
        // Another instance wrote first. The next attempt starts from the row the write found, or from a newer row
        // this instance heard announced meanwhile (announcements carry the value), and reads the row only when it
        // has neither.
        if case .conflict(let found?) = outcome { seen = found }
        if let heard = core.lastRowSeen(name), heard.version > max(seen?.version ?? 0, row?.version ?? 0) {
          seen = heard
        }
        continue
      }
      await core.landOwnWrite(name, version: version, json: json)
      return value
    }
  }

  /// Writes `value` over the row whatever it holds, and puts it in memory: the program's decision about a row that
  /// does not decode (``SharedPostgresError/undecodableRow(key:version:)``). Later saves write as usual.
  ///
  /// ```swift
  /// if case .undecodableRow? = $flags.saveError as? SharedPostgresError {
  ///   try await key.overwrite(with: $flags.wrappedValue)  // the old row's fields are dropped, knowingly
  /// }
  /// ```
  ///
  /// The stored JSON is lost: read it first (`SELECT value FROM … WHERE id = …`) if any of it matters, or give the
  /// key a `migration` that converts it instead.
  ///
  /// - Parameter value: The value to store.
  /// - Throws: ``SharedPostgresError``, or the server's error; nothing is written then.
  public func overwrite(with value: Value) async throws {
    let json = try Self.encode(value, key: name)
    try await database.core.overwrite(name, json: json)
  }
}
