import Foundation
import Reactive
import TestSupport
import Testing

@testable import SharedState

@Suite(.freshRegistry) struct FileStorageKeyTests {
  @Test func aMissingFileUsesTheDefaultAndCreatesNothing() async throws {
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let url = folder.file("settings.json")
    @Shared(.fileStorage(url)) var settings = Settings()
    #expect(settings == Settings())
    #expect($settings.loadError == nil)
    #expect(!FileManager.default.fileExists(atPath: url.path))
  }

  /// A value that read the file and went away without watching it (a value that lost the race to be registered),
  /// or that was written after it stopped watching, leaves nothing behind in the file's store.
  @Test func whatTheFileStoreKnowsOfAValueGoesWithTheValue() async throws {
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let url = folder.file("settings.json").standardizedFileURL
    try JSONEncoder().encode(Settings()).write(to: url)
    let store = FileStore.forFile(at: url)
    do {
      let persistence = Persistence(
        writer: FileStorageKey<Settings>(url: url), box: ReactiveBox(Settings()), defaultValue: Settings())
      persistence.loadInitially()
      #expect(store.knownCount == 1)
    }
    #expect(store.knownCount == 0)
  }

  @Test func aKeyDescribesAURLThatIsNotAFileInFull() {
    let key = FileStorageKey<Settings>(url: URL(string: "https://example.com/settings.json")!)
    #expect(key.description == ".fileStorage(https://example.com/settings.json)")
  }

  @Test func valuesSurviveARestart() async throws {
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let url = folder.file("settings.json")
    @Shared(.fileStorage(url)) var settings = Settings()
    $settings.withLock { $0.volume = 9 }
    try await $settings.save()
    let restarted = inOtherRegistry { Shared(wrappedValue: Settings(), .fileStorage(url)) }
    #expect(restarted.wrappedValue.volume == 9)
  }

  @Test func rapidChangesAreSavedOnceAfterTheDelay() async throws {
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let url = folder.file("settings.json")
    let clock = ManualClock()
    @Shared(.fileStorage(url, saveDelay: .seconds(1), clock: clock)) var settings = Settings()
    let store = FileStore.forFile(at: url.standardizedFileURL)
    await clock.waitForSleepers(1)  // the poll for outside changes
    for volume in 1...100 { $settings.withLock { $0.volume = volume } }
    await clock.waitForSleepers(2)  // and the save's delay
    clock.advance(by: .milliseconds(999))
    #expect(store.writeCount == 0)
    #expect(!FileManager.default.fileExists(atPath: url.path))
    clock.advance(by: .milliseconds(1))
    try await $settings.save()
    #expect(store.writeCount == 1)
    let saved = try JSONDecoder().decode(Settings.self, from: Data(contentsOf: url))
    #expect(saved.volume == 100)
  }

  @Test func saveWritesAtOnce() async throws {
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let url = folder.file("settings.json")
    let clock = ManualClock()
    @Shared(.fileStorage(url, saveDelay: .seconds(60), clock: clock)) var settings = Settings()
    $settings.withLock { $0.theme = "dark" }
    try await $settings.save()
    let saved = try JSONDecoder().decode(Settings.self, from: Data(contentsOf: url))
    #expect(saved.theme == "dark")
    #expect($settings.saveError == nil)
  }

  @Test func aChangeMadeByAnotherProgramIsPickedUp() async throws {
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let url = folder.file("settings.json")
    let clock = ManualClock()
    try JSONEncoder().encode(Settings(volume: 1)).write(to: url)
    @Shared(.fileStorage(url, pollInterval: .seconds(1), clock: clock)) var settings = Settings()
    #expect(settings.volume == 1)
    var values = $settings.values.makeAsyncIterator()
    #expect(await values.next()?.volume == 1)
    try JSONEncoder().encode(Settings(volume: 7, theme: "dark")).write(to: url, options: .atomic)
    await clock.waitForSleepers(1)
    clock.advance(by: .seconds(1))
    #expect(await values.next() == Settings(volume: 7, theme: "dark"))
    #expect(settings.volume == 7)
  }

  @Test func aCorruptFileIsReportedAndLeftIntactUntilTheUserWrites() async throws {
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let url = folder.file("settings.json")
    let clock = ManualClock()
    let corrupt = Data("{ not json".utf8)
    try corrupt.write(to: url)
    @Shared(.fileStorage(url, saveDelay: .seconds(1), clock: clock)) var settings = Settings()
    #expect(settings == Settings())
    let error = try #require($settings.loadError as? FileStorageError)
    guard case .corrupt(let reportedURL, _) = error else {
      Issue.record("expected .corrupt, got \(error)")
      return
    }
    #expect(reportedURL == url.standardizedFileURL)
    #expect(error.description.contains(url.lastPathComponent))
    await clock.waitForSleepers(1)
    clock.advance(by: .seconds(5))
    #expect(try Data(contentsOf: url) == corrupt)
    $settings.withLock { $0.volume = 2 }
    try await $settings.save()
    let saved = try JSONDecoder().decode(Settings.self, from: Data(contentsOf: url))
    #expect(saved.volume == 2)
  }

  @Test func aFolderThatCannotBeWrittenKeepsTheValueAndReportsWhy() async throws {
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    // A regular file where the folder should be: no user, not even root, can create a file under it.
    let blocker = folder.file("not-a-folder")
    try Data("x".utf8).write(to: blocker)
    let url = blocker.appendingPathComponent("settings.json")
    @Shared(.fileStorage(url)) var settings = Settings()
    $settings.withLock { $0.volume = 3 }
    await #expect(throws: FileStorageError.self) { try await $settings.save() }
    #expect(settings.volume == 3)
    let error = $settings.saveError as? FileStorageError
    guard case .unwritable(let reportedURL, _) = error else {
      Issue.record("expected .unwritable, got \(String(describing: error))")
      return
    }
    #expect(reportedURL == url.standardizedFileURL)
  }

  @Test func aFileValueIsFreedAfterItsLastHolder() async throws {
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let url = folder.file("settings.json")
    let registry = SharedRegistry.current
    weak var root: AnyObject?
    do {
      @Shared(.fileStorage(url)) var settings = Settings()
      root = $settings.rootObject
      #expect(registry.count == 1)
    }
    #expect(root == nil)
    #expect(registry.count == 0)
  }
}
