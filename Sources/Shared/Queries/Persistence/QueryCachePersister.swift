public import Foundation

/// Where a persisted query cache is kept: a file, a database row, a key in a store of your own.
///
/// ```swift
/// actor DatabaseCachePersister: QueryCachePersister {
///   var row: Data?
///   func load() async throws -> Data? { row }
///   func save(_ data: Data) async throws { row = data }
///   func remove() async throws { row = nil }
/// }
/// ```
///
/// The store hands it the cache as bytes (see ``PersistedQueryCache/encoded()``), checked when they are read back,
/// so a persister only keeps them. ``FileQueryCachePersister`` (``file(_:)``) keeps them in a file with the
/// guarantees of the file storage. The store calls one method at a time.
///
/// A persister that only saves and loads is handed the whole cache at every write, which costs in proportion to the
/// cache. One that can add bytes after those it holds says so with ``appendsChanges`` and implements
/// ``append(_:)``: the store then appends only what changed, and saves the whole cache again (a compaction) once
/// the appended changes outweigh it. ``load()`` returns everything saved and appended since, in order.
///
/// ```swift
/// actor AppendingPersister: QueryCachePersister {
///   var bytes: Data?
///   nonisolated var appendsChanges: Bool { true }
///   func load() async throws -> Data? { bytes }
///   func save(_ data: Data) async throws { bytes = data }
///   func append(_ data: Data) async throws { bytes?.append(data) }
///   func remove() async throws { bytes = nil }
/// }
/// ```
public protocol QueryCachePersister: Sendable {
  /// The bytes last saved, or `nil` when there are none.
  ///
  /// - Returns: The bytes.
  /// - Throws: Any error: the store starts without a cache and reports ``QueryCacheProblem/unreadable(reason:)``.
  func load() async throws -> Data?

  /// Keeps `data` in place of the bytes saved before.
  ///
  /// - Parameter data: The whole cache.
  /// - Throws: Any error: the store keeps the cache in memory and reports ``QueryCacheProblem/unwritable(reason:)``.
  func save(_ data: Data) async throws

  /// Removes the saved bytes (the cache became empty); nothing saved is not an error.
  ///
  /// - Throws: Any error, reported as ``QueryCacheProblem/unwritable(reason:)``.
  func remove() async throws

  /// Whether the store may call ``append(_:)``: `false` unless the persister says otherwise.
  var appendsChanges: Bool { get }

  /// Adds `data` after the bytes saved and appended so far; called only when ``appendsChanges`` is `true`, and
  /// only after a ``save(_:)``.
  ///
  /// The bytes may be cut short by a crash: the store reads what is whole and reports the rest as
  /// ``QueryCacheProblem/cutShort(droppedBytes:reason:)``.
  ///
  /// - Parameter data: The changes since the last save or append.
  /// - Throws: Any error: the store reports ``QueryCacheProblem/unwritable(reason:)`` and saves the whole cache at
  ///   its next write.
  func append(_ data: Data) async throws
}

extension QueryCachePersister {
  /// `false`: the store saves the whole cache at every write.
  public var appendsChanges: Bool { false }

  /// Throws: a persister that appends implements this itself.
  ///
  /// - Parameter data: The changes.
  /// - Throws: ``QueryCacheProblem/unwritable(reason:)``, always.
  public func append(_ data: Data) async throws {
    throw QueryCacheProblem.unwritable(reason: "\(type(of: self)) does not append")
  }
}

extension QueryCachePersister where Self == FileQueryCachePersister {
  /// A persister that keeps the cache in the file at `url`, written as the file storage writes.
  ///
  /// ```swift
  /// let persistence = QueryCachePersistence(persister: .file(cacheURL), version: "2")
  /// ```
  ///
  /// - Parameter url: The file; its folder is made if it does not exist.
  /// - Returns: The persister.
  public static func file(_ url: URL) -> FileQueryCachePersister {
    FileQueryCachePersister(url: url)
  }
}
