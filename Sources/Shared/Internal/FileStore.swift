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
/// one at a time, so a check never mistakes a write of this program for someone else's.
actor FileStore {
  let url: URL
  /// What the file looked like after this program last read or wrote it.
  private let known = Mutex<FileSignature?>(nil)
  /// How many times the file was written, for tests.
  private(set) var writeCount = 0

  private init(url: URL) {
    self.url = url
  }

  private static let stores = Mutex<[String: WeakStore]>([:])

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
  nonisolated func readInitial() throws -> Data? {
    let (data, signature) = try read()
    known.withLock { $0 = signature }
    return data
  }

  /// Writes `data` atomically: a temporary file in the same folder, flushed, then renamed over the file.
  func write(_ data: Data) throws {
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
    known.withLock { $0 = FileSignature(of: url) }
  }

  /// The file's new contents if someone else changed it since this program last read or wrote it; `nil` if not
  /// (or if it was deleted, which leaves the value as it is).
  func externalChange() throws -> Data? {
    let current = FileSignature(of: url)
    guard current != known.withLock({ $0 }) else { return nil }
    let (data, signature) = try read()
    known.withLock { $0 = signature }
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
