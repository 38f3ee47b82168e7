public import Foundation

/// A key for a `Codable` value kept in a JSON file.
///
/// ```swift
/// func switchToDarkTheme() async throws {
///   @Shared(.fileStorage(URL(filePath: "/var/lib/app/settings.json"))) var settings = Settings()
///   $settings.withLock { $0.theme = .dark }   // saved shortly after
///   try await $settings.save()                // or now
/// }
/// ```
///
/// - **Loading:** the first holder reads the file. A missing or empty file means "no value": the default is used,
///   and nothing is created until the first change. An unreadable or corrupt file also leaves the default in
///   memory, sets ``Shared/loadError``, and is not touched until the value is changed.
/// - **Saving:** changes are saved at most once per `saveDelay`: a change waits `saveDelay`, then the newest value
///   is saved with every change made meanwhile, and more changes do not put the save off (see
///   ``SharedSaveSchedule/debounced(_:clock:)``); the file always ends with the newest value. Each save writes a new file in the same
///   folder once, with the existing file's permissions (and owner and group, where the process may; without
///   the group's permissions when the group cannot be kept, and never set-user-ID or set-group-ID), syncs it to disk,
///   renames it over the file and syncs the folder: the file always holds one whole document, even if the program
///   is killed mid-save, and a finished save survives a power loss (where the folder may be opened
///   and synced: a folder the process can write but not read is not synced, and the save still succeeds). Writes to one file are serialized. A failed
///   save keeps the value in memory and sets ``Shared/saveError``.
/// - **At exit:** a change still waiting for `saveDelay` is written before the process ends normally (the top-level
///   code returns, or `exit`), and at SIGTERM or SIGINT after ``SharedRegistry/flushOnTermination()``; a SIGKILL
///   loses at most the changes of one save delay. ``SharedRegistry/flush()`` writes every waiting change now.
/// - **Changes from outside:** the file is checked every `pollInterval` (by device, inode, size and modification
///   time); a change made by another program is loaded and every holder sees it within about one interval. A
///   deleted or emptied file brings every holder back to the default; a path that cannot be looked at (no permission
///   on a folder, a loop of links, an I/O error) is not a deletion: it sets ``Shared/loadError`` and keeps the value. A change made in the program after a check
///   began wins over what the check read (even before its save starts), so memory and file always settle on the
///   same value and no change of the program is lost to an older read of the file.
/// - **Symbolic links:** a URL that is a symbolic link (a mounted ConfigMap, a dotfile manager's link) is
///   followed, for checks and for saves; the link stays a link. A loop of links, or a link into a folder that
///   does not exist, fails the save (folders are created only for a path that is not a link).
/// - **Other URLs:** a URL that is not a file URL never crashes: ``Shared/loadError`` and every save report
///   ``FileStorageError/notAFileURL(url:)``.
///
/// Values of file keys are freed after their last holder, iteration and pending save are gone.
public struct FileStorageKey<Value: Codable & Sendable>: SharedKey {
  /// The file.
  public let url: URL
  /// How long a change waits before it is saved (default 0.25 s).
  public let saveDelay: Duration
  /// How often the file is checked for changes made outside the program.
  public let pollInterval: Duration
  let clock: any Clock<Duration>
  let file: FileStore
  /// Runs after a poll read new contents and before it decodes them; lets tests act while a poll is in flight
  /// without blocking a thread.
  var afterPollRead: (@Sendable (Data) async -> Void)?

  /// Creates a key for the JSON file at `url`.
  ///
  /// - Parameters:
  ///   - url: The file (a symbolic link is followed); its folder is created on the first save if it does not
  ///     exist. A URL that is not a file URL is reported as ``FileStorageError/notAFileURL(url:)``.
  ///   - saveDelay: How long a change waits before it is saved (default 0.25 s).
  ///   - pollInterval: How often to look for changes made by other programs.
  ///   - clock: The clock for both; pass a ``ManualClock`` in tests.
  public init(
    url: URL,
    saveDelay: Duration = .milliseconds(250),
    pollInterval: Duration = .seconds(1),
    clock: any Clock<Duration> = ContinuousClock()
  ) {
    precondition(pollInterval > .zero, "fileStorage needs a positive poll interval, not \(pollInterval)")
    self.url = url.isFileURL ? url.standardizedFileURL : url
    self.saveDelay = saveDelay
    self.pollInterval = pollInterval
    self.clock = clock
    self.file = FileStore.forFile(at: self.url)
  }

  /// The identity of the value: the file's path (for a URL that is not a file URL, the whole URL).
  public var id: FileStorageKeyID { FileStorageKeyID(path: url.isFileURL ? url.path : url.absoluteString) }

  /// Saves wait for ``saveDelay``.
  public var saveSchedule: SharedSaveSchedule { .debounced(saveDelay, clock: clock) }

  /// Reads and decodes the file, and resumes `continuation` before returning (a file loads synchronously: the first
  /// holder starts from the file's value): with `nil` when there is no file or it is empty.
  ///
  /// An unreadable or corrupt file, or a URL that is not a file URL, resumes with a ``FileStorageError``: holders
  /// keep the default, and the file is not touched until the value is changed.
  ///
  /// - Parameters:
  ///   - context: The context of the shared value.
  ///   - continuation: Resumed with the decoded value, `nil`, or a ``FileStorageError``.
  public func load(context: SharedKeyContext<Value>, continuation: SharedLoadContinuation<Value>) {
    continuation.resume(with: Result { try read(context: context) })
  }

  /// The file's value; `nil` when there is no file, it is empty, or every holder is gone.
  private func read(context: SharedKeyContext<Value>) throws -> Value? {
    guard let owner = context.persistence else { return nil }
    guard let data = try file.readInitial(for: owner), !data.isEmpty else { return nil }
    return try Self.decode(data, url: url)
  }

  /// Encodes `value` as JSON and writes it to the file atomically.
  ///
  /// - Parameters:
  ///   - value: The value to save.
  ///   - context: The context of the shared value.
  /// - Throws: ``FileStorageError`` when the value cannot be encoded or the file cannot be written.
  public func save(_ value: Value, context: SharedKeyContext<Value>) async throws {
    let data = try encode(value)
    guard let owner = context.persistence else { return }  // Every holder is gone: nothing to save for.
    try await file.write(data, for: owner, sequence: SaveScope.sequence(savingFor: context.valueID))
  }

  private func encode(_ value: Value) throws -> Data {
    do {
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
      return try encoder.encode(value)
    } catch {
      throw FileStorageError.unencodable(url: url, reason: String(describing: error))
    }
  }

  /// Polls the file for changes made outside the program and loads them; a deleted or emptied file brings the
  /// value back to the default.
  ///
  /// What a check read is dropped if the program saved or changed the value since the check began (decided under
  /// the value's lock, where every change takes its number): the file then holds, or will hold, the program's newer
  /// value. If the file was not written since, the next check reads it
  /// again.
  ///
  /// - Parameter context: The context to report changes to.
  /// - Returns: A subscription that stops polling.
  public func subscribe(context: SharedKeyContext<Value>) -> SharedSubscription {
    // A URL that is not a file URL has nothing to watch (its load and saves report why).
    guard url.isFileURL else { return SharedSubscription {} }
    let file = self.file
    let clock = self.clock
    let interval = pollInterval
    let url = self.url
    let valueID = context.valueID
    let afterPollRead = self.afterPollRead
    let task = Task {
      while !Task.isCancelled {
        do {
          try await clock.sleep(for: interval, waitingFor: .filePoll)
        } catch {
          return
        }
        guard let owner = context.persistence, let started = context.storeReadStarted() else { return }
        do {
          let applied: Bool
          let read: FileState
          switch try await file.externalChange(for: owner) {
          case .unchanged:
            continue
          case .removed:
            (applied, read) = (context.resetToDefault(readAt: started), .absent)
          case .contents(let data, let state) where data.isEmpty:
            (applied, read) = (context.resetToDefault(readAt: started), state)
          case .contents(let data, let state):
            await afterPollRead?(data)
            (applied, read) = (context.update(try Self.decode(data, url: url), readAt: started), state)
          }
          // Dropped: read the file again next time, unless this program wrote it since (what it wrote is known).
          if !applied { file.rereadUnlessWritten(since: read, for: owner) }
        } catch {
          context.reportLoadError(error)
        }
      }
    }
    return SharedSubscription {
      task.cancel()
      file.forget(valueID)
    }
  }

  private static func decode(_ data: Data, url: URL) throws -> Value {
    do {
      return try JSONDecoder().decode(Value.self, from: data)
    } catch {
      throw FileStorageError.corrupt(url: url, reason: String(describing: error))
    }
  }
}

extension FileStorageKey: SavesSynchronously {
  /// Encodes `value` and writes it durably on the calling thread, as a save does, without the file's actor: the
  /// flush at exit runs on the exiting thread and may await nothing. A change no newer than one the file already
  /// holds from this value is skipped.
  func saveNow(_ value: Value, sequence: UInt64, context: SharedKeyContext<Value>) throws {
    let data = try encode(value)
    guard let owner = context.persistence else { return }
    try file.writeNow(data, for: owner, sequence: sequence)
  }
}

extension FileStorageKey: CustomStringConvertible {
  /// The key as it reads in code: the file's path, or the whole URL when it is not a file URL.
  public var description: String { ".fileStorage(\(url.isFileURL ? url.path : url.absoluteString))" }
}

extension SharedReaderKey {
  /// A key for a `Codable` value kept in the JSON file at `url`.
  ///
  /// ```swift
  /// func showSettings(settingsURL: URL) {
  ///   @Shared(.fileStorage(settingsURL)) var settings = Settings()
  ///   print(settings.theme)
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - url: The file.
  ///   - saveDelay: How long a change waits before it is saved (default 0.25 s).
  ///   - pollInterval: How often to look for changes made by other programs.
  ///   - clock: The clock for both; pass a ``ManualClock`` in tests.
  /// - Returns: The key.
  public static func fileStorage<Value>(
    _ url: URL,
    saveDelay: Duration = .milliseconds(250),
    pollInterval: Duration = .seconds(1),
    clock: any Clock<Duration> = ContinuousClock()
  ) -> Self where Self == FileStorageKey<Value> {
    FileStorageKey(url: url, saveDelay: saveDelay, pollInterval: pollInterval, clock: clock)
  }
}
