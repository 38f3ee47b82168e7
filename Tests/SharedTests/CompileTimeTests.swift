// Functions that only need to compile: they pin down the key contract the storing-values article describes (its
// snippets themselves are compiled as written in Snippets/).
import Foundation
import SharedState
import Testing

private struct TourSettings: Codable, Sendable { var theme = "light" }

// MARK: The key contract

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

// MARK: The phase of an operation state

private struct PhasePost: Sendable, Equatable { var title: String }

/// An exhaustive `switch` over each state's phase, with no `default`, reads the loaded value as it is: no `!`, no
/// `?`, no `?? ""`. The annotations pin the payloads' types: the loaded value is never optional, the value from before
/// is.
private func exhaustiveSwitchesReadTheLoadedValueWithoutUnwrapping(
  post: OperationState<PhasePost>,
  feed: PaginatedState<Int, [PhasePost]>,
  rename: MutationState<String, PhasePost>
) -> [String] {
  let title: String
  switch post.phase {
  case .idle: title = "Not loaded"
  case .loading(let previous):
    let previous: PhasePost? = previous
    title = previous?.title ?? "Loading…"
  case .loaded(let loaded):
    let loaded: PhasePost = loaded
    title = loaded.title
  case .failed(let error, let previous):
    let error: HashableError = error
    let previous: PhasePost? = previous
    title = "\(previous?.title ?? "No post"): \(error.localizedDescription)"
  }

  let count: Int
  switch feed.phase {
  case .idle, .loading, .failed: count = 0
  case .loaded(let pages):
    let pages: [[PhasePost]] = pages
    count = pages.count
  }

  let saved: String
  switch rename.phase {
  case .idle, .loading, .failed: saved = ""
  case .loaded(let post): saved = post.title
  }
  return [title, "\(count)", saved]
}

/// A phase crosses tasks, and compares (and hashes) where its value does.
private func phasesAreSendableAndEquatable(_ phase: OperationPhase<PhasePost>) async -> Bool {
  let sent = await Task { phase }.value
  let hashed: Set<OperationPhase<Int>> = [.idle, .loaded(1)]
  return sent == phase && hashed.contains(.idle)
}
