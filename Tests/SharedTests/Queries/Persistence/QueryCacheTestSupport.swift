import Foundation
import TestSupport
import Testing

@testable import SharedState

/// A persister that keeps the cache in memory, counts its writes, can fail, and lets a test wait for a write; made
/// `appending`, it appends the changes of each write as a file does.
final class MemoryCachePersister: QueryCachePersister {
  private struct State {
    var data: Data?
    var saves = 0
    var removals = 0
    var appends = 0
    /// Writes that began, held at ``gate`` or not.
    var begun = 0
    var gate: Gate?
    var isFailing = false
    var loadError: (any Error)?
    var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
  }

  private let state: Lock<State>
  let appendsChanges: Bool

  init(data: Data? = nil, appending: Bool = false) {
    state = Lock(State(data: data))
    appendsChanges = appending
  }

  convenience init(_ cache: PersistedQueryCache) throws {
    self.init(data: try cache.encoded())
  }

  struct Failure: Error, CustomStringConvertible {
    var description: String { "the disk is full" }
  }

  func load() async throws -> Data? {
    try state.withLock { state in
      if let error = state.loadError { throw error }
      return state.data
    }
  }

  func save(_ data: Data) async throws {
    await begin()
    try write { state in
      state.data = data
      state.saves += 1
    }
  }

  func append(_ data: Data) async throws {
    await begin()
    try write { state in
      state.data?.append(data)
      state.appends += 1
    }
  }

  func remove() async throws {
    await begin()
    try write { state in
      state.data = nil
      state.removals += 1
    }
  }

  /// Holds the writes that begin from now on until the returned gate opens.
  func holdWrites() -> Gate {
    let gate = Gate()
    state.withLock { $0.gate = gate }
    return gate
  }

  /// How many writes began (held or not).
  var begunWrites: Int { state.withLock { $0.begun } }

  private func begin() async {
    let gate = state.withLock { state in
      state.begun += 1
      return state.gate
    }
    await gate?.wait()
  }

  private func write(_ body: (inout State) -> Void) throws {
    let resumed = try state.withLock { state -> [CheckedContinuation<Void, Never>] in
      if state.isFailing { throw Failure() }
      body(&state)
      let writes = state.saves + state.removals + state.appends
      let resumed = state.waiters.filter { $0.count <= writes }.map(\.continuation)
      state.waiters.removeAll { $0.count <= writes }
      return resumed
    }
    for waiter in resumed { waiter.resume() }
  }

  /// Waits until `count` writes (saves, appends and removals) succeeded.
  func waitForWrites(_ count: Int) async {
    await withCheckedContinuation { continuation in
      let ready = state.withLock { state -> Bool in
        if state.saves + state.removals + state.appends >= count { return true }
        state.waiters.append((count, continuation))
        return false
      }
      if ready { continuation.resume() }
    }
  }

  func setFailing(_ failing: Bool) {
    state.withLock { $0.isFailing = failing }
  }

  func setLoadError(_ error: (any Error)?) {
    state.withLock { $0.loadError = error }
  }

  var data: Data? { state.withLock { $0.data } }
  var saves: Int { state.withLock { $0.saves } }
  var removals: Int { state.withLock { $0.removals } }
  var appends: Int { state.withLock { $0.appends } }
  var writes: Int { state.withLock { $0.saves + $0.removals + $0.appends } }

  /// The stored cache, read back.
  func stored() throws -> PersistedQueryCache? {
    try data.map { try PersistedQueryCache(encoded: $0) }
  }

  /// The stored cache's value of `key`, decoded as `Value`.
  func storedValue<Value: Decodable>(_ key: QueryKey, as type: Value.Type) throws -> Value? {
    try stored()?.entries.first { $0.key == key }?.decodedValue(as: type)
  }

  /// The stored cache's keys, sorted by how they read.
  func storedKeys() throws -> [String] {
    try stored()?.entries.map(\.key.description).sorted() ?? []
  }
}

/// Collects the problems a persisted cache reports.
final class ProblemLog: Sendable {
  private let problems = Lock<[QueryCacheProblem]>([])

  var all: [QueryCacheProblem] { problems.withLock { $0 } }

  var callback: @Sendable (QueryCacheProblem) -> Void {
    { problem in self.problems.withLock { $0.append(problem) } }
  }
}

/// A post, as a value the cache stores as JSON.
struct CachedPost: Codable, Sendable, Equatable {
  var id: Int
  var title: String
}

/// A value with no `Codable` conformance: never persisted.
struct UncodablePost: Sendable, Equatable {
  var title: String
}

/// The persisted cache of the tests of the appended log: `persister`, a throttle of a second on a clock no test
/// moves (so every write is made by a flush), and `problems`.
func appendingCachePersistence(
  _ persister: MemoryCachePersister,
  problems: ProblemLog = ProblemLog()
) -> QueryCachePersistence {
  QueryCachePersistence(
    persister: persister, version: "1", throttle: .seconds(1), clock: ManualClock(), onProblem: problems.callback)
}

/// The query `["posts", id]`, whose fetch gives `title`.
func postQuery(_ id: Int, _ title: String) -> Query<OperationState<String>> {
  .query(["posts", id]) { title }
}

/// One query as a relaunch restored it: its value read as a string, and whether it is invalidated.
struct RelaunchedEntry: Equatable {
  var value: String?
  var isInvalidated: Bool
}

/// What a relaunch restores from the bytes `data` (through an appending persister): each key's entry, and the
/// restore.
func relaunchedCache(from data: Data?) async -> (entries: [String: RelaunchedEntry], restore: QueryCacheRestore) {
  let store = SharedRegistry().queries
  let restore = await store.persistCache(
    appendingCachePersistence(MemoryCachePersister(data: data, appending: true)))
  var entries: [String: RelaunchedEntry] = [:]
  for entry in store.dehydrate().entries {
    entries[entry.key.description] = RelaunchedEntry(
      value: try? entry.decodedValue(as: String.self), isInvalidated: entry.isInvalidated)
  }
  return (entries, restore)
}
