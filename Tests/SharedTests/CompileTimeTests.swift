// Functions that only need to compile: they pin down the key contract the README and the storing-values article
// describe (the tours themselves are compiled as written in Snippets/).
import Foundation
import SharedState
import Testing

private struct TourSettings: Codable, Sendable { var theme = "light" }

// MARK: Keys: the README's custom key, and the key contract

private struct Profile: Codable, Sendable { var name = "" }

private protocol ProfileAPI: Sendable {
  func profile(_ userID: Int) async throws -> Profile
  func update(_ profile: Profile, for userID: Int) async throws
}

/// The README's remote key: it loads without blocking the first holder, and saves each change.
private struct RemoteProfileKey: SharedKey {
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

private func profileTour(api: any ProfileAPI) async throws {
  @Shared(RemoteProfileKey(userID: 42, api: api)) var profile = Profile()
  if $profile.isLoading { print("loading…") }  // the default until the server answers
  try await $profile.load()  // load again, and wait for it
  if let error = $profile.loadError { print("profile unavailable:", error) }
  $profile.withLock { $0.name = "Ada" }  // saved through the key
}

/// A key that only reads its store (the storing-values article's shape, answered at once).
private struct HomeFolderKey: SharedReaderKey {
  var id: String { "HOME" }

  func load(context: SharedKeyContext<String>, continuation: SharedLoadContinuation<String>) {
    continuation.resume(returning: ProcessInfo.processInfo.environment["HOME"])
  }

  func subscribe(context: SharedKeyContext<String>) -> SharedSubscription {
    SharedSubscription {}
  }
}

private func keyContractTour(settingsURL: URL) async throws {
  @SharedReader(HomeFolderKey()) var home = "/"  // a read-only key is held by a reader
  // A read-only key cannot give a writable value; this line does not compile:
  // @Shared(HomeFolderKey()) var writableHome = "/"
  // error: initializer 'init(wrappedValue:_:)' requires that 'HomeFolderKey' conform to 'SharedKey'
  if $home.isLoading || $home.loadError != nil { print("no home folder yet") }
  try await $home.load()

  @Shared(.inMemory("tab")) var tab = 0  // in-memory values are writable by definition
  @SharedReader(.inMemory("tab")) var readTab = 0  // and any key can be read
  @SharedReader(.fileStorage(settingsURL)) var readSettings = TourSettings()
  // An in-memory key stores nothing, so it has no `save`; this line does not compile:
  // try await InMemoryKey<Int>("tab").save(1, context: context)
  // error: value of type 'InMemoryKey<Int>' has no member 'save'
  $tab.withLock { $0 = 1 }

  let continuationResumes: (SharedLoadContinuation<Int>) -> Void = { continuation in
    continuation.resume(with: Result<Int?, TourError>.failure(TourError()))  // a typed error, or `any Error`
  }
  _ = (home, readTab, readSettings, continuationResumes)
}

private struct TourError: Error {}
