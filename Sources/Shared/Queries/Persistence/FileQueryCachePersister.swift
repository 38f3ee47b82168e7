public import Foundation

/// Keeps a persisted query cache in a file: the changes of each write appended and synced, and the whole cache
/// written again as ``FileStorageKey`` writes (a new file in the same folder, synced, renamed over the old one, and
/// the folder synced) when the appended changes outweigh it; its permissions, owner and group are kept.
///
/// ```swift
/// func startCaching(in folder: URL) async {
///   let cacheURL = folder.appendingPathComponent("queries.cache")
///   await SharedRegistry.current.queries.persistCache(QueryCachePersistence(persister: .file(cacheURL)))
/// }
/// ```
///
/// A write that ends has reached the disk: a power loss after it keeps it. A write cut short by a crash leaves the
/// changes before it whole: the next restore reads them and reports the torn end
/// (``QueryCacheProblem/cutShort(droppedBytes:reason:)``). A cache that became empty removes the file. A symbolic
/// link at `url` is followed, and stays a link. Give each store a file of its own.
public struct FileQueryCachePersister: QueryCachePersister {
  /// The file.
  public let url: URL
  private let store: FileStore
  /// What the file store remembers this persister's reads and writes by.
  private let owner = Owner()

  private final class Owner: Sendable {}

  /// A persister of the file at `url`.
  ///
  /// ```swift
  /// let persister = FileQueryCachePersister(url: cacheURL)
  /// ```
  ///
  /// - Parameter url: A file URL; its folder is made at the first write if it does not exist.
  public init(url: URL) {
    self.url = url
    store = FileStore.forFile(at: url)
  }

  /// The file's bytes, or `nil` when there is no file.
  ///
  /// - Returns: The bytes.
  /// - Throws: ``FileStorageError`` when the file exists but cannot be read, or `url` is not a file URL.
  public func load() async throws -> Data? {
    try store.readInitial(for: owner)
  }

  /// Writes `data` durably in place of the file.
  ///
  /// - Parameter data: The whole cache.
  /// - Throws: ``FileStorageError/unwritable(url:reason:)`` when the file or its folder cannot be written.
  public func save(_ data: Data) async throws {
    try await store.write(data, for: owner, sequence: nil)
  }

  /// Writes `data`, write number `sequence` of the cache, durably; skipped when the file holds a later one.
  func save(_ data: Data, sequence: UInt64) async throws {
    try await store.write(data, for: owner, sequence: sequence)
  }

  /// Writes `data`, write number `sequence` of the cache, durably, on the calling thread (the flush at exit);
  /// skipped when the file holds a later one.
  func saveNow(_ data: Data, sequence: UInt64) throws {
    try store.writeNow(data, for: owner, sequence: sequence)
  }

  /// `true`: the store appends each write's changes.
  public var appendsChanges: Bool { true }

  /// Appends `data` to the file and syncs it: an `open`, a `write`, an `fdatasync` and a `close`.
  ///
  /// - Parameter data: The changes since the last save or append.
  /// - Throws: ``FileStorageError/unwritable(url:reason:)`` when the file is missing or cannot be written.
  public func append(_ data: Data) async throws {
    try await store.append(data, for: owner, sequence: nil)
  }

  /// Appends `data`, write number `sequence` of the cache, durably; skipped when the file holds a later one.
  func append(_ data: Data, sequence: UInt64) async throws {
    try await store.append(data, for: owner, sequence: sequence)
  }

  /// Appends `data`, write number `sequence` of the cache, durably, on the calling thread (the flush at exit);
  /// skipped when the file holds a later one.
  func appendNow(_ data: Data, sequence: UInt64) throws {
    try store.appendNow(data, for: owner, sequence: sequence)
  }

  /// Removes the file, and syncs its folder so the removal lasts; no file is not an error.
  ///
  /// - Throws: ``FileStorageError/unwritable(url:reason:)`` when the file cannot be removed.
  public func remove() async throws {
    try await store.remove(for: owner)
  }

  /// Removes the file, write number `sequence` of the cache, durably; skipped when the file holds a later one.
  func remove(sequence: UInt64) async throws {
    try await store.remove(for: owner, sequence: sequence)
  }

  /// Removes the file, write number `sequence` of the cache, durably, on the calling thread (the flush at exit);
  /// skipped when the file holds a later one.
  func removeNow(sequence: UInt64) throws {
    try store.removeNow(for: owner, sequence: sequence)
  }
}
