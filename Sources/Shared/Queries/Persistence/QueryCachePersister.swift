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
/// The store hands it the whole cache as bytes (see ``PersistedQueryCache/encoded()``), checked when they are
/// read back, so a persister only keeps them. ``FileQueryCachePersister`` (``file(_:)``) keeps them in a file with
/// the guarantees of the file storage. The store calls one method at a time.
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
