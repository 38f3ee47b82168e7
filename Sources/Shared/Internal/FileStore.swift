import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// One file on disk, shared by every key and value that use its path: writes and checks for outside changes run
/// one at a time, so a check never mistakes a write for someone else's.
///
/// What the file looked like is remembered per shared value: a value sees a write made for another value (in
/// another registry, say) as an outside change, and loads it.
actor FileStore {
  let url: URL
  /// What the file looked like after each value last read or wrote it (`nil`: there was no file).
  private let known = Lock<[ObjectIdentifier: FileSignature?]>([:])
  /// How many times the file was written, for tests.
  private(set) var writeCount = 0

  private init(url: URL) {
    self.url = url
  }

  private static let stores = Lock<[String: WeakStore]>([:])

  private struct WeakStore {
    weak var store: FileStore?
  }

  /// The store of the file at `url`, shared while anyone uses it.
  static func forFile(at url: URL) -> FileStore {
    stores.withLock { stores in
      if let existing = stores[url.path]?.store { return existing }
      let store = FileStore(url: url)
      if stores.count > 64 { stores = stores.filter { $0.value.store != nil } }
      stores[url.path] = WeakStore(store: store)
      return store
    }
  }

  /// Reads the file for a first holder; `nil` when it does not exist.
  nonisolated func readInitial(for value: ObjectIdentifier) throws -> Data? {
    let (data, signature) = try read()
    known.withLock { $0[value] = .some(signature) }
    return data
  }

  /// Forgets what `value` knew of the file.
  nonisolated func forget(_ value: ObjectIdentifier) {
    _ = known.withLock { $0.removeValue(forKey: value) }
  }

  /// Writes `data` atomically: a temporary file in the same folder, flushed, then renamed over the file.
  func write(_ data: Data, for value: ObjectIdentifier) throws {
    let folder = url.deletingLastPathComponent()
    let temporary = folder.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp")
    do {
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      guard FileManager.default.createFile(atPath: temporary.path, contents: data) else {
        throw FileStorageError.unwritable(url: url, reason: "cannot create a file in \(folder.path)")
      }
      let handle = try FileHandle(forWritingTo: temporary)
      try handle.synchronize()
      try handle.close()
      guard rename(temporary.path, url.path) == 0 else {
        throw FileStorageError.unwritable(url: url, reason: String(cString: strerror(errno)))
      }
    } catch {
      try? FileManager.default.removeItem(at: temporary)
      if let error = error as? FileStorageError { throw error }
      throw FileStorageError.unwritable(url: url, reason: error.localizedDescription)
    }
    writeCount += 1
    let signature = FileSignature(of: url)
    known.withLock { $0[value] = .some(signature) }
  }

  /// The file's new contents if someone else changed it since this program last read or wrote it; `nil` if not
  /// (or if it was deleted, which leaves the value as it is).
  func externalChange(for value: ObjectIdentifier) throws -> Data? {
    let current = FileSignature(of: url)
    let last = known.withLock { $0[value] ?? nil }
    guard current != last else { return nil }
    let (data, signature) = try read()
    known.withLock { $0[value] = .some(signature) }
    return data
  }

  private nonisolated func read() throws -> (Data?, FileSignature?) {
    let signature = FileSignature(of: url)
    guard signature != nil else { return (nil, nil) }
    do {
      return (try Data(contentsOf: url), signature)
    } catch {
      throw FileStorageError.unreadable(url: url, reason: error.localizedDescription)
    }
  }
}

/// What tells one version of a file from another without reading it.
struct FileSignature: Equatable, Sendable {
  let inode: UInt64
  let size: UInt64
  let modified: Date

  init?(of url: URL) {
    guard let attributes = try? FileManager.default.attributesOfItem(atPath: url.path) else { return nil }
    inode = (attributes[.systemFileNumber] as? NSNumber)?.uint64Value ?? 0
    size = (attributes[.size] as? NSNumber)?.uint64Value ?? 0
    modified = attributes[.modificationDate] as? Date ?? .distantPast
  }
}
