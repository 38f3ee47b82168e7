import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// This process's hold on a file that one process at a time may write (a persisted query cache, a mutation queue's
/// file): an exclusive `flock` on a lock file beside it, `.NAME.lock` in the file's folder (a symbolic link is
/// followed, as the writes follow it), held while any claim of the file in this process lives.
///
/// A file written whole by several processes loses the entries of every process but the last to write, and a queue
/// file read by two processes runs their entries twice: so a second process is refused when it opens the file,
/// never silently overwritten. The lock is on a file of its own, not on the data file: a write replaces the data file
/// by a rename, and a lock on the replaced file would lock nothing. The system drops the lock when the process ends,
/// however it ends, so a kill never leaves a file claimed; the lock file itself stays (removing it would let two
/// processes hold locks on two different lock files).
///
/// Within one process, the claims of one file share the one lock (as ``FileStore/forFile(at:)`` shares one store per
/// path): a process that makes a second store or queue on a file it already uses is not refused. Keeping those apart
/// (one store or queue per file) is the program's to do.
///
/// Once the process first claims the file, the temporary files a killed writer of it left (`.NAME.UUID.tmp`, see
/// ``FileStore``) are removed: no writer of the file can be under way then.
final class FileClaim: Sendable {
  /// The file claimed, its symbolic links followed.
  let path: String

  private init(path: String) {
    self.path = path
  }

  deinit {
    // The last claim of the file closes the descriptor, which unlocks it; under the table's lock, so that a claim
    // taken meanwhile either shares the descriptor or opens the lock file anew.
    Self.claims.withLock { table in
      guard var entry = table[path] else { return }
      entry.holders -= 1
      if entry.holders > 0 {
        table[path] = entry
      } else {
        close(entry.descriptor)
        table[path] = nil
      }
    }
  }

  /// Why a file could not be claimed.
  enum Refusal: Error, Equatable, CustomStringConvertible {
    /// Another process holds the file; its process identifier when it wrote one in the lock file.
    case otherProcess(path: String, processIdentifier: Int32?)

    var description: String {
      switch self {
      case .otherProcess(let path, let identifier):
        let process = identifier.map { "process \($0)" } ?? "another process"
        return "\(path) is in use by \(process); one process at a time may use it"
      }
    }
  }

  /// The lock descriptors this process holds, by claimed path, with how many claims share each.
  private static let claims = Lock<[String: Entry]>([:])

  /// Called as a claim starts waiting for a child process to let go of a copy of this process's lock (tests).
  static let waitingForChild = Lock<(@Sendable () -> Void)?>(nil)

  private struct Entry {
    var descriptor: Int32
    var holders: Int
  }

  /// Claims the file at `url` for the caller, who holds the claim as long as it uses the file; `nil` for a URL
  /// that is not a file's, or a folder where no lock file can be made (no write of the file could be made there
  /// either, since a write makes its new file in that folder) or that cannot lock.
  ///
  /// A lock this process's own record names, held though no claim of it is in the table, is a copy that a child
  /// process made between `fork` and `exec` still holds: the claim waits for it to go, 5 seconds at most.
  ///
  /// - Throws: ``Refusal`` when another process holds the file.
  static func take(_ url: URL) throws(Refusal) -> FileClaim? {
    guard url.isFileURL, let path = FileStore.followingLinks(url.path) else { return nil }
    let folder = (path as NSString).deletingLastPathComponent
    let name = (path as NSString).lastPathComponent
    let lockPath = "\(folder)/.\(name).lock"
    let isClaimed = try claims.withLock { table throws(Refusal) -> Bool in
      if var entry = table[path] {
        entry.holders += 1
        table[path] = entry
        return true
      }
      guard let descriptor = try lock(lockPath, claimedPath: path, makesFolder: path == url.path) else { return false }
      table[path] = Entry(descriptor: descriptor, holders: 1)
      // Under the table's lock: another claim of this process, which may write at once, waits until they are gone.
      removeStrayTemporaries(of: name, in: folder)
      return true
    }
    guard isClaimed else { return nil }
    return FileClaim(path: path)
  }

  /// Opens the lock file at `lockPath` (making it, and its folder if `makesFolder`, if need be) and locks it,
  /// writing this process's identifier in it; the descriptor, or `nil` when no lock file can be made there.
  ///
  /// A folder is never made where a symbolic link points, as the writes never make one there.
  private static func lock(_ lockPath: String, claimedPath: String, makesFolder: Bool) throws(Refusal) -> Int32? {
    if makesFolder {
      let folder = (lockPath as NSString).deletingLastPathComponent
      try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }
    var descriptor = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o666)
    let isWritable = descriptor >= 0
    // A lock file made by another user may be readable only: `flock` locks a descriptor opened for reading too.
    if descriptor < 0 { descriptor = open(lockPath, O_RDONLY | O_CLOEXEC) }
    guard descriptor >= 0 else { return nil }
    var locked = flock(descriptor, LOCK_EX | LOCK_NB)
    while locked != 0 && errno == EINTR { locked = flock(descriptor, LOCK_EX | LOCK_NB) }
    // Held, and by this process by its own record, though no claim of it is in the table: a child process made
    // between the `open` of an earlier claim and its `exec` still holds a copy of that claim's descriptor (the lock
    // belongs to the open file, and a copy made by `fork` keeps it until `exec` closes it). The child lets go as it
    // starts its program: wait for that, a few seconds at most.
    var waits = 0
    while locked != 0 && errno == EWOULDBLOCK && waits < 1_000 && holder(of: descriptor) == getpid() {
      if waits == 0 { waitingForChild.withLock { $0 }?() }
      waits += 1
      usleep(5_000)
      locked = flock(descriptor, LOCK_EX | LOCK_NB)
      while locked != 0 && errno == EINTR { locked = flock(descriptor, LOCK_EX | LOCK_NB) }
    }
    guard locked == 0 else {
      let isHeld = errno == EWOULDBLOCK
      let refusal = Refusal.otherProcess(path: claimedPath, processIdentifier: holder(of: descriptor))
      close(descriptor)
      // A file system without locks: no process can be refused there, and the file is used as before.
      guard isHeld else { return nil }
      throw refusal
    }
    if isWritable {
      let identifier = Data("\(getpid())\n".utf8)
      _ = ftruncate(descriptor, 0)
      _ = identifier.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
    }
    return descriptor
  }

  /// The process identifier the holder of the lock file open at `descriptor` wrote in it, if any.
  private static func holder(of descriptor: Int32) -> Int32? {
    var bytes = [UInt8](repeating: 0, count: 32)
    let count = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
    guard count > 0 else { return nil }
    let text = String(decoding: bytes[..<count], as: UTF8.self)
    return Int32(text.trimmingCharacters(in: .whitespacesAndNewlines))
  }

  /// Removes the temporary files a killed write of the file `name` left in `folder`: `.NAME.UUID.tmp`. Those of
  /// other files (whose names only start like this one's) stay.
  private static func removeStrayTemporaries(of name: String, in folder: String) {
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
    let prefix = ".\(name)."
    for candidate in names where candidate.hasPrefix(prefix) && candidate.hasSuffix(".tmp") {
      let middle = candidate.dropFirst(prefix.count).dropLast(".tmp".count)
      guard UUID(uuidString: String(middle)) != nil else { continue }
      unlink("\(folder)/\(candidate)")
    }
  }
}
