import Foundation

/// One persisted query as the engine keeps it: the key (and its bytes, written as they are), when the value was
/// obtained, whether it was invalidated since, and the value encoded as JSON.
struct QueryCacheEntry: Sendable {
  let key: QueryKey
  /// The key as ``QueryKeyCoding`` writes it.
  let keyBytes: Data
  /// When the value was obtained: staleness counts from here after a restore.
  var updatedAt: Date
  /// Whether the query was invalidated after the value was obtained: it refetches on its next use.
  var isInvalidated: Bool
  /// The value, as JSON.
  let value: Data
  /// Tells this entry from one that replaced it under the same key (set by the engine).
  var serial: UInt64 = 0

  init(key: QueryKey, keyBytes: Data, updatedAt: Date, isInvalidated: Bool, value: Data) {
    self.key = key
    self.keyBytes = keyBytes
    self.updatedAt = updatedAt
    self.isInvalidated = isInvalidated
    self.value = value
  }

  /// The entry a read of the value of `key` makes: dated by the value's update, else by the entry it replaces, else
  /// by the read's `fallback`, else `now`; invalidated when the value shows no update, or `invalidated`.
  init(
    key: QueryKey,
    keyBytes: Data,
    value: Data,
    updatedAt: Date?,
    fallback: Date?,
    replacing previous: QueryCacheEntry?,
    now: Date,
    invalidated: Bool = false
  ) {
    self.init(
      key: key, keyBytes: keyBytes, updatedAt: updatedAt ?? previous?.updatedAt ?? fallback ?? now,
      isInvalidated: updatedAt == nil || invalidated, value: value)
  }

  /// The entry of a public ``PersistedQueryCache/Entry``; `nil` when its key has a part a cache cannot hold.
  init?(_ entry: PersistedQueryCache.Entry) {
    guard let bytes = QueryKeyCoding.bytes(of: entry.key) else { return nil }
    self.init(
      key: entry.key, keyBytes: Data(bytes), updatedAt: entry.updatedAt, isInvalidated: entry.isInvalidated,
      value: entry.value)
  }

  /// The public form.
  var publicEntry: PersistedQueryCache.Entry {
    PersistedQueryCache.Entry(key: key, updatedAt: updatedAt, isInvalidated: isInvalidated, value: value)
  }

  /// Whether the value was obtained more than `maxAge` before `now`.
  func isExpired(maxAge: Duration, now: Date) -> Bool {
    isObtained(before: now.addingTimeInterval(-maxAge.timeInterval))
  }

  /// Whether the value was obtained before `oldest`: older than the maximum age that `oldest` is the limit of.
  func isObtained(before oldest: Date) -> Bool {
    updatedAt < oldest
  }
}

extension Duration {
  /// The duration in seconds, with its fraction, as `Date` arithmetic takes it.
  var timeInterval: TimeInterval {
    let (seconds, attoseconds) = components
    return Double(seconds) + Double(attoseconds) / 1e18
  }
}
