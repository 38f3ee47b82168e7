// The snippets of the property wrappers' documentation comments (Shared, SharedReader, and the derived values they
// hand out), as they show them, so that they compile. Stand-ins for an app's types come first.
import Foundation
import SharedState

struct PropertyWrapperCommentSnippets {
  // MARK: Stand-ins for an app's types

  enum Theme: String, Codable, Sendable {
    case light, dark
  }

  struct Settings: Codable, Sendable {
    var theme = Theme.light
  }

  enum Filter: Sendable {
    case all, open
  }

  struct User: Sendable {
    var name: String
  }

  struct Profile: Sendable {
    var name = ""
    var bio = ""
  }

  struct Todo: Sendable {
    var title: String
  }

  struct Model: Sendable {
    var items: [Todo] = []
  }

  struct Flags: Sendable {
    var darkMode = false
  }

  struct Post: Sendable {
    var title: String
  }

  struct API: Sendable {
    var post: @Sendable (Int) async throws -> Post
  }

  struct EnvironmentKey: SharedReaderKey {
    let name: String
    var id: String { name }

    func load(context: SharedKeyContext<String>, continuation: SharedLoadContinuation<String>) {
      continuation.resume(returning: ProcessInfo.processInfo.environment[name])
    }
  }

  func apply(_ theme: Theme) {}
  func apply(_ settings: Settings) {}
  func show(_ value: Any) {}
  func showSpinner() {}

  // MARK: Shared

  func count() async {
    @Shared(.inMemory("counter")) var counter = 0  // the default is used only if nobody holds the key yet

    $counter.withLock { $0 += 1 }  // the only way to write
    print(counter)  // a synchronous read

    for await value in $counter.values {  // the current value, then changes
      print(value)
    }
  }

  // Shared.init(wrappedValue:_:)
  func applyTheme(settingsURL: URL) {
    @Shared(.fileStorage(settingsURL)) var settings = Settings()
    apply(settings.theme)
  }

  // Shared.init(wrappedValue:_:), as a property
  struct FilterModel {
    @Shared(.inMemory("filter")) var filter = Filter.all
  }

  // Shared.init(value:)
  func makeProgress() -> Shared<Double> {
    let progress = Shared(value: 0.0)
    Task { [progress] in progress.withLock { $0 = 0.5 } }
    return progress
  }

  func watch(settingsURL: URL) async throws {
    @Shared(.fileStorage(settingsURL)) var settings = Settings()
    // Shared.observe(_:)
    let token = $settings.observe { settings in apply(settings) }
    // Shared.loadError
    if let error = $settings.loadError { print("settings unreadable:", error) }
    // Shared.save()
    $settings.withLock { $0.theme = .dark }
    try await $settings.save()  // written, not just scheduled
    token.cancel()
  }

  // Shared.isLoading
  func render(_ profile: Shared<Profile>) {
    if profile.isLoading { showSpinner() } else { show(profile.wrappedValue) }
  }

  // Shared.load()
  func reload() async throws {
    @Shared(.inMemory("profile")) var profile = Profile()
    try await $profile.load()  // the store's value now, unless the program changed it meanwhile
  }

  // MARK: Derived values

  func rename(_ user: Shared<User>) {
    let name: Shared<String> = user.name
    name.withLock { $0 = "Grace" }  // writes the user; every holder of the user sees it
  }

  func greet(_ profile: Shared<Profile?>) {
    if let unwrapped = Shared(profile) {
      unwrapped.withLock { $0.bio = "Hello" }  // writes the optional's wrapped value
    }
  }

  // MARK: SharedReader

  struct Badge {
    @SharedReader(.inMemory("counter")) var counter = 0
    @SharedReader(EnvironmentKey(name: "HOME")) var home = "/"  // a key that only reads its store
  }

  func watch(_ shared: Shared<Model>) {
    let reader = SharedReader(shared)  // from a writable holder
    let count: SharedReader<Int> = reader.items.count  // members through any key path
    print(count.wrappedValue)
  }

  // SharedReader.init(wrappedValue:_:)
  struct Header {
    @SharedReader(EnvironmentKey(name: "USER")) var user = "nobody"
    @SharedReader(.fileStorage(URL(filePath: "/var/lib/app/settings.json"))) var settings = Settings()
  }

  // SharedReader's members
  func showCount(of todos: SharedReader<[Todo]>) {
    let count: SharedReader<Int> = todos.count  // a computed property is a member too
    print(count.wrappedValue)
  }

  // SharedReader.loadError
  func reportFlags() {
    @SharedReader(.inMemory("flags")) var flags = Flags()
    if let error = $flags.loadError { print("flags unavailable:", error) }
  }

  // SharedReader.isLoading
  func render(_ flags: SharedReader<Flags>) {
    if flags.isLoading { showSpinner() } else { show(flags.wrappedValue) }
  }

  // SharedReader.init(wrappedValue:_:) of a query
  func showTitle(api: API) {
    @SharedReader(.query(["posts", 42]) { try await api.post(42) }) var post = OperationState<Post>()
    print(post.value?.title ?? "")
  }

  // Shared.clearSaveError()
  func dismissSaveFailure(_ settings: Shared<Settings>) {
    if settings.saveError != nil { settings.clearSaveError() }
  }
}
