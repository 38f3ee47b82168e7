#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

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
