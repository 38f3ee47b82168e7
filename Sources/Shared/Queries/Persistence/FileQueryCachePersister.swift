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
/// link at `url` is followed, and stays a link.
///
/// One process at a time persists to a file: a store claims it when ``QueryStore/persistCache(_:)`` opens it, and
/// holds it while it persists (until the store, and this persister, are freed, or the process ends however it
/// ends). Another process that persists to the same file is refused at open: its ``QueryCacheRestore/problem`` is
/// ``QueryCacheProblem/inUse(reason:)``, and it neither restores nor writes the file. The claim is an exclusive lock
/// on a file beside it, `.NAME.lock`, which stays. Within one process the claim is shared: give each store a file of
/// its own, as two stores writing one file keep only the entries of the last to write. Once the process claims the
/// file, the temporary files a killed write of it left (`.NAME.UUID.tmp`) are removed.
public struct FileQueryCachePersister: QueryCachePersister {
  /// The file.
  public let url: URL
  private let store: FileStore
  /// What the file store remembers this persister's reads and writes by, and what holds its claim on the file.
  private let owner = Owner()

  private final class Owner: Sendable {
    /// The persister's claim on the file, once a store persists to it: held until the persister is freed.
    let claim = Lock<FileClaim?>(nil)
  }

  /// A persister of the file at `url`.
  ///
  /// ```swift
  /// let persister = FileQueryCachePersister(url: cacheURL)
  /// ```
  ///
  /// - Parameter url: A file URL; its folder is made when a store opens it, or at the first write, if it does not
  ///   exist.
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

  /// Claims the file for the store that persists to it, before it is read: another process that persists to the
  /// file is then refused (see ``FileClaim``). Stray temporary files of the file are removed.
  ///
  /// - Throws: ``QueryCacheProblem/inUse(reason:)`` when the file is in use.
  func claim() throws(QueryCacheProblem) {
    do {
      let claim = try FileClaim.take(url)
      owner.claim.withLock { $0 = claim }
    } catch {
      throw .inUse(reason: error.description)
    }
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
