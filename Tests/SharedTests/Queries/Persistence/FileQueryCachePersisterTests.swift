import Foundation
import TestSupport
import Testing

@testable import SharedState

/// The file-backed persister: a cache written as the file storage writes (one new file, synced, renamed, the folder
/// synced; permissions kept), read back after a restart, removed when it empties.
@Suite(.freshRegistry)
struct FileQueryCachePersisterTests {
  @Test func aCacheIsSavedLoadedAndRemoved() async throws {
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let url = folder.file("nested/queries.cache")
    let persister = FileQueryCachePersister.file(url)
    #expect(try await persister.load() == nil)
    try await persister.remove()  // Nothing there: not an error.
    let bytes = try PersistedQueryCache(entries: [try .init(key: ["a"], value: 1, updatedAt: Date())]).encoded()
    try await persister.save(bytes)
    #expect(try await persister.load() == bytes)
    try await persister.remove()
    #expect(!FileManager.default.fileExists(atPath: url.path))
    #expect(try await persister.load() == nil)
  }

  @Test func savingKeepsTheFilesPermissions() async throws {
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let url = folder.file("queries.cache")
    let persister = FileQueryCachePersister(url: url)
    try await persister.save(Data("first".utf8))
    try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: url.path)
    try await persister.save(Data("second".utf8))
    let mode = try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int
    #expect(mode == 0o600)
  }

  @Test func aStoreRestartedOnTheSameFileShowsWhatTheFirstOneWrote() async throws {
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let persistence = QueryCachePersistence(persister: .file(folder.file("queries.cache")), version: "1")
    let fetcher = KeyedFetcher()
    let store = SharedRegistry.current.queries
    await store.persistCache(persistence)
    #expect(try await store.fetch(fetcher.query(["posts", 1], "post", clock: ManualClock())) == "post 1")
    try await store.flushPersistedCache()

    let registry = SharedRegistry()
    #expect(await registry.queries.persistCache(persistence) == QueryCacheRestore(restored: 1))
    let post = inRegistry(registry) {
      Shared(
        wrappedValue: OperationState<String>(), fetcher.query(["posts", 1], "post", clock: ManualClock()))
    }
    #expect(post.wrappedValue.value == "post 1")
    #expect(!post.wrappedValue.isFetching)
    #expect(fetcher.count("post") == 1)
  }

  /// A change waiting for the throttle (whose clock never moves here) is written by the flush at exit, on the
  /// calling thread, and a later store restores it; with nothing waiting the exit writes nothing.
  @Test func theExitWritesAChangeThatWaitsForTheThrottle() async throws {
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let url = folder.file("queries.cache")
    let persistence = QueryCachePersistence(
      persister: .file(url), version: "1", throttle: .seconds(60), clock: ManualClock())
    let store = SharedRegistry.current.queries
    await store.persistCache(persistence)
    let engine = try #require(store.persistedCache.engine)
    try engine.flushBeforeExit()
    #expect(!FileManager.default.fileExists(atPath: url.path))
    store.setFetchedValue("waiting", for: KeyedFetcher().query(["posts", 1], "post", clock: ManualClock()))
    try engine.flushBeforeExit()
    let cache = try PersistedQueryCache(encoded: Data(contentsOf: url))
    #expect(try cache.entries.map { try $0.decodedValue(as: String.self) } == ["waiting"])
    // The registry's flush writes it too, and what it writes is no older than the exit's write.
    try await SharedRegistry.current.flush()
    let flushed = try PersistedQueryCache(encoded: Data(contentsOf: url))
    #expect(try flushed.entries.map { try $0.decodedValue(as: String.self) } == ["waiting"])
  }

  /// A removal waiting for the throttle is written by the flush at exit as a change is: a removed query is gone
  /// from the file, and a cache every query was removed from is removed, so a later store restores none of them.
  @Test func theExitWritesARemovalThatWaitsForTheThrottle() async throws {
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let url = folder.file("queries.cache")
    let persistence = QueryCachePersistence(
      persister: .file(url), version: "1", throttle: .seconds(60), clock: ManualClock())
    let store = SharedRegistry.current.queries
    await store.persistCache(persistence)
    let engine = try #require(store.persistedCache.engine)
    let fetcher = KeyedFetcher()
    store.setFetchedValue("one", for: fetcher.query(["posts", 1], "post", clock: ManualClock()))
    store.setFetchedValue("two", for: fetcher.query(["posts", 2], "post", clock: ManualClock()))
    try await store.flushPersistedCache()
    store.remove(.exactly(["posts", 1]))
    try engine.flushBeforeExit()
    let cache = try PersistedQueryCache(encoded: Data(contentsOf: url))
    #expect(cache.entries.map(\.key) == [["posts", 2]])
    store.remove(.all)
    try engine.flushBeforeExit()
    #expect(!FileManager.default.fileExists(atPath: url.path))
    let registry = SharedRegistry()
    #expect(await registry.queries.persistCache(persistence) == QueryCacheRestore(restored: 0))
  }

  @Test func aDamagedFileIsDroppedAndReplacedByTheNextWrite() async throws {
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let url = folder.file("queries.cache")
    try Data("{\"not\": \"a cache\"}".utf8).write(to: url)
    let store = SharedRegistry.current.queries
    let restore = await store.persistCache(QueryCachePersistence(persister: .file(url)))
    guard case .corrupt = restore.problem else {
      Issue.record("restored with \(restore.problem as Any)")
      return
    }
    store.setFetchedValue("fresh", for: KeyedFetcher().query(["posts", 1], "post", clock: ManualClock()))
    try await store.flushPersistedCache()
    let cache = try PersistedQueryCache(encoded: Data(contentsOf: url))
    #expect(try cache.entries.map { try $0.decodedValue(as: String.self) } == ["fresh"])
  }

  /// Checked as the file storage's saves are (`FileStoreTests`): `strace` of a helper process that persists a
  /// cache and flushes it.
  @Test(
    .enabled(
      if: FileManager.default.isExecutableFile(atPath: "/usr/bin/strace") && fileProbeExecutable() != nil,
      "needs strace and the FileFaultProbe helper"))
  func aCacheWriteWritesOnceSyncsTheFileRenamesItAndSyncsTheFolder() async throws {
    let probe = try #require(fileProbeExecutable())
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let url = folder.file("queries.cache")
    let (status, calls) = try await TracedCalls.trace(probe, ["persist-cache", url.path, "42"], file: url, in: folder)
    #expect(status == 0)
    #expect(calls.isOneDurableWrite, "\(calls.lines)")
    let cache = try PersistedQueryCache(encoded: Data(contentsOf: url))
    #expect(try cache.entries.map { try $0.decodedValue(as: String.self) } == ["42"])
  }

  /// A write after the first appends: the system calls of one append are an `open` of the file for appending, one
  /// `write`, an `fdatasync` and a `close`, and nothing is renamed.
  @Test(
    .enabled(
      if: FileManager.default.isExecutableFile(atPath: "/usr/bin/strace") && fileProbeExecutable() != nil,
      "needs strace and the FileFaultProbe helper"))
  func aCacheWriteAfterTheFirstAppendsOpensWritesSyncsAndCloses() async throws {
    let probe = try #require(fileProbeExecutable())
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let url = URL(fileURLWithPath: folder.url.resolvingSymlinksInPath().path).appendingPathComponent("queries.cache")
    let traces = folder.file("traces")
    try FileManager.default.createDirectory(at: traces, withIntermediateDirectories: true)
    let status = try await runToEnd(
      URL(fileURLWithPath: "/usr/bin/strace"),
      [
        "-ff", "-qq", "-o", traces.appendingPathComponent("thread").path,
        "-e", "trace=openat,write,fsync,fdatasync,close,rename,renameat,renameat2", probe.path,
        "persist-cache-twice", url.path, "42",
      ])
    #expect(status == 0)
    let logs = try FileManager.default.contentsOfDirectory(at: traces, includingPropertiesForKeys: nil)
    // The calls on the descriptor opened for appending, on the thread that opened it, in order.
    var appendCalls: [String] = []
    var renames = 0
    for log in logs {
      let lines = String(decoding: try Data(contentsOf: log), as: UTF8.self).split(separator: "\n").map(String.init)
      renames += lines.filter { $0.hasPrefix("rename") }.count
      var descriptor: String?
      for line in lines {
        if line.hasPrefix("openat("), line.contains("\"\(url.path)\""), line.contains("O_APPEND") {
          descriptor = line.components(separatedBy: " = ").last
          appendCalls.append("open")
        } else if let fd = descriptor, line.hasPrefix("write(\(fd),") {
          appendCalls.append("write")
        } else if let fd = descriptor, line.hasPrefix("fdatasync(\(fd))") || line.hasPrefix("fsync(\(fd))") {
          appendCalls.append("fdatasync")
        } else if let fd = descriptor, line.hasPrefix("close(\(fd))") {
          appendCalls.append("close")
          descriptor = nil
        }
      }
    }
    #expect(appendCalls == ["open", "write", "fdatasync", "close"])
    // The first write alone renamed: it made the file whole.
    #expect(renames == 1)
    let cache = try PersistedQueryCache(encoded: Data(contentsOf: url))
    #expect(
      Set(cache.entries.map(\.key.description)) == [QueryKey(["probe"]).description, QueryKey(["second"]).description])
  }
}
