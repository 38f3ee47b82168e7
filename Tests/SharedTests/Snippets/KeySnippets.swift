// The snippets about keys and their stores, as the DocC article "Storing values" (StoringValues.md) and the
// documentation comments of the key types show them, so that they compile. Stand-ins for an app's types and stores
// come first in each namespace.
import Foundation
import SharedState
import Testing

/// StoringValues.md.
enum StoringValuesArticle {
  struct Settings: Codable, Sendable {
    var theme = "light"
  }

  struct Config: Sendable {
    var banner = ""
  }

  struct Profile: Sendable {
    var name = ""
  }

  protocol ProfileAPI: Sendable {
    func profile(_ userID: Int) async throws -> Profile
    func update(_ profile: Profile, for userID: Int) async throws
  }

  struct ConfigCache: Sendable {
    func config(named name: String) -> Config? { nil }
  }

  struct RemoteConfig: Sendable {
    func updates(named name: String) -> AsyncStream<Config> { AsyncStream { $0.finish() } }
  }

  static let cache = ConfigCache()
  static let remote = RemoteConfig()

  // MARK: Files

  struct SettingsScreen {
    @Shared(.fileStorage(URL(filePath: "/var/lib/app/settings.json"))) var settings = Settings()
  }

  // MARK: Your own store

  struct RemoteConfigKey: SharedReaderKey {
    let name: String
    var id: String { name }

    func load(context: SharedKeyContext<Config>, continuation: SharedLoadContinuation<Config>) {
      continuation.resume(returning: cache.config(named: name))  // at once: the first holder gets it
    }

    func subscribe(context: SharedKeyContext<Config>) -> SharedSubscription {
      let task = Task {
        for await config in remote.updates(named: name) { context.update(config) }
      }
      return SharedSubscription { task.cancel() }
    }
  }

  struct ConfigBanner {
    @SharedReader(RemoteConfigKey(name: "banner")) var config = Config()
  }

  // MARK: Keys that load asynchronously

  struct RemoteProfileKey: SharedKey {
    let userID: Int
    let api: any ProfileAPI
    var id: Int { userID }

    func load(context: SharedKeyContext<Profile>, continuation: SharedLoadContinuation<Profile>) {
      Task {
        do {
          continuation.resume(returning: try await api.profile(userID))
        } catch {
          continuation.resume(throwing: error)
        }
      }
    }

    func save(_ value: Profile, context: SharedKeyContext<Profile>) async throws {
      try await api.update(value, for: userID)
    }
  }

  func showProfile(api: any ProfileAPI) async throws {
    @Shared(RemoteProfileKey(userID: 42, api: api)) var profile = Profile()
    if $profile.isLoading { print("loading…") }
    try await $profile.load()  // loads again, and waits until the value is in memory
    if let error = $profile.loadError { print("profile unavailable:", error) }
  }
}

/// The documentation comments of the file and in-memory keys.
enum StoredKeyCommentSnippets {
  enum Theme: String, Codable, Sendable {
    case light, dark
  }

  struct Settings: Codable, Sendable {
    var theme = Theme.light
  }

  enum Tab: Sendable {
    case home, search
  }

  // FileStorageKey
  func switchToDarkTheme() async throws {
    @Shared(.fileStorage(URL(filePath: "/var/lib/app/settings.json"))) var settings = Settings()
    $settings.withLock { $0.theme = .dark }  // saved shortly after
    try await $settings.save()  // or now
  }

  // SharedReaderKey.fileStorage(_:saveDelay:pollInterval:clock:)
  func showSettings(settingsURL: URL) {
    @Shared(.fileStorage(settingsURL)) var settings = Settings()
    print(settings.theme)
  }

  // FileStorageKeyID
  func printPath(settingsURL: URL) {
    let path = FileStorageKey<Settings>(url: settingsURL).id.path
    print(path)
  }

  // InMemoryKey
  struct TabBar {
    @Shared(.inMemory("selectedTab")) var selectedTab = Tab.home
  }

  // InMemoryKey.init(_:)
  func makeKey() -> InMemoryKey<Int> {
    let key = InMemoryKey<Int>("counter")
    return key
  }

  // SharedReaderKey.inMemory(_:)
  struct CounterView {
    @Shared(.inMemory("counter")) var counter = 0
  }
}

/// The documentation comments of SharedKey.
enum SharedKeyCommentSnippets {
  struct Profile: Sendable {
    var name = ""
  }

  struct ProfileClient: Sendable {
    func profile(_ userID: Int) async throws -> Profile { Profile() }
    func update(_ profile: Profile, for userID: Int) async throws {}
  }

  struct UserDefaultsKey: SharedKey {
    let name: String
    var id: String { name }

    func load(context: SharedKeyContext<String>, continuation: SharedLoadContinuation<String>) {
      continuation.resume(returning: UserDefaults.standard.string(forKey: name))
    }

    func save(_ value: String, context: SharedKeyContext<String>) async throws {
      UserDefaults.standard.set(value, forKey: name)
    }
  }

  struct RemoteProfileKey: SharedKey {
    let client: ProfileClient
    let userID: Int
    var id: Int { userID }

    func load(context: SharedKeyContext<Profile>, continuation: SharedLoadContinuation<Profile>) {
      Task {
        do {
          continuation.resume(returning: try await client.profile(userID))
        } catch {
          continuation.resume(throwing: error)
        }
      }
    }

    func save(_ value: Profile, context: SharedKeyContext<Profile>) async throws {
      try await client.update(value, for: userID)
    }
  }

  func showProfile(client: ProfileClient) async throws {
    @Shared(RemoteProfileKey(client: client, userID: 42)) var profile = Profile()
    if $profile.isLoading { print("loading…") }
    try await $profile.load()  // waits for a fresh load
    print(profile)
  }
}

/// The documentation comments of SharedReaderKey, its context, continuation, subscription, lifetime and save
/// schedule.
enum ReaderKeyCommentSnippets {
  struct Config: Sendable {
    var banner = ""
  }

  struct Flags: Sendable {
    var darkMode = false
  }

  struct Session: Sendable {
    var token = ""
  }

  enum RemoteError: Error {
    case offline
  }

  struct RemoteConfig: Sendable {
    struct Entry: Sendable {
      var config: Config?
    }

    func config(named name: String) async throws -> Config { Config() }
    func updates(named name: String) -> AsyncStream<Config> { AsyncStream { $0.finish() } }
    func entries(named name: String) -> AsyncStream<Entry> { AsyncStream { $0.finish() } }
  }

  struct RemoteEntries: Sendable {
    let remote: RemoteConfig

    func updates(named name: String) -> AsyncStream<RemoteConfig.Entry> { remote.entries(named: name) }
  }

  struct ConfigCache: Sendable {
    subscript(name: String) -> Config? { nil }
    func read(_ name: String) throws -> Config? { nil }
  }

  struct FlagsClient: Sendable {
    func fetchFlags() async throws -> Flags { Flags() }
    func flagUpdates() -> AsyncStream<Flags> { AsyncStream { $0.finish() } }
  }

  // SharedReaderKey, a store on this machine
  struct EnvironmentKey: SharedReaderKey {
    let name: String
    var id: String { name }

    func load(context: SharedKeyContext<String>, continuation: SharedLoadContinuation<String>) {
      continuation.resume(returning: ProcessInfo.processInfo.environment[name])
    }
  }

  func printHome() {
    @SharedReader(EnvironmentKey(name: "HOME")) var home = "/"
    print(home)
  }

  // SharedReaderKey, a store on another machine
  struct RemoteFlagsKey: SharedReaderKey {
    let client: FlagsClient
    var id: String { "flags" }

    func load(context: SharedKeyContext<Flags>, continuation: SharedLoadContinuation<Flags>) {
      Task {
        do {
          continuation.resume(returning: try await client.fetchFlags())
        } catch {
          continuation.resume(throwing: error)
        }
      }
    }

    func subscribe(context: SharedKeyContext<Flags>) -> SharedSubscription {
      let task = Task {
        for await flags in client.flagUpdates() { context.update(flags) }
      }
      return SharedSubscription { task.cancel() }
    }
  }

  // SharedReaderKey.load(context:continuation:), SharedLoadContinuation, SharedReaderKey.subscribe(context:),
  // SharedKeyContext and SharedSubscription
  struct RemoteConfigKey: SharedReaderKey {
    let name: String
    let remote: RemoteConfig
    var id: String { name }

    func load(context: SharedKeyContext<Config>, continuation: SharedLoadContinuation<Config>) {
      Task {
        do {
          continuation.resume(returning: try await remote.config(named: name))
        } catch {
          continuation.resume(throwing: error)
        }
      }
    }

    func subscribe(context: SharedKeyContext<Config>) -> SharedSubscription {
      let task = Task { for await config in remote.updates(named: name) { context.update(config) } }
      return SharedSubscription { task.cancel() }
    }
  }

  // SharedKeyContext.resetToDefault()
  struct RemoteEntriesKey: SharedReaderKey {
    let name: String
    let remote: RemoteEntries
    var id: String { name }

    func subscribe(context: SharedKeyContext<Config>) -> SharedSubscription {
      let task = Task {
        for await entry in remote.updates(named: name) {
          if let config = entry.config { context.update(config) } else { context.resetToDefault() }
        }
      }
      return SharedSubscription { task.cancel() }
    }
  }

  // SharedLoadContinuation's methods
  struct CachedConfigKey: SharedReaderKey {
    enum Source {
      case cache, offline, reader
    }

    let name: String
    let cache: ConfigCache
    let source: Source
    var id: String { name }

    func load(context: SharedKeyContext<Config>, continuation: SharedLoadContinuation<Config>) {
      switch source {
      case .cache:
        continuation.resume(returning: cache[name])
      case .offline:
        continuation.resume(throwing: RemoteError.offline)
      case .reader:
        continuation.resume(with: Result { try cache.read(name) })
      }
    }
  }

  // SharedLoadError
  func reportUnansweredLoad() {
    @Shared(.inMemory("profile")) var profile = Config()
    if case .notResumed(let key) = $profile.loadError as? SharedLoadError {
      print("the load of \(key) never answered")
    }
  }

  // SharedKeyLifetime
  struct SessionKey: SharedReaderKey {
    typealias Value = Session
    var id: String { "session" }
    var lifetime: SharedKeyLifetime { .permanent }
  }

  // SharedSaveSchedule
  struct DebouncedKey: SharedKey {
    typealias Value = Config
    var id: String { "debounced" }
    var saveSchedule: SharedSaveSchedule { .debounced(.seconds(1)) }

    func save(_ value: Config, context: SharedKeyContext<Config>) async throws {}
  }

  // SharedSaveSchedule.debounced(_:clock:)
  struct DebouncedOnAClockKey: SharedKey {
    let clock: any Clock<Duration>
    typealias Value = Config
    var id: String { "debounced-on-a-clock" }
    var saveSchedule: SharedSaveSchedule { .debounced(.milliseconds(250), clock: clock) }

    func save(_ value: Config, context: SharedKeyContext<Config>) async throws {}
  }
}
