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
///
/// A path that is a symbolic link is followed: the file it leads to is watched and written, and the link stays.
actor FileStore {
  let url: URL
  /// What the file looked like after each value last read or wrote it. A value without an entry reads the file
  /// on its next check. An entry goes with its value: it refers to it weakly, and entries of freed values are
  /// dropped whenever one is recorded or counted.
  private let known = Lock<[ObjectIdentifier: Known]>([:])

  /// What one value knew of the file.
  private struct Known {
    weak var owner: (any AnyObject & Sendable)?
    var state: FileState
  }
  /// Held around every write of the file and every check for outside changes, with what the writes decide on.
  ///
  /// The actor already runs saves and checks one at a time; this lock also keeps out the flush at exit, which
  /// writes on the exiting thread without the actor (see ``writeNow(_:for:sequence:)``). Nothing in it awaits, and
  /// no code of the program runs under it (values are encoded before): a thread that waits for it waits for a few
  /// system calls.
  private let writing = Lock(Writing())

  private struct Writing {
    var order = FileWriteOrder()
    /// How many times the file was written, for tests.
    var count = 0
  }

  /// How many times the file was written, for tests.
  nonisolated var writeCount: Int { writing.withLock { $0.count } }

  private init(url: URL) {
    self.url = url
  }

  /// The stores in use, and the count above which freed entries are next dropped.
  private static let stores = Lock<(byPath: [String: WeakStore], pruneAbove: Int)>(([:], 64))

  private struct WeakStore {
    weak var store: FileStore?
  }

  /// The store of the file at `url`, shared while anyone uses it.
  static func forFile(at url: URL) -> FileStore {
    let name = url.isFileURL ? url.path : url.absoluteString
    return stores.withLock { stores in
      if let existing = stores.byPath[name]?.store { return existing }
      let store = FileStore(url: url)
      if stores.byPath.count > stores.pruneAbove {
        // Dropping freed entries only when the table doubled keeps each insert constant on average.
        stores.byPath = stores.byPath.filter { $0.value.store != nil }
        stores.pruneAbove = max(64, stores.byPath.count * 2)
      }
      stores.byPath[name] = WeakStore(store: store)
      return store
    }
  }

  /// What one check for outside changes found.
  enum Check {
    /// The file looks as it did when this value last read or wrote it.
    case unchanged
    /// The file is gone.
    case removed
    /// The file has new contents (empty when someone emptied it), read when it looked like `state`.
    case contents(Data, state: FileState)
  }

  /// Reads the file for a first holder; `nil` when it does not exist.
  nonisolated func readInitial(for value: any AnyObject & Sendable) throws -> Data? {
    try readRecordingState(for: value).data
  }

  /// How many values the store remembers the file for; for tests.
  nonisolated var knownCount: Int {
    known.withLock { known in
      known = known.filter { $0.value.owner != nil }
      return known.count
    }
  }

  /// Forgets what `value` knew of the file.
  nonisolated func forget(_ value: ObjectIdentifier) {
    _ = known.withLock { $0.removeValue(forKey: value) }
  }

  /// Makes the next check of `value` read the file again, unless the file was written since it looked like
  /// `state` (a write of this program then recorded what the file now holds).
  nonisolated func rereadUnlessWritten(since state: FileState, for value: any AnyObject & Sendable) {
    known.withLock { known in
      if known[ObjectIdentifier(value)]?.state == state { known[ObjectIdentifier(value)] = nil }
    }
  }

  /// Records that `value` saw the file looking like `state`, dropping the entries of freed values.
  private nonisolated func record(_ state: FileState, for value: any AnyObject & Sendable) {
    known.withLock { known in
      if known.count > 1 { known = known.filter { $0.value.owner != nil } }
      known[ObjectIdentifier(value)] = Known(owner: value, state: state)
    }
  }

  /// Writes `data`, change number `sequence` of `value` (`nil`: a write with no number, which always writes),
  /// durably; see ``writeNow(_:for:sequence:)``.
  func write(_ data: Data, for value: any AnyObject & Sendable, sequence: UInt64?) throws {
    try writeNow(data, for: value, sequence: sequence)
  }

  /// Writes `data`, change number `sequence` of `value`, durably, on the calling thread: what a save does (on the
  /// actor), and what the flush at exit does (on the exiting thread, where nothing may be awaited).
  ///
  /// A change no newer than one of the same value that the file holds already is skipped (see
  /// ``FileWriteOrder``): the exit's write of a newer change and a save under way of an older one may reach here
  /// in either order, and the file keeps the newer.
  ///
  /// The write holds the file's write lock throughout, which only another write or a check holds, each for a few
  /// system calls; so the exiting thread waits at most for one write that is already under way.
  nonisolated func writeNow(_ data: Data, for value: any AnyObject & Sendable, sequence: UInt64?) throws {
    try writing.withLock { writing in
      guard writing.order.writeRequested(sequence: sequence, by: value) == .write else { return }
      try writeDurably(data, for: value) { writing.count += 1 }
      writing.order.writeSucceeded(sequence: sequence, by: value)
    }
  }

  /// Writes `data` durably, following a symbolic link: one write of a new file in the same folder, which keeps
  /// the existing file's permissions (and owner and group, where the process may; the group's permissions only with
  /// the group), an `fsync` of it, a rename over the file, and
  /// an `fsync` of the folder so the rename survives a power loss. Calls `renamed` once the file holds `data`.
  private nonisolated func writeDurably(
    _ data: Data,
    for value: any AnyObject & Sendable,
    renamed: () -> Void
  ) throws {
    guard url.isFileURL else { throw FileStorageError.notAFileURL(url: url) }
    guard let target = Self.followingLinks(url.path) else {
      throw FileStorageError.unwritable(
        url: url, reason: "a loop of symbolic links: \(String(cString: strerror(ELOOP)))")
    }
    let folder = (target as NSString).deletingLastPathComponent
    let temporary = "\(folder)/.\((target as NSString).lastPathComponent).\(UUID().uuidString).tmp"
    if target != url.path {
      // A link is written through only into a folder that exists: folders are never made where a link points.
      var information = stat()
      guard stat(folder, &information) == 0 else {
        throw FileStorageError.unwritable(url: url, reason: "the link leads into \(folder): \(Self.lastError())")
      }
    } else {
      try createFolders(folder)
    }
    let written = try writeTemporary(data, at: temporary, like: target)
    guard rename(temporary, target) == 0 else {
      let reason = Self.lastError()
      unlink(temporary)
      throw FileStorageError.unwritable(url: url, reason: reason)
    }
    // The file now holds the new value: recorded before the folder's sync, so a failing sync never makes the next
    // check take this program's own write for someone else's.
    renamed()
    record(written, for: value)
    try syncFolder(folder)
  }

  /// Appends `data` to the file durably; see ``appendNow(_:for:sequence:)``.
  func append(_ data: Data, for value: any AnyObject & Sendable, sequence: UInt64?) throws {
    try appendNow(data, for: value, sequence: sequence)
  }

  /// Removes the file durably; see ``removeNow(for:sequence:)``.
  func remove(for value: any AnyObject & Sendable, sequence: UInt64? = nil) throws {
    try removeNow(for: value, sequence: sequence)
  }

  /// Removes the file durably, change number `sequence` of `value`, on the calling thread, as a write of that
  /// change: ordered with the value's writes by ``FileWriteOrder`` under the file's write lock, so a write of an
  /// older change under way elsewhere cannot bring the file back after it (and a removal of an older change is
  /// skipped after a newer write).
  nonisolated func removeNow(for value: any AnyObject & Sendable, sequence: UInt64?) throws {
    try writing.withLock { writing in
      guard writing.order.writeRequested(sequence: sequence, by: value) == .write else { return }
      try removeDurably(for: value)
      writing.order.writeSucceeded(sequence: sequence, by: value)
    }
  }

  /// Appends `data` to the file durably, change number `sequence` of `value`, on the calling thread: ordered with the
  /// value's writes and removals by ``FileWriteOrder``, so an older append under way elsewhere is skipped after a
  /// newer write.
  ///
  /// Four system calls: an `open` of the existing file (following a symbolic link) for appending, one `write` (more
  /// only if the system takes part of the bytes), an `fdatasync` (an `fsync` where there is none), and a `close`.
  /// The file must exist: a missing file is an error, since only a whole write makes it (and syncs its folder).
  nonisolated func appendNow(_ data: Data, for value: any AnyObject & Sendable, sequence: UInt64?) throws {
    try writing.withLock { writing in
      guard writing.order.writeRequested(sequence: sequence, by: value) == .write else { return }
      try appendDurably(data)
      writing.count += 1
      writing.order.writeSucceeded(sequence: sequence, by: value)
    }
  }

  private nonisolated func appendDurably(_ data: Data) throws {
    guard url.isFileURL else { throw FileStorageError.notAFileURL(url: url) }
    let descriptor = open(url.path, O_WRONLY | O_APPEND | O_CLOEXEC)
    guard descriptor >= 0 else { throw failure() }
    var isOpen = true
    defer { if isOpen { close(descriptor) } }
    try data.withUnsafeBytes { bytes in
      var offset = 0
      while offset < bytes.count {
        let count = writeBytes(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
        if count < 0 {
          if errno == EINTR { continue }
          throw failure()
        }
        offset += count
      }
    }
    #if canImport(Darwin)
      guard fsync(descriptor) == 0 else { throw failure() }
    #else
      guard fdatasync(descriptor) == 0 else { throw failure() }
    #endif
    isOpen = false
    guard close(descriptor) == 0 else { throw failure() }
  }

  /// Removes the file durably, following a symbolic link (the link stays): an unlink, then an `fsync` of the folder
  /// so the removal survives a power loss. A missing file is already removed.
  private nonisolated func removeDurably(for value: any AnyObject & Sendable) throws {
    guard url.isFileURL else { throw FileStorageError.notAFileURL(url: url) }
    guard let target = Self.followingLinks(url.path) else {
      throw FileStorageError.unwritable(
        url: url, reason: "a loop of symbolic links: \(String(cString: strerror(ELOOP)))")
    }
    guard unlink(target) == 0 || errno == ENOENT || errno == ENOTDIR else { throw failure() }
    record(.absent, for: value)
    var information = stat()
    let folder = (target as NSString).deletingLastPathComponent
    guard stat(folder, &information) == 0 else { return }  // No folder: nothing was there to remove.
    try syncFolder(folder)
  }

  /// Creates `folder` and any missing folder above it, and syncs the folder holding each one it created, so the
  /// first save into a new folder survives a power loss too.
  private nonisolated func createFolders(_ folder: String) throws {
    var missing: [String] = []
    var current = folder
    var information = stat()
    while !current.isEmpty, current != "/", stat(current, &information) != 0 {
      missing.append(current)
      current = (current as NSString).deletingLastPathComponent
    }
    guard !missing.isEmpty else { return }
    do {
      try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    } catch {
      throw FileStorageError.unwritable(url: url, reason: error.localizedDescription)
    }
    for created in missing.reversed() {
      try syncFolder((created as NSString).deletingLastPathComponent)
    }
  }

  /// Creates `path` with `data`, made like the file at `original` if there is one; returns what it looks like.
  private nonisolated func writeTemporary(_ data: Data, at path: String, like original: String) throws -> FileState {
    let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
    guard descriptor >= 0 else {
      throw FileStorageError.unwritable(url: url, reason: "cannot create a file in its folder: \(Self.lastError())")
    }
    var isOpen = true
    do {
      defer { if isOpen { close(descriptor) } }
      var existing = stat()
      if stat(original, &existing) == 0 {
        if existing.st_uid != geteuid() || existing.st_gid != getegid() {
          // Only a privileged process may give a file away; any process may try to keep its group.
          if fchown(descriptor, existing.st_uid, existing.st_gid) != 0 {
            _ = fchown(descriptor, uid_t.max, existing.st_gid)
          }
        }
        var created = stat()
        guard fstat(descriptor, &created) == 0 else { throw failure() }
        // Permission bits only: set-user-ID and set-group-ID are never copied to a file written by this program.
        // The group's bits are kept only with the group: otherwise they would go to the group the file now has.
        var mode = existing.st_mode & 0o777
        if created.st_gid != existing.st_gid { mode &= ~mode_t(0o070) }
        guard fchmod(descriptor, mode) == 0 else { throw failure() }
      }
      try data.withUnsafeBytes { bytes in
        var offset = 0
        while offset < bytes.count {
          let count = writeBytes(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
          if count < 0 {
            if errno == EINTR { continue }
            throw failure()
          }
          offset += count
        }
      }
      guard fsync(descriptor) == 0 else { throw failure() }
      var written = stat()
      guard fstat(descriptor, &written) == 0 else { throw failure() }
      isOpen = false
      guard close(descriptor) == 0 else { throw failure() }
      return .file(FileSignature(written))
    } catch {
      unlink(path)
      throw error
    }
  }

  /// Makes a rename in `folder` durable, as far as the process may: a folder it cannot open for reading (EACCES,
  /// a write-only drop folder) or a file system that cannot sync a folder (EINVAL) is left as it is, and the save
  /// counts as done. Any other failure (an I/O error) is reported.
  private nonisolated func syncFolder(_ folder: String) throws {
    let descriptor = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard descriptor >= 0 else {
      if errno == EACCES || errno == EPERM { return }
      throw failure()
    }
    defer { close(descriptor) }
    guard fsync(descriptor) == 0 || errno == EINVAL else { throw failure() }
  }

  private nonisolated func failure() -> FileStorageError {
    .unwritable(url: url, reason: Self.lastError())
  }

  private static func lastError() -> String {
    String(cString: strerror(errno))
  }

  /// Checks whether someone else changed the file since this program last read or wrote it for `value`.
  ///
  /// It holds the file's write lock, so a write made at exit, without the actor, is not mistaken for someone else's.
  func externalChange(for value: any AnyObject & Sendable) throws -> Check {
    guard url.isFileURL else { return .unchanged }
    return try writing.withLock { _ in
      let current = FileState(ofFileAt: url.path)
      guard current != known.withLock({ $0[ObjectIdentifier(value)]?.state }) else { return .unchanged }
      let (data, state) = try readRecordingState(for: value)
      guard let data else { return .removed }
      return .contents(data, state: state)
    }
  }

  /// Reads the file and records what it looked like for `value`, even when it cannot be read (so a broken file
  /// is reported once, not at every check); `nil` data when there is no file.
  private nonisolated func readRecordingState(
    for value: any AnyObject & Sendable
  ) throws -> (data: Data?, state: FileState) {
    guard url.isFileURL else { throw FileStorageError.notAFileURL(url: url) }
    let state = FileState(ofFileAt: url.path)
    record(state, for: value)
    switch state {
    case .absent: return (nil, state)
    case .unreadable(let code):
      throw FileStorageError.unreadable(url: url, reason: String(cString: strerror(code)))
    case .file: break
    }
    do {
      return (try Data(contentsOf: url), state)
    } catch {
      throw FileStorageError.unreadable(url: url, reason: error.localizedDescription)
    }
  }

  /// `path` with every symbolic link at its end followed (a link to a link, and so on); `nil` for a loop of links
  /// (more than 32 in a row, as the system counts).
  static func followingLinks(_ path: String) -> String? {
    var current = path
    for _ in 0..<32 {
      guard let destination = try? FileManager.default.destinationOfSymbolicLink(atPath: current) else {
        return current
      }
      current =
        destination.hasPrefix("/")
        ? destination
        : ((current as NSString).deletingLastPathComponent as NSString).appendingPathComponent(destination)
    }
    return nil
  }
}

/// `write(2)`, named apart from ``FileStore/write(_:for:)``.
private func writeBytes(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
  write(descriptor, bytes, count)
}
