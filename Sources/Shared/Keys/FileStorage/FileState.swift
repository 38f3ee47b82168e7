#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// What a file looked like, without reading it.
enum FileState: Equatable, Sendable {
  /// There was no file: nothing at the path, or a missing folder on it (`ENOENT`, `ENOTDIR`).
  case absent
  /// The path could not be looked at, for this `errno` (no permission on a folder, a loop of links, an I/O
  /// error...): not a sign that the file is gone.
  case unreadable(errno: Int32)
  /// There was a file with this signature.
  case file(FileSignature)

  /// The state of the file at `path`, following symbolic links (so a link's target is described, not the link).
  init(ofFileAt path: String) {
    var information = stat()
    guard stat(path, &information) == 0 else {
      let code = errno
      self = code == ENOENT || code == ENOTDIR ? .absent : .unreadable(errno: code)
      return
    }
    self = .file(FileSignature(information))
  }
}

/// What tells one version of a file from another without reading it.
struct FileSignature: Equatable, Sendable {
  let device: UInt64
  let inode: UInt64
  let size: Int64
  let modifiedSeconds: Int
  let modifiedNanoseconds: Int

  init(_ information: stat) {
    device = UInt64(information.st_dev)
    inode = UInt64(information.st_ino)
    size = Int64(information.st_size)
    #if canImport(Darwin)
      modifiedSeconds = information.st_mtimespec.tv_sec
      modifiedNanoseconds = information.st_mtimespec.tv_nsec
    #else
      modifiedSeconds = information.st_mtim.tv_sec
      modifiedNanoseconds = information.st_mtim.tv_nsec
    #endif
  }
}
