import Foundation
import TestSupport
import Testing

@testable import SharedState

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// An exit probe that opens a cache or queue file and holds it until it is killed: started, then ready once it
/// printed "ready", or refused once it printed "in use: ...".
private struct HoldingProbe {
  let process: Process
  private let output = Pipe()
  private let ended: Task<Int32, Never>

  init(_ mode: String, path: String, value: Int = 1) throws {
    let executable = try #require(exitProbeExecutable(), "the ExitProbe helper is built with the tests")
    let process = Process()
    process.executableURL = executable
    process.arguments = [mode, path, String(value)]
    process.standardOutput = output
    try process.run()
    self.process = process
    // Waiting for the process blocks a thread: one of its own, never one of the cooperative pool.
    ended = Task {
      await onThreadOfItsOwn {
        process.waitUntilExit()
        return process.terminationStatus
      }
    }
  }

  /// The first line the probe printed ("ready", or "in use: ..."); empty if it ended without a line.
  func firstLine() async -> String {
    let output = output.fileHandleForReading
    return await onThreadOfItsOwn { () -> String in
      var bytes = Data()
      while !bytes.contains(UInt8(ascii: "\n")) {
        let more = output.availableData
        if more.isEmpty { break }
        bytes.append(more)
      }
      return String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .newlines)
    }
  }

  /// Its exit status, once it ended.
  func status() async -> Int32 {
    await ended.value
  }

  /// Kills it with SIGKILL and waits until it is gone.
  func kill() async {
    Foundation.kill(process.processIdentifier, SIGKILL)
    _ = await ended.value
  }
}

/// A persisted query cache or a queue's file used by one process at a time: a second process is refused at open
/// with a clear error, and nothing of the first is lost. Each probe is a real process.
@Suite(
  .enabled(if: exitProbeExecutable() != nil, "needs the ExitProbe helper, built with the tests"),
  .timeLimit(.minutes(10)))
struct FileClaimTests {
  // MARK: The persisted cache

  @Test func aCacheFileInUseByAnotherProcessIsRefusedAtOpenAndFreedByItsKill() async throws {
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let url = folder.file("queries.cache")
    let holder = try HoldingProbe("hold-cache", path: url.path, value: 7)
    #expect(await holder.firstLine() == "ready")

    let refused = try await persistCache(url) { store, restore in
      #expect(restore.restored == 0)
      guard case .inUse(let reason) = restore.problem else {
        Issue.record("expected the file in use, got \(String(describing: restore.problem))")
        return
      }
      #expect(reason.contains("process \(holder.process.processIdentifier)"))
      // The store writes nothing to the file in use: the holder's cache stays whole.
      store.setFetchedValue("mine", for: .query(["mine"]) { "mine" })
      try await store.flushPersistedCache()
    }
    #expect(refused)
    await holder.kill()

    // Killed, the holder let the file go: it opens, with what the holder wrote and nothing of the refused store.
    let opened = try await persistCache(url) { store, restore in
      #expect(restore.problem == nil)
      #expect(restore.restored == 1)
      var values: [QueryKey: String] = [:]
      for entry in store.dehydrate().entries { values[entry.key] = try entry.decodedValue(as: String.self) }
      #expect(values == [["held"]: "7"])
    }
    #expect(opened)
  }

  @Test func aSecondProcessOpeningACacheFileInUseIsRefusedWithAClearError() async throws {
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let url = folder.file("queries.cache")
    let first = try HoldingProbe("hold-cache", path: url.path, value: 1)
    #expect(await first.firstLine() == "ready")
    let second = try HoldingProbe("hold-cache", path: url.path, value: 2)
    let line = await second.firstLine()
    #expect(line.hasPrefix("in use: "))
    #expect(line.contains("in use by process \(first.process.processIdentifier)"))
    #expect(await second.status() == 75)
    await first.kill()
    let third = try HoldingProbe("hold-cache", path: url.path, value: 3)
    #expect(await third.firstLine() == "ready")
    await third.kill()
  }

  /// The stores of one process share the process's claim: a relaunch within the process is not refused.
  @Test func aSecondStoreOfThisProcessSharesItsClaim() async throws {
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let url = folder.file("queries.cache")
    let first = SharedRegistry()
    let restore = await first.queries.persistCache(QueryCachePersistence(persister: .file(url)))
    #expect(restore.problem == nil)
    let opened = try await persistCache(url) { _, restore in #expect(restore.problem == nil) }
    #expect(opened)
    withExtendedLifetime(first) {}
  }

  @Test func aRefusedStoreMayPersistOnceTheFileIsFree() async throws {
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let url = folder.file("queries.cache")
    let holder = try HoldingProbe("hold-cache", path: url.path, value: 4)
    #expect(await holder.firstLine() == "ready")
    let registry = SharedRegistry()
    let store = registry.queries
    let refused = await store.persistCache(QueryCachePersistence(persister: .file(url)))
    #expect(refused.problem.map { if case .inUse = $0 { true } else { false } } == true)
    await holder.kill()
    let opened = await store.persistCache(QueryCachePersistence(persister: .file(url)))
    #expect(opened.problem == nil)
    #expect(opened.restored == 1)
  }

  // MARK: The mutation queue

  @Test func aQueueFileInUseByAnotherProcessIsRefusedAtRestoreAndFreedByItsKill() async throws {
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let url = folder.file("queue.json")
    let holder = try HoldingProbe("hold-queue", path: url.path)
    #expect(await holder.firstLine() == "ready")
    let queue = MutationQueue(file: url, network: ManualOnlineStatus(isOnline: false))
    #expect(throws: MutationQueueError.self) { try queue.restore() }
    do {
      try queue.restore()
      Issue.record("a queue file in use was restored")
    } catch {
      guard case .fileInUse(let refusedURL, let reason) = error else {
        Issue.record("expected the file in use, got \(error)")
        return
      }
      #expect(refusedURL == url)
      #expect(reason.contains("process \(holder.process.processIdentifier)"))
      #expect(error.description.contains("is in use"))
    }
    #expect(queue.isPaused)
    await holder.kill()
    // Killed, the holder let the file go: the same queue restores now.
    #expect(try queue.restore().isEmpty)
  }

  /// A queue refused at restore writes nothing; what it queued meanwhile waits in memory, and is written once a
  /// later restore finds the file free.
  @Test func aRefusedQueueWritesNothingAndSavesItsEntriesOnceRestored() async throws {
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let url = folder.file("queue.json")
    let holder = try HoldingProbe("hold-queue", path: url.path)
    #expect(await holder.firstLine() == "ready")
    let queue = MutationQueue(file: url, network: ManualOnlineStatus(isOnline: false))
    queue.register(.mutation("add-todo")) { (_: String, _) in }
    #expect(throws: MutationQueueError.self) { try queue.restore() }
    try queue.enqueue("add-todo", "milk")
    #expect(!FileManager.default.fileExists(atPath: url.path))
    await holder.kill()
    #expect(try queue.restore().count == 1)
    try await queue.flush()
    #expect(queue.entries.map(\.isSaved) == [true])
    #expect(FileManager.default.fileExists(atPath: url.path))
  }

  @Test func aSecondProcessOpeningAQueueFileInUseIsRefused() async throws {
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let url = folder.file("queue.json")
    let first = try HoldingProbe("hold-queue", path: url.path)
    #expect(await first.firstLine() == "ready")
    let second = try HoldingProbe("hold-queue", path: url.path)
    #expect(await second.firstLine().hasPrefix("in use: "))
    #expect(await second.status() == 75)
    await first.kill()
    let third = try HoldingProbe("hold-queue", path: url.path)
    #expect(await third.firstLine() == "ready")
    await third.kill()
  }

  // MARK: Stray temporary files

  @Test func theStrayTemporaryFilesOfACacheFileAreRemovedAtOpenAndOthersStay() async throws {
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let url = folder.file("queries.cache")
    let strays = try makeStrays(of: "queries.cache", in: folder)
    let opened = try await persistCache(url) { _, restore in #expect(restore.problem == nil) }
    #expect(opened)
    #expect(try remaining(in: folder) == strays.others)
  }

  @Test func theStrayTemporaryFilesOfAQueueFileAreRemovedAtRestoreAndOthersStay() throws {
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let url = folder.file("queue.json")
    let strays = try makeStrays(of: "queue.json", in: folder)
    let queue = MutationQueue(file: url, network: ManualOnlineStatus(isOnline: false))
    #expect(try remaining(in: folder) == strays.all)  // nothing is removed before the queue opens its file
    try queue.restore()
    #expect(try remaining(in: folder) == strays.others)
  }

  // MARK: Helpers

  /// Persists a fresh registry's cache to `url`, runs `body` with its store and what the restore found, and frees
  /// the registry; `true` once `body` ran.
  private func persistCache(
    _ url: URL,
    _ body: (QueryStore, QueryCacheRestore) async throws -> Void
  ) async throws -> Bool {
    let registry = SharedRegistry()
    let store = registry.queries
    let restore = await store.persistCache(QueryCachePersistence(persister: .file(url)))
    try await body(store, restore)
    return true
  }

  /// Leaves, in `folder`, what a killed write of the file `name` leaves (two temporary files), and files that only
  /// look alike: another file's temporary file, one whose name starts like this one's, and a file of the program.
  private func makeStrays(of name: String, in folder: TemporaryFolder) throws -> (all: Set<String>, others: Set<String>)
  {
    let ofThisFile = [".\(name).\(UUID().uuidString).tmp", ".\(name).\(UUID().uuidString).tmp"]
    let others = [
      ".other.json.\(UUID().uuidString).tmp", ".\(name).backup.\(UUID().uuidString).tmp", ".\(name).notes.tmp",
      "\(name).\(UUID().uuidString).tmp",
    ]
    for stray in ofThisFile + others { try Data("half".utf8).write(to: folder.file(stray)) }
    return (Set(ofThisFile + others), Set(others))
  }

  /// The names in `folder`, without the lock files.
  private func remaining(in folder: TemporaryFolder) throws -> Set<String> {
    Set(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).filter { !$0.hasSuffix(".lock") })
  }
}

/// A copy of this process's lock that a child process holds between `fork` and `exec` (as a test's or a server's
/// subprocess does) does not refuse this process its own file: the claim waits for the copy to go.
@Suite(.serialized) struct FileClaimForkCopyTests {
  @Test func aLockHeldOnlyByACopyOfThisProcesssDescriptorIsTakenOnceTheCopyGoes() async throws {
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let url = folder.file("queue.json").standardizedFileURL
    // What a child made between fork and exec holds: the lock file open and locked, with this process's record.
    let copy = open(folder.url.standardizedFileURL.path + "/.queue.json.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o666)
    #expect(copy >= 0)
    #expect(flock(copy, LOCK_EX | LOCK_NB) == 0)
    _ = Data("\(getpid())\n".utf8).withUnsafeBytes { pwrite(copy, $0.baseAddress, $0.count, 0) }
    // The child starts its program as the claim starts waiting: its copy of the descriptor closes.
    let waited = Counter()
    FileClaim.waitingForChild.withLock { hook in
      hook = {
        _ = waited.increment()
        close(copy)
      }
    }
    defer { FileClaim.waitingForChild.withLock { $0 = nil } }
    // The claim waits with a thread sleep between its tries: on a thread of its own, never the cooperative pool's.
    let taken = await onThreadOfItsOwn { () -> Result<Bool, FileClaim.Refusal> in
      do throws(FileClaim.Refusal) { return .success(try FileClaim.take(url) != nil) } catch { return .failure(error) }
    }
    #expect(try taken.get())
    #expect(waited.count == 1)
  }
}
