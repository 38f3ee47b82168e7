import Foundation
import SharedState
import Synchronization

/// The value each cached query holds: a post of a few fields, about 120 bytes of JSON.
struct CachedPostValue: Codable, Sendable, Equatable {
  var id: Int
  var title: String
  var body: String
  var likes: Int
  var isPublished: Bool
}

func cachedPostValue(_ id: Int) -> CachedPostValue {
  CachedPostValue(
    id: id, title: "Post number \(id)", body: "The body of post \(id), a sentence or two long.", likes: id % 97,
    isPublished: id.isMultiple(of: 2))
}

/// A persister that keeps the cache's bytes in memory and appends as the file persister does: the file's write (and
/// its syncs) is left out, so a row measures the cache's own work.
final class InMemoryCachePersister: QueryCachePersister {
  private let bytes: Mutex<Data?>

  init(_ data: Data? = nil) {
    bytes = Mutex(data)
  }

  var appendsChanges: Bool { true }
  var size: Int { bytes.withLock { $0?.count ?? 0 } }
  func load() async throws -> Data? { bytes.withLock { $0 } }
  func save(_ data: Data) async throws { bytes.withLock { $0 = data } }
  func append(_ data: Data) async throws { bytes.withLock { $0?.append(data) } }
  func remove() async throws { bytes.withLock { $0 = nil } }
}

/// A stored cache of `count` queries, `["posts", id]`, each holding a ``CachedPostValue`` obtained a minute ago; and
/// the same values as JSON, one document each, for the baseline.
struct StoredPosts {
  let cache: Data
  let values: [Data]

  init(count: Int) {
    let encoder = JSONEncoder()
    let updatedAt = Date(timeIntervalSinceNow: -60)
    let values = (0..<count).map { try! encoder.encode(cachedPostValue($0)) }
    let entries = values.enumerated().map { id, value in
      PersistedQueryCache.Entry(key: ["posts", id], updatedAt: updatedAt, value: value)
    }
    self.values = values
    cache = try! PersistedQueryCache(version: "1", entries: entries).encoded()
  }
}

/// Restores `stored` into a fresh store; with `readingEveryValue`, then reads every value once, as each query's
/// first use decodes it: nanoseconds per query. The keys are the app's, made before the clock starts.
func restorePersistedCache(_ stored: StoredPosts, readingEveryValue: Bool) async -> Double {
  let registry = SharedRegistry()
  return await SharedRegistry.$current.withValue(registry) {
    let store = registry.queries
    let persistence = QueryCachePersistence(
      persister: InMemoryCachePersister(stored.cache), version: "1", throttle: .seconds(3_600))
    let keys: [QueryKey] = (0..<stored.values.count).map { ["posts", $0] }
    let start = now()
    let restore = await store.persistCache(persistence)
    if readingEveryValue {
      for key in keys { blackHole(store.cachedValue(for: key, as: CachedPostValue.self)) }
    }
    let elapsed = now() - start
    precondition(restore.restored == stored.values.count, "every value restored")
    precondition(store.cachedValue(for: ["posts", 7], as: CachedPostValue.self) == cachedPostValue(7))
    return Double(elapsed) / Double(stored.values.count)
  }
}

/// The values of `stored` decoded with one `JSONDecoder`, one document at a time: nanoseconds per value.
func decodeStoredValues(_ stored: StoredPosts) -> Double {
  let decoder = JSONDecoder()
  let start = now()
  for value in stored.values { blackHole(try! decoder.decode(CachedPostValue.self, from: value)) }
  return Double(now() - start) / Double(stored.values.count)
}

/// The values of `stored` as one JSON array, decoded with `JSONDecoder`: nanoseconds per value.
func decodeStoredValuesAsOneArray(_ stored: StoredPosts) -> Double {
  let array = Data("[".utf8) + Data(stored.values.joined(separator: Data(",".utf8))) + Data("]".utf8)
  let start = now()
  blackHole(try! JSONDecoder().decode([CachedPostValue].self, from: array))
  return Double(now() - start) / Double(stored.values.count)
}

/// A store persisting `cached` queries, in which one query changes and the change is written (flushed at once),
/// `count` times: nanoseconds per change, from the change to the stored cache.
func persistOneChangedQuery(cached: Int, count: Int) async -> Double {
  await persistChanges(cached: cached, changes: count, over: 1).nanoseconds
}

/// A store persisting `cached` queries, in which `changes` changes spread over the first `changedKeys` queries are
/// each written (flushed at once): nanoseconds per change, from the change to the stored cache; the bytes stored at
/// the end; and, when `measuresSpace`, the bytes of the same cache written whole (else 0).
func persistChanges(
  cached: Int,
  changes: Int,
  over changedKeys: Int,
  measuresSpace: Bool = false
) async -> (nanoseconds: Double, stored: Int, whole: Int) {
  let registry = SharedRegistry()
  return await SharedRegistry.$current.withValue(registry) {
    let store = registry.queries
    let persister = InMemoryCachePersister()
    await store.persistCache(QueryCachePersistence(persister: persister, version: "1", throttle: .seconds(3_600)))
    let options = QueryOptions(staleTime: .seconds(3_600), gcTime: .seconds(3_600))
    func query(_ id: Int) -> Query<OperationState<CachedPostValue>> {
      .query(["posts", id], options: options) { cachedPostValue(id) }
    }
    for id in 0..<cached { store.setFetchedValue(cachedPostValue(id), for: query(id)) }
    try! await store.flushPersistedCache()
    let start = now()
    for step in 0..<changes {
      var value = cachedPostValue(step % changedKeys)
      value.likes = step
      store.setFetchedValue(value, for: query(step % changedKeys))
      try! await store.flushPersistedCache()
    }
    let elapsed = now() - start
    let stored = try! await persister.load()!
    precondition(try! PersistedQueryCache(encoded: stored).entries.count == cached, "every query stored")
    let whole = measuresSpace ? try! store.dehydrate(version: "1").encoded().count : 0
    return (Double(elapsed) / Double(changes), stored.count, whole)
  }
}

/// One ``CachedPostValue`` encoded with one `JSONEncoder`, `count` times: nanoseconds per value.
func encodeOneValue(_ count: Int) -> Double {
  let encoder = JSONEncoder()
  var value = cachedPostValue(0)
  let start = now()
  for step in 0..<count {
    value.likes = step
    blackHole(try! encoder.encode(value))
  }
  return Double(now() - start) / Double(count)
}
