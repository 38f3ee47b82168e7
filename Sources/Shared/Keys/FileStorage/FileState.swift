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
