// The snippets about the persisted query cache, as the DocC article "Working offline" (WorkingOffline.md), the README
// and the documentation comments of its types show them, so that they compile.
import Foundation
import SharedState

struct WorkingOfflineSnippets {
  func log(_ message: String) {}

  // DatabaseCachePersister, in the documentation of QueryCachePersister
  actor DatabaseCachePersister: QueryCachePersister {
    var row: Data?
    func load() async throws -> Data? { row }
    func save(_ data: Data) async throws { row = data }
    func remove() async throws { row = nil }
  }

  // AppendingPersister, in the documentation of QueryCachePersister
  actor AppendingPersister: QueryCachePersister {
    var bytes: Data?
    nonisolated var appendsChanges: Bool { true }
    func load() async throws -> Data? { bytes }
    func save(_ data: Data) async throws { bytes = data }
    func append(_ data: Data) async throws { bytes?.append(data) }
    func remove() async throws { bytes = nil }
  }

  // QueryStore.persistCache(_:), and the article
  func launch(cacheURL: URL) async {
    let store = SharedRegistry.current.queries
    await store.persistCache(QueryCachePersistence(persister: .file(cacheURL), version: "2"))
    // Holders made from here on show the restored values at once.
  }

  // The article: one process per file
  func launch(cacheURL: URL, queue: MutationQueue) async {
    let restore = await SharedRegistry.current.queries.persistCache(QueryCachePersistence(persister: .file(cacheURL)))
    if case .inUse(let reason)? = restore.problem {
      print(reason)  // "… is in use by process 4242; one process at a time may use it"
    }
    do {
      try queue.restore()
    } catch {
      print(error)  // MutationQueueError.fileInUse(url:reason:) when another process uses the queue's file
    }
  }

  // QueryCachePersistence, and the article
  func persistence(cacheURL: URL) -> QueryCachePersistence {
    let persistence = QueryCachePersistence(
      persister: .file(cacheURL),
      version: "2",  // a new version of the app that changes its values drops the old cache
      maxAge: .seconds(7 * 24 * 3_600),  // values older than a week are not restored
      filter: .prefix(["posts"]))  // only the posts
    return persistence
  }

  // QueryCachePersistence.init
  func throttled(cacheURL: URL) -> QueryCachePersistence {
    let persistence = QueryCachePersistence(persister: .file(cacheURL), throttle: .seconds(2))
    return persistence
  }

  // QueryCachePersister.file(_:)
  func versioned(cacheURL: URL) -> QueryCachePersistence {
    let persistence = QueryCachePersistence(persister: .file(cacheURL), version: "2")
    return persistence
  }

  // QueryCacheProblem
  func reported(cacheURL: URL) -> QueryCachePersistence {
    let persistence = QueryCachePersistence(
      persister: .file(cacheURL),
      onProblem: { problem in
        log("query cache: \(problem)")
      })
    return persistence
  }

  // FileQueryCachePersister
  func startCaching(in folder: URL) async {
    let cacheURL = folder.appendingPathComponent("queries.cache")
    await SharedRegistry.current.queries.persistCache(QueryCachePersistence(persister: .file(cacheURL)))
  }

  // FileQueryCachePersister.init(url:)
  func filePersister(cacheURL: URL) -> FileQueryCachePersister {
    let persister = FileQueryCachePersister(url: cacheURL)
    return persister
  }

  // QueryStore.flushPersistedCache(), and the article
  func willTerminate() async {
    try? await SharedRegistry.current.queries.flushPersistedCache()
  }

  // QueryStore.removePersistedCache()
  func signedOut() async throws {
    let store = SharedRegistry.current.queries
    store.remove(.all)  // nothing of the user stays in memory
    try await store.removePersistedCache()  // nor on disk
  }

  // QueryCacheRestore, and the article
  func restore(_ persistence: QueryCachePersistence) async {
    let restore = await SharedRegistry.current.queries.persistCache(persistence)
    if let problem = restore.problem { log("query cache: \(problem)") }
    log("restored \(restore.restored) queries")
  }

  // QueryCacheRestore.init
  func nothingRestored() -> QueryCacheRestore {
    let nothing = QueryCacheRestore(restored: 0)
    return nothing
  }

  // QueryStore.dehydrate(_:version:)
  func handOver(to other: QueryStore) {
    other.hydrate(SharedRegistry.current.queries.dehydrate(.prefix(["posts"])))
  }

  // QueryStore.hydrate(_:maxAge:), PersistedQueryCache.Entry.init(key:value:updatedAt:isInvalidated:), the article
  func seedPosts() throws {
    let post = try PersistedQueryCache.Entry(key: ["posts", 1], value: "Hello", updatedAt: Date())
    SharedRegistry.current.queries.hydrate(PersistedQueryCache(entries: [post]))
  }

  // PersistedQueryCache
  func moveCache(from source: QueryStore, to destination: QueryStore) {
    let cache = source.dehydrate(.prefix(["posts"]))
    destination.hydrate(cache)
  }

  // PersistedQueryCache.init(version:savedAt:entries:)
  func seededCache() throws -> PersistedQueryCache {
    let post = try PersistedQueryCache.Entry(key: ["posts", 1], value: "Hello", updatedAt: Date())
    return PersistedQueryCache(version: "1", entries: [post])
  }

  // PersistedQueryCache.init(encoded:)
  func cacheFromAnotherProcess(_ data: Data) throws -> PersistedQueryCache {
    try PersistedQueryCache(encoded: data)
  }

  // PersistedQueryCache.encoded()
  func send(_ cache: PersistedQueryCache, over channel: (Data) -> Void) throws {
    channel(try cache.encoded())
  }

  // PersistedQueryCache.Entry
  func firstTitle(in cache: PersistedQueryCache) throws -> String? {
    try cache.entries.first { $0.key == ["posts", 1] }?.decodedValue(as: String.self)
  }

  // PersistedQueryCache.Entry.init(key:updatedAt:isInvalidated:value:) and decodedValue(as:)
  func greeting() throws -> String {
    let entry = PersistedQueryCache.Entry(key: ["greeting"], updatedAt: Date(), value: Data("\"Hi\"".utf8))
    let title = try entry.decodedValue(as: String.self)
    return title
  }
}
