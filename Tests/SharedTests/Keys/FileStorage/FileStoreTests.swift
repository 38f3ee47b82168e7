import Dispatch
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import SharedState

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Lets one poll for outside changes run: waits until the poll sleeps, moves the clock, and waits until it sleeps
/// again (its read, decoding and update are then done). Only for keys whose saves do not wait on `clock`.
private func pollOnce(_ clock: ManualClock, interval: Duration = .seconds(1)) async {
  await clock.waitForSleepers(1)
  clock.advance(by: interval)
  await clock.waitForSleepers(1)
}

/// Writes `settings` to `url` the way another program would: a new file renamed over the old one.
private func writeFromOutside(_ settings: Settings, to url: URL) throws {
  try JSONEncoder().encode(settings).write(to: url, options: .atomic)
}

private func decodedSettings(at url: URL) throws -> Settings {
  try JSONDecoder().decode(Settings.self, from: Data(contentsOf: url))
}

private func permissions(of url: URL) throws -> Int {
  let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
  return (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
}

/// A gauge, read by polls that a test holds between reading and decoding.
struct Gauge: Codable, Sendable, Equatable {
  var level: Int
}

@Suite(.freshRegistry) struct FileStoreTests {
  // MARK: Mode and owner

  @Test(arguments: [0o600, 0o640])
  func savingKeepsTheFilesMode(mode: Int) async throws {
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let url = folder.file("token.json")
    try JSONEncoder().encode(Settings()).write(to: url)
    try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: url.path)
    @Shared(.fileStorage(url, saveDelay: .zero)) var settings = Settings()
    $settings.withLock { $0.volume = 1 }
    try await $settings.save()
    #expect(try decodedSettings(at: url).volume == 1)
    #expect(try permissions(of: url) == mode)
  }

  // Only a process running as root may give a file to another user: skipped (not failed) otherwise.
  @Test(.enabled(if: getuid() == 0, "only a process running as root may give a file to another user"))
  func savingKeepsTheFilesOwnerWhereTheProcessMay() async throws {
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let url = folder.file("owned.json")
    try JSONEncoder().encode(Settings()).write(to: url)
    #expect(chown(url.path, 4_321, 4_322) == 0)
    @Shared(.fileStorage(url, saveDelay: .zero)) var settings = Settings()
    $settings.withLock { $0.volume = 2 }
    try await $settings.save()
    let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
    #expect((attributes[.ownerAccountID] as? NSNumber)?.intValue == 4_321)
    #expect((attributes[.groupOwnerAccountID] as? NSNumber)?.intValue == 4_322)
  }

  /// A process that may not keep the file's group (here `nobody`, saving a `root:4322` file) gives the new file no
  /// group permissions: they would go to its own group instead. Set-user-ID and set-group-ID bits are never copied.
  @Test(
    .enabled(
      if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")
        && fileProbeExecutable() != nil,
      "needs root to make a file another user cannot give back, setpriv to save as that user, and the probe"))
  func aGroupThatCannotBeKeptGetsNoPermissions() async throws {
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: folder.url.path)
    let url = folder.file("shared-secret.json")
    try JSONEncoder().encode(Settings()).write(to: url)
    #expect(chown(url.path, 0, 4_322) == 0)
    #expect(chmod(url.path, 0o2640) == 0)
    let probe = try #require(fileProbeExecutable())
    let status = try await runToEnd(
      URL(fileURLWithPath: "/usr/bin/setpriv"),
      ["--reuid=65534", "--regid=65534", "--clear-groups", probe.path, "save", url.path, "7"])
    #expect(status == 0)
    let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
    #expect((attributes[.ownerAccountID] as? NSNumber)?.intValue == 65_534)
    #expect((attributes[.groupOwnerAccountID] as? NSNumber)?.intValue != 4_322)
    #expect(try permissions(of: url) == 0o600)
  }

  /// A folder this program may write into but not open (mode 0300) cannot be synced: the save still succeeded,
  /// its rename is done, and it is not reported as failed.
  @Test(
    .enabled(
      if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")
        && fileProbeExecutable() != nil,
      "needs root to prepare a folder for another user, setpriv to save as that user, and the probe"))
  func aFolderThatCannotBeOpenedDoesNotFailASave() async throws {
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: folder.url.path)
    let inner = folder.file("write-only")
    try FileManager.default.createDirectory(at: inner, withIntermediateDirectories: true)
    #expect(chown(inner.path, 65_534, 65_534) == 0)
    #expect(chmod(inner.path, 0o300) == 0)
    let url = inner.appendingPathComponent("settings.json")
    let probe = try #require(fileProbeExecutable())
    let status = try await runToEnd(
      URL(fileURLWithPath: "/usr/bin/setpriv"),
      ["--reuid=65534", "--regid=65534", "--clear-groups", probe.path, "save", url.path, "7"])
    #expect(status == 0)
    let saved = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any]
    #expect(saved?["counter"] as? Int == 7)
  }

  @Test func aNewFileIsCreatedLikeAnyOrdinaryFile() async throws {
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let reference = folder.file("reference")
    let descriptor = open(reference.path, O_CREAT | O_WRONLY, 0o666)
    #expect(descriptor >= 0)
    close(descriptor)
    let url = folder.file("new.json")
    @Shared(.fileStorage(url, saveDelay: .zero)) var settings = Settings()
    $settings.withLock { $0.volume = 3 }
    try await $settings.save()
    #expect(try permissions(of: url) == permissions(of: reference))
  }

  // MARK: A poll against a local save

  @Test func aPollThatReadAnOutsideChangeDoesNotUndoALaterLocalSave() async throws {
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let url = folder.file("gauge.json")
    let clock = ManualClock()
    // The poll is held, without blocking a thread, after it read 7003 and before it decodes and applies it.
    let started = Counter()
    let release = Gate()
    var key = FileStorageKey<Gauge>(url: url, saveDelay: .zero, pollInterval: .seconds(1), clock: clock)
    key.afterPollRead = { data in
      guard (try? JSONDecoder().decode(Gauge.self, from: data))?.level == 7_003 else { return }
      started.increment()
      await release.wait()
    }
    @Shared(key) var gauge = Gauge(level: 0)
    try JSONEncoder().encode(Gauge(level: 7_003)).write(to: url, options: .atomic)
    await clock.waitForSleepers(1)
    clock.advance(by: .seconds(1))
    await waitUntil { started.count > 0 }
    $gauge.withLock { $0.level = 100 }
    try await $gauge.save()
    release.open()
    await clock.waitForSleepers(1)  // The poll finished.
    let onDisk = try JSONDecoder().decode(Gauge.self, from: Data(contentsOf: url))
    #expect(gauge.level == 100)
    #expect(onDisk.level == 100)
    let notifications = Counter()
    let token = $gauge.observe { _ in notifications.increment() }
    defer { token.cancel() }
    await pollOnce(clock)  // A later poll agrees too, and does not load the program's own write back.
    #expect(gauge == (try JSONDecoder().decode(Gauge.self, from: Data(contentsOf: url))))
    #expect(notifications.count == 0)
  }

  // MARK: Symbolic links

  @Test func aSymlinkedFileSeesOutsideChangesAndStaysALink() async throws {
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let target = folder.file("real.json")
    let link = folder.file("settings.json")
    try writeFromOutside(Settings(volume: 1), to: target)
    try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: "real.json")
    let clock = ManualClock()
    @Shared(.fileStorage(link, saveDelay: .zero, pollInterval: .seconds(1), clock: clock)) var settings = Settings()
    #expect(settings.volume == 1)
    try writeFromOutside(Settings(volume: 7), to: target)
    await pollOnce(clock)
    #expect(settings.volume == 7)
    $settings.withLock { $0.volume = 9 }
    try await $settings.save()
    let type = try FileManager.default.attributesOfItem(atPath: link.path)[.type] as? FileAttributeType
    #expect(type == .typeSymbolicLink)
    #expect(try decodedSettings(at: target).volume == 9)
  }

  /// A loop of links cannot be written through: the save fails with an error and every link stays a link.
  @Test func aLoopOfLinksFailsTheSaveAndLeavesTheLinks() async throws {
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let link = folder.file("settings.json")
    let other = folder.file("other.json")
    try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: "other.json")
    try FileManager.default.createSymbolicLink(atPath: other.path, withDestinationPath: "settings.json")
    @Shared(.fileStorage(link, saveDelay: .zero)) var settings = Settings()
    $settings.withLock { $0.volume = 9 }
    await #expect(throws: FileStorageError.self) { try await $settings.save() }
    for path in [link.path, other.path] {
      let type = try FileManager.default.attributesOfItem(atPath: path)[.type] as? FileAttributeType
      #expect(type == .typeSymbolicLink, "\(path)")
    }
  }

  /// A link whose target's folder does not exist is reported, not followed by creating folders where it points.
  @Test func aLinkIntoAMissingFolderFailsTheSaveAndCreatesNothing() async throws {
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let link = folder.file("settings.json")
    try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: "missing/real.json")
    @Shared(.fileStorage(link, saveDelay: .zero)) var settings = Settings()
    $settings.withLock { $0.volume = 9 }
    await #expect(throws: FileStorageError.self) { try await $settings.save() }
    #expect(!FileManager.default.fileExists(atPath: folder.file("missing").path))
  }

  @Test func aLinkedFolderThatIsSwappedIsSeenAsAChange() async throws {
    // The layout of a mounted ConfigMap: the file links into `..data`, a link swapped to a new folder on update.
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let first = folder.file("..2026_1")
    let second = folder.file("..2026_2")
    try FileManager.default.createDirectory(at: first, withIntermediateDirectories: true)
    try FileManager.default.createDirectory(at: second, withIntermediateDirectories: true)
    try writeFromOutside(Settings(volume: 1), to: first.appendingPathComponent("settings.json"))
    try writeFromOutside(Settings(volume: 2), to: second.appendingPathComponent("settings.json"))
    try FileManager.default.createSymbolicLink(atPath: folder.file("..data").path, withDestinationPath: "..2026_1")
    let link = folder.file("settings.json")
    try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: "..data/settings.json")
    let clock = ManualClock()
    @Shared(.fileStorage(link, saveDelay: .zero, pollInterval: .seconds(1), clock: clock)) var settings = Settings()
    #expect(settings.volume == 1)
    try FileManager.default.createSymbolicLink(atPath: folder.file("..data_new").path, withDestinationPath: "..2026_2")
    #expect(rename(folder.file("..data_new").path, folder.file("..data").path) == 0)
    await pollOnce(clock)
    #expect(settings.volume == 2)
  }

  // MARK: Durability

  // strace traces the probe's calls, and the FileFaultProbe helper is built with the tests: skipped (not failed)
  // where either is missing.
  @Test(
    .enabled(
      if: FileManager.default.isExecutableFile(atPath: "/usr/bin/strace") && fileProbeExecutable() != nil,
      "needs strace and the FileFaultProbe helper"))
  func aSaveWritesOnceSyncsTheFileRenamesItAndSyncsTheFolder() async throws {
    let probe = try #require(fileProbeExecutable())
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let url = folder.file("durable.json")
    let (status, calls) = try await TracedCalls.trace(probe, ["save", url.path, "42"], file: url, in: folder)
    #expect(status == 0)
    #expect(calls.isOneDurableWrite, "\(calls.lines)")
    #expect(try JSONDecoder().decode(ProbeValue.self, from: Data(contentsOf: url)).counter == 42)
  }

  /// The write a program makes as it exits, within its save delay, takes the same durable path as a save.
  @Test(
    .enabled(
      if: FileManager.default.isExecutableFile(atPath: "/usr/bin/strace") && exitProbeExecutable() != nil,
      "needs strace and the ExitProbe helper"))
  func aWriteAtExitWritesOnceSyncsTheFileRenamesItAndSyncsTheFolder() async throws {
    let probe = try #require(exitProbeExecutable())
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let url = folder.file("counter.json")
    let (status, calls) = try await TracedCalls.trace(probe, ["return", url.path, "42"], file: url, in: folder)
    #expect(status == 0)
    #expect(calls.isOneDurableWrite, "\(calls.lines)")
    #expect(try JSONDecoder().decode(Int.self, from: Data(contentsOf: url)) == 42)
  }

  /// The first save into folders that do not exist yet syncs the folder holding each one it created, so they, and
  /// the file in them, survive a power loss.
  @Test(
    .enabled(
      if: FileManager.default.isExecutableFile(atPath: "/usr/bin/strace") && fileProbeExecutable() != nil,
      "needs strace and the FileFaultProbe helper"))
  func aSaveIntoNewFoldersSyncsEachFolderItCreated() async throws {
    let strace = URL(fileURLWithPath: "/usr/bin/strace")
    let probe = try #require(fileProbeExecutable())
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let base = folder.url.resolvingSymlinksInPath().path
    let url = URL(fileURLWithPath: "\(base)/new/deeper/durable.json")
    let traces = folder.file("traces")
    try FileManager.default.createDirectory(at: traces, withIntermediateDirectories: true)
    let status = try await runToEnd(
      strace,
      [
        "-ff", "-qq", "-o", traces.appendingPathComponent("thread").path,
        "-e", "trace=openat,write,pwrite64,fsync,fdatasync,rename,renameat,renameat2",
        probe.path, "save", url.path, "42",
      ])
    #expect(status == 0)
    let logs = try FileManager.default.contentsOfDirectory(at: traces, includingPropertiesForKeys: nil)
    let calls = try TracedCalls(logs.map { try String(decoding: Data(contentsOf: $0), as: UTF8.self) }, file: url)
    #expect(calls.syncedFolders == [base, "\(base)/new", "\(base)/new/deeper"], "\(calls.lines)")
  }

  // MARK: What absence means

  @Test func aDeletedFileBringsHoldersBackToTheDefault() async throws {
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let url = folder.file("settings.json")
    let clock = ManualClock()
    try writeFromOutside(Settings(volume: 3, theme: "dark"), to: url)
    @Shared(.fileStorage(url, saveDelay: .zero, pollInterval: .seconds(1), clock: clock)) var settings = Settings()
    #expect(settings.volume == 3)
    try FileManager.default.removeItem(at: url)
    await pollOnce(clock)
    #expect(settings == Settings())
    #expect($settings.loadError == nil)
    #expect(!FileManager.default.fileExists(atPath: url.path))
  }

  /// Only a missing file (or a missing folder on its path) means "no value": a path that cannot be looked at (here a
  /// loop of links, ELOOP) is an unreadable file, reported once, and the value stays.
  @Test func aFileThatCannotBeLookedAtIsAnErrorNotADeletion() async throws {
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let url = folder.file("settings.json")
    let clock = ManualClock()
    try writeFromOutside(Settings(volume: 3, theme: "dark"), to: url)
    @Shared(.fileStorage(url, saveDelay: .zero, pollInterval: .seconds(1), clock: clock)) var settings = Settings()
    #expect(settings.volume == 3)
    try FileManager.default.removeItem(at: url)
    try FileManager.default.createSymbolicLink(atPath: url.path, withDestinationPath: "other.json")
    try FileManager.default.createSymbolicLink(
      atPath: folder.file("other.json").path, withDestinationPath: "settings.json")
    await pollOnce(clock)
    #expect(settings.volume == 3)
    #expect($settings.loadError is FileStorageError)
    await pollOnce(clock)
    #expect(settings.volume == 3)
  }

  @Test func aFirstHolderOfAFileThatCannotBeLookedAtGetsALoadError() throws {
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let url = folder.file("looped.json")
    try FileManager.default.createSymbolicLink(atPath: url.path, withDestinationPath: "looped.json")
    @Shared(.fileStorage(url, saveDelay: .zero)) var settings = Settings()
    #expect(settings == Settings())
    #expect($settings.loadError is FileStorageError)
  }

  @Test func anEmptyFileMeansNoValue() async throws {
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let url = folder.file("settings.json")
    try Data().write(to: url)
    @Shared(.fileStorage(url, saveDelay: .zero)) var settings = Settings()
    #expect(settings == Settings())
    #expect($settings.loadError == nil)
  }

  @Test func aFileEmptiedFromOutsideBringsHoldersBackToTheDefault() async throws {
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let url = folder.file("settings.json")
    let clock = ManualClock()
    try writeFromOutside(Settings(volume: 4), to: url)
    @Shared(.fileStorage(url, saveDelay: .zero, pollInterval: .seconds(1), clock: clock)) var settings = Settings()
    #expect(settings.volume == 4)
    try Data().write(to: url, options: .atomic)
    await pollOnce(clock)
    #expect(settings == Settings())
    #expect($settings.loadError == nil)
  }

  @Test func aURLThatIsNotAFileFailsWithANamedError() async throws {
    let url = try #require(URL(string: "https://example.com/settings.json"))
    @Shared(.fileStorage(url, saveDelay: .zero)) var settings = Settings()
    #expect(settings == Settings())
    #expect($settings.loadError as? FileStorageError == .notAFileURL(url: url))
    $settings.withLock { $0.volume = 2 }
    await #expect(throws: FileStorageError.notAFileURL(url: url)) { try await $settings.save() }
    #expect(settings.volume == 2)
    #expect(FileStorageError.notAFileURL(url: url).description.contains("https://example.com/settings.json"))
  }

  /// A numbered removal is ordered with the writes of its value, as a write is: a write of an older change that
  /// comes after it (one under way on the pool as the exit removes the file) does not bring the file back.
  @Test func aRemovalIsOrderedWithTheWritesOfItsValue() async throws {
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let url = folder.file("cache.bin")
    let store = FileStore.forFile(at: url.standardizedFileURL)
    let owner = DeinitAction {}
    try store.writeNow(Data("one".utf8), for: owner, sequence: 1)
    try store.removeNow(for: owner, sequence: 3)
    #expect(!FileManager.default.fileExists(atPath: url.path))
    try await store.write(Data("two".utf8), for: owner, sequence: 2)
    #expect(!FileManager.default.fileExists(atPath: url.path))
    try await store.remove(for: owner, sequence: 2)  // older than the removal: nothing to do
    try await store.write(Data("four".utf8), for: owner, sequence: 4)
    try await store.remove(for: owner, sequence: 3)  // older than the write of 4: skipped
    #expect(try Data(contentsOf: url) == Data("four".utf8))
    try await store.remove(for: owner)  // unnumbered: always removes
    #expect(!FileManager.default.fileExists(atPath: url.path))
  }
}

/// The document the probe writes.
private struct ProbeValue: Codable {
  var writer: String
  var counter: Int
}

/// The probe executable, built next to this test bundle.
func fileProbeExecutable() -> URL? {
  let bundle = URL(fileURLWithPath: Bundle.main.executablePath ?? CommandLine.arguments[0])
  let candidate = bundle.deletingLastPathComponent().appendingPathComponent("FileFaultProbe")
  return FileManager.default.isExecutableFile(atPath: candidate.path) ? candidate : nil
}

/// Runs a program to its end without holding a thread of the shared pool, and returns its exit status.
func runToEnd(_ executable: URL, _ arguments: [String]) async throws -> Int32 {
  let process = Process()
  process.executableURL = executable
  process.arguments = arguments
  process.standardOutput = FileHandle.nullDevice
  process.standardError = FileHandle.nullDevice
  return try await withCheckedThrowingContinuation { continuation in
    process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
    do {
      try process.run()
    } catch {
      process.terminationHandler = nil
      continuation.resume(throwing: error)
    }
  }
}

/// The calls `strace -f` recorded for one save of `file`, by the file descriptor each one used.
struct TracedCalls {
  let lines: [String]
  var temporaryOpens = 0
  var writesToTemporary = 0
  var syncsOfTemporary = 0
  var renames = 0
  var syncsOfFolder = 0
  /// Every folder synced, in order.
  var syncedFolders: [String] = []
  /// The save's steps in the order they ran.
  var order: [String] = []

  /// Runs `probe` with `arguments` under `strace` (one log per thread, `-ff`, so no call is split by another
  /// thread's), logging into a folder made in `folder`, and reads the calls it made on `file`.
  ///
  /// - Returns: The probe's exit status and its calls.
  static func trace(
    _ probe: URL,
    _ arguments: [String],
    file: URL,
    in folder: TemporaryFolder
  ) async throws -> (status: Int32, calls: TracedCalls) {
    let traces = folder.file("traces")
    try FileManager.default.createDirectory(at: traces, withIntermediateDirectories: true)
    let status = try await runToEnd(
      URL(fileURLWithPath: "/usr/bin/strace"),
      [
        "-ff", "-qq", "-o", traces.appendingPathComponent("thread").path,
        "-e", "trace=openat,write,pwrite64,fsync,fdatasync,rename,renameat,renameat2", probe.path,
      ] + arguments)
    let logs = try FileManager.default.contentsOfDirectory(at: traces, includingPropertiesForKeys: nil)
    let calls = try TracedCalls(logs.map { try String(decoding: Data(contentsOf: $0), as: UTF8.self) }, file: file)
    return (status, calls)
  }

  /// Whether the calls are one durable write: a temporary file opened, written and synced once, renamed over the
  /// file, and the folder synced, in that order.
  var isOneDurableWrite: Bool {
    temporaryOpens == 1 && writesToTemporary == 1 && syncsOfTemporary == 1 && renames == 1 && syncsOfFolder == 1
      && order == ["write", "fsync-file", "rename", "fsync-folder"]
  }

  init(_ logs: [String], file: URL) throws {
    let folder = file.deletingLastPathComponent().path
    let temporaryPrefix = "\(folder)/.\(file.lastPathComponent)."
    // The thread that saved: the one whose log opens the temporary file.
    lines = logs.filter { $0.contains(temporaryPrefix) }.flatMap { $0.split(separator: "\n").map(String.init) }
    var temporaryDescriptors: Set<String> = []
    var folderDescriptors: Set<String> = []
    var directories: [String: String] = [:]
    for call in lines {
      let result = call.components(separatedBy: " = ").last?.split(separator: " ").first.map(String.init) ?? ""
      func descriptor() -> String? {
        guard let open = call.firstIndex(of: "("),
          let comma = call[open...].firstIndex(where: { $0 == "," || $0 == ")" || $0 == " " })
        else { return nil }
        return String(call[call.index(after: open)..<comma])
      }
      if call.hasPrefix("openat(") {
        // A descriptor number is reused once closed: it now names what this call opened.
        temporaryDescriptors.remove(result)
        folderDescriptors.remove(result)
        directories[result] = nil
        if call.contains("O_DIRECTORY"), let start = call.firstIndex(of: "\""),
          let end = call[call.index(after: start)...].firstIndex(of: "\"")
        {
          directories[result] = String(call[call.index(after: start)..<end])
        }
      }
      // The lock file beside the file (taken when a store or queue opens it, see FileClaim) is not a write of it.
      if call.hasPrefix("openat("), call.contains("\"\(temporaryPrefix)"), !call.contains("\(temporaryPrefix)lock\"") {
        temporaryOpens += 1
        temporaryDescriptors.insert(result)
      } else if call.hasPrefix("openat("), call.contains("\"\(folder)\""), call.contains("O_DIRECTORY") {
        folderDescriptors.insert(result)
      } else if call.hasPrefix("write(") || call.hasPrefix("pwrite64("), let fd = descriptor(),
        temporaryDescriptors.contains(fd)
      {
        writesToTemporary += 1
        order.append("write")
      } else if call.hasPrefix("fsync(") || call.hasPrefix("fdatasync("), let fd = descriptor() {
        if let directory = directories[fd] { syncedFolders.append(directory) }
        if temporaryDescriptors.contains(fd) {
          syncsOfTemporary += 1
          order.append("fsync-file")
        } else if folderDescriptors.contains(fd) {
          syncsOfFolder += 1
          order.append("fsync-folder")
        }
      } else if call.hasPrefix("rename"), call.contains(temporaryPrefix), call.contains("\"\(file.path)\"") {
        renames += 1
        order.append("rename")
      }
    }
  }
}
