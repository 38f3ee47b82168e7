public import Foundation
public import SharedState
import Synchronization

/// A key for a `Codable` value kept as JSON in a row of a PostgreSQL table and shared live between every instance
/// of a program that uses the same database.
///
/// ```swift
/// func enableBeta(database: SharedPostgresDatabase) {
///   @Shared(.postgres("feature-flags", in: database)) var flags = Flags()
///   $flags.withLock { $0.beta = true }
/// }
/// ```
///
/// - **Loading:** the first holder reads the row asynchronously: holders see `isLoading` and their default until
///   it arrives. No row means "no value": the default is used, and nothing is written until the first change. A row
///   that is not JSON of this type (and that the key's `migration`, if any, does not convert) sets `loadError`, and
///   is never written over until the program says so: saves fail with
///   ``SharedPostgresError/undecodableRow(key:version:)`` until ``overwrite(with:)``. See "Schema evolution" in
///   the "Sharing across machines" article.
/// - **Saving:** each change is upserted with a version one higher than the row's, and announced on the
///   database's channel by the same statement (with the value, when it fits the notification's 8000 bytes).
/// - **Changes that must all count** (a counter several machines increment): ``update(ifMissing:isolation:_:)``
///   applies a change to the newest stored value, checked against the row's version and applied again on conflict.
/// - **Other instances:** every instance listens on the channel and applies other instances' changes, never its
///   own echo and never a version older than one it has. With ``PostgresConflictPolicy/lastWriterWins`` (the
///   default) the newest version wins; with ``PostgresConflictPolicy/merge(_:)`` a save that finds a newer version in
///   the row combines both.
/// - **Outages:** see ``SharedPostgresDatabase``.
/// - **Names:** any string of at most ``maximumNameBytes`` bytes of UTF-8 without a NUL byte. A key that is not
///   reads and writes nothing: its load and every save fail at once with ``SharedPostgresError/invalidKey(_:reason:)``
///   (as `loadError` and `saveError`), and nothing is written again for it. ``init(validating:in:conflicts:migration:)``
///   throws instead.
public struct PostgresKey<Value: Codable & Sendable>: SharedKey, CustomStringConvertible {
  /// The value's key in the table.
  public let name: String
  /// The database the value lives in.
  public let database: SharedPostgresDatabase
  /// What a save does when another instance wrote since this one read.
  public let conflicts: PostgresConflictPolicy<Value>
  /// Converts a row's JSON that does not decode as `Value` (written by an older version of the program, say); `nil`
  /// when the key has none.
  public let migration: (@Sendable (_ storedJSON: Data) throws -> Value)?

  /// The longest name a key may have, in bytes of UTF-8: a row's id is a primary key, whose index holds at most about
  /// 2,700 bytes, and every change announces it in a notification of at most 8,000.
  public static var maximumNameBytes: Int { 2_048 }

  /// Creates a key for the row `name` of `database`'s table.
  ///
  /// ```swift
  /// let key = PostgresKey<Counter>("visits", in: database)
  /// ```
  ///
  /// A name that cannot be a row's id (see ``maximumNameBytes``) is not refused here: the key's load and saves fail
  /// with ``SharedPostgresError/invalidKey(_:reason:)``.
  ///
  /// - Parameters:
  ///   - name: The value's key in the table.
  ///   - database: The database.
  ///   - conflicts: What a save does when another instance wrote since this one read.
  ///   - migration: Converts a row's JSON that does not decode as `Value` (an older schema); throw to leave the row
  ///     undecodable. The converted value is written with the next change, not before.
  public init(
    _ name: String, in database: SharedPostgresDatabase,
    conflicts: PostgresConflictPolicy<Value> = .lastWriterWins,
    migration: (@Sendable (_ storedJSON: Data) throws -> Value)? = nil
  ) {
    self.name = name
    self.database = database
    self.conflicts = conflicts
    self.migration = migration
  }

  /// Creates a key for the row `name` of `database`'s table, after checking that `name` can be a row's id.
  ///
  /// ```swift
  /// func flags(named name: String, database: SharedPostgresDatabase) throws -> Shared<Flags> {
  ///   Shared(wrappedValue: Flags(), try PostgresKey(validating: name, in: database))
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - name: The value's key in the table: at most ``maximumNameBytes`` bytes of UTF-8, without a NUL byte.
  ///   - database: The database.
  ///   - conflicts: What a save does when another instance wrote since this one read.
  ///   - migration: Converts a row's JSON that does not decode as `Value` (an older schema); see
  ///     ``init(_:in:conflicts:migration:)``.
  /// - Throws: ``SharedPostgresError/invalidKey(_:reason:)``.
  public init(
    validating name: String, in database: SharedPostgresDatabase,
    conflicts: PostgresConflictPolicy<Value> = .lastWriterWins,
    migration: (@Sendable (_ storedJSON: Data) throws -> Value)? = nil
  ) throws {
    if let problem = Self.problem(withName: name) { throw SharedPostgresError.invalidKey(name, reason: problem) }
    self.init(name, in: database, conflicts: conflicts, migration: migration)
  }

  /// What keeps `name` from being a row's id, or `nil`.
  static func problem(withName name: String) -> String? {
    if name.utf8.contains(0) { return "it holds a NUL byte, which PostgreSQL text cannot" }
    if name.utf8.count > maximumNameBytes {
      return "it is \(name.utf8.count) bytes long; a key is at most \(maximumNameBytes) bytes of UTF-8"
    }
    return nil
  }

  /// The error of a key whose name cannot be a row's id, or `nil`.
  private var nameError: SharedPostgresError? {
    Self.problem(withName: name).map { SharedPostgresError.invalidKey(name, reason: $0) }
  }

  /// The identity of the value: the database object and the row's key.
  public var id: PostgresKeyID { PostgresKeyID(database: database.core.identity, name: name) }

  /// The key as it reads in code.
  public var description: String { ".postgres(\(name))" }

  /// Reads the row from a task: holders see `isLoading` until it arrives.
  ///
  /// - Parameters:
  ///   - context: The context of the shared value.
  ///   - continuation: Resumed with the decoded row, `nil` when there is none, or the error.
  public func load(context: SharedKeyContext<Value>, continuation: SharedLoadContinuation<Value>) {
    if let nameError { return continuation.resume(throwing: nameError) }
    let core = database.core
    let name = self.name
    let conflicts = self.conflicts
    let key = self
    // Before the task: no change of another instance lands from here until the load hands its value over.
    core.loadStarted(name)
    Task {
      do {
        try await core.load(name) { row in
          guard let row else { return continuation.resume(returning: nil) }
          let value: Value
          do {
            value = try key.decodeStored(row.json)
          } catch {
            core.rowDecoded(name, version: row.version, decodes: false)
            return continuation.resume(throwing: error)
          }
          core.rowDecoded(name, version: row.version, decodes: true)
          continuation.resume(returning: value)
          // The row's version is a base of merges only if memory holds its value: a load's value is dropped when
          // the program changed the value during the load (under last writer wins, nothing is merged). This runs in
          // the database's landing turn, so the value's `==` holds up every key's landings meanwhile.
          if let current = context.currentValue, conflicts.isEqual(current, value) {
            core.memoryHolds(name, version: row.version, json: row.json)
          }
        }
      } catch {
        continuation.resume(throwing: error)
      }
    }
  }

  /// Upserts the value as the row's next version and announces it; under the merge policy, combines it first with
  /// a newer version found in the row, and puts the result in memory.
  ///
  /// - Parameters:
  ///   - value: The value to save.
  ///   - context: The context of the shared value.
  /// - Throws: ``SharedPostgresError``; exposed as `saveError`.
  public func save(_ value: Value, context: SharedKeyContext<Value>) async throws {
    if let nameError { throw nameError }
    let json = try Self.encode(value, key: name)
    try await write(json, local: value, context: context)
  }

  /// Writes `json` (of `local`) and puts a merged result in memory; see ``save(_:context:)``. Outside a save of the
  /// framework, `read` (taken before `local` was read) keeps a change the program made during the write: the merged
  /// result is then not applied.
  @discardableResult
  func write(
    _ json: Data, local: Value, context: SharedKeyContext<Value>, readAt read: SharedStoreRead? = nil
  ) async throws -> Value {
    let merger = merger(local: local)
    let conflicts = self.conflicts
    var stored = local
    let key = self
    let decodes: @Sendable (Data) -> Bool = { key.decodes($0) }
    _ = try await database.core.write(name, json: json, merge: merger, decodes: decodes) { written in
      guard written != json, let merged = try? decodeStored(written) else { return true }
      stored = merged
      if let read {
        // Outside a save of the framework: the key wrote memory's change itself (a retry, a close).
        guard context.updateAfterSaving(merged, readAt: read) else { return false }
      } else {
        context.update(merged)
      }
      guard let current = context.currentValue else { return false }
      return conflicts.isEqual(current, merged)
    }
    await database.core.runHook(\.afterWriteReturned)
    return stored
  }

  /// Starts applying other instances' changes to this value.
  ///
  /// - Parameter context: The context to report changes to.
  /// - Returns: A subscription that stops applying them.
  public func subscribe(context: SharedKeyContext<Value>) -> SharedSubscription {
    // A key that cannot be a row's id has no row to hear of.
    if nameError != nil { return SharedSubscription {} }
    let holder = HeldPostgresValue(key: self, context: context)
    let core = database.core
    let initialJSON = context.currentValue.flatMap { try? Self.encode($0, key: name) }
    let token = core.hold(holder, key: name, initialJSON: initialJSON)
    return SharedSubscription { core.release(token, key: name) }
  }

  /// What a save under the merge policy does with a newer row: combines `local` with it; `nil` for last writer
  /// wins. When `local` holds no change of this instance (``holdsChangeOfItsOwn(_:)``), the row's JSON is returned
  /// as it is, without calling the merge function: the save then writes nothing, and memory takes the row's value.
  func merger(local: Value) -> (@Sendable (Data) throws -> Data)? {
    guard let merge = conflicts.merge else { return nil }
    let key = self
    return { remote in
      let stored = try key.decodeStored(remote)
      guard key.holdsChangeOfItsOwn(local) else { return remote }
      return try Self.encode(merge(local, stored), key: key.name)
    }
  }

  /// Whether `local`, a value of memory, holds a change of this instance that the row lacks: it differs, by the
  /// policy's `==`, from the value memory last agreed on with the row (loaded, landed or written). Taken to hold
  /// one when that value is not known. Under merge, only such a value is ever combined with the row and written.
  func holdsChangeOfItsOwn(_ local: Value) -> Bool {
    guard let json = database.core.agreedJSON(of: name), let agreed = try? decodeStored(json) else { return true }
    return !conflicts.isEqual(local, agreed)
  }

  /// Decodes a row's JSON as `Value`, or converts it with the key's migration; throws
  /// ``SharedPostgresError/undecodable(key:reason:)`` when neither works.
  func decodeStored(_ json: Data) throws -> Value {
    do {
      return try Self.decode(json, key: name)
    } catch {
      guard let migration else { throw error }
      do {
        return try migration(json)
      } catch let migrationError {
        throw SharedPostgresError.undecodable(key: name, reason: "migration failed: \(migrationError)")
      }
    }
  }

  /// Whether a row's JSON decodes as `Value` or migrates to it.
  func decodes(_ json: Data) -> Bool {
    (try? decodeStored(json)) != nil
  }

  static func encode(_ value: Value, key: String) throws -> Data {
    do {
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.sortedKeys]
      return try encoder.encode(value)
    } catch {
      throw SharedPostgresError.unencodable(key: key, reason: String(describing: error))
    }
  }

  static func decode(_ json: Data, key: String) throws -> Value {
    do {
      return try JSONDecoder().decode(Value.self, from: json)
    } catch {
      throw SharedPostgresError.undecodable(key: key, reason: String(describing: error))
    }
  }
}

extension SharedReaderKey {
  /// A key for a `Codable` value kept as JSON in the row `name` of `database`'s table, and shared live with every
  /// other instance that uses the database.
  ///
  /// ```swift
  /// func showFlags(database: SharedPostgresDatabase) {
  ///   @Shared(.postgres("feature-flags", in: database)) var flags = Flags()
  ///   print(flags)
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - name: The value's key in the table.
  ///   - database: The database.
  ///   - conflicts: What a save does when another instance wrote since this one read; the newest version wins by
  ///     default.
  ///   - migration: Converts a row's JSON that does not decode as `Value` (an older schema); see
  ///     ``PostgresKey/init(_:in:conflicts:migration:)``.
  /// - Returns: The key.
  public static func postgres<Value>(
    _ name: String, in database: SharedPostgresDatabase,
    conflicts: PostgresConflictPolicy<Value> = .lastWriterWins,
    migration: (@Sendable (_ storedJSON: Data) throws -> Value)? = nil
  ) -> Self where Self == PostgresKey<Value> {
    PostgresKey(name, in: database, conflicts: conflicts, migration: migration)
  }
}
