/// Which cached queries a store-wide call reaches: every key under a prefix, one exact key, and optionally only the
/// keys a test of your own accepts.
///
/// ```swift
/// let store = SharedRegistry.current.queries
/// store.invalidate(.prefix(["posts"]))                         // ["posts"], ["posts", 42], ["posts", 42, "comments"]
/// store.invalidate(.exactly(["posts", 42]))                    // that query only
/// store.remove(.prefix(["posts"]).satisfying { $0.parts.count == 2 })  // ["posts", 42], not its comments
/// ```
///
/// ``QueryStore/invalidate(_:refetching:)``, ``QueryStore/cancel(_:)`` and ``QueryStore/remove(_:)`` take one. The
/// key part is matched in the store's key tree, so a filter visits only the queries under its key, however many
/// others there are; a predicate then runs on each of those, outside the store's lock.
public struct QueryFilter: Sendable {
  /// The key, or the prefix of the keys, that the filter reaches.
  public var key: QueryKey
  /// Whether only ``key`` itself matches (`true`), or every key that starts with it (`false`).
  public var isExact: Bool
  /// A further test on each key that ``key`` reaches, or `nil` for none.
  ///
  /// It is your code: it runs outside the store's lock, on the caller's thread, once per candidate query. A query
  /// that is removed or made again while it runs is left alone.
  public var predicate: (@Sendable (QueryKey) -> Bool)?

  /// A filter of `key` (an exact key when `isExact`, otherwise a prefix), with an optional further test.
  ///
  /// ```swift
  /// let filter = QueryFilter(key: ["posts"], isExact: false) { key in key.parts.count == 2 }
  /// ```
  ///
  /// - Parameters:
  ///   - key: The key or key prefix.
  ///   - isExact: Whether only `key` itself matches.
  ///   - predicate: A further test on each key reached, run outside the store's lock.
  public init(key: QueryKey, isExact: Bool, predicate: (@Sendable (QueryKey) -> Bool)? = nil) {
    self.key = key
    self.isExact = isExact
    self.predicate = predicate
  }

  /// Every query whose key starts with `prefix`; `[]` reaches every query.
  ///
  /// ```swift
  /// store.invalidate(.prefix(["posts"]))
  /// ```
  ///
  /// - Parameter prefix: The key prefix; `["posts"]` reaches `["posts", 42]` and `["posts", 42, "comments"]`.
  /// - Returns: The filter.
  public static func prefix(_ prefix: QueryKey) -> Self {
    Self(key: prefix, isExact: false)
  }

  /// The query named `key` and no other.
  ///
  /// ```swift
  /// store.invalidate(.exactly(["posts", 42]))
  /// ```
  ///
  /// - Parameter key: The query's key.
  /// - Returns: The filter.
  public static func exactly(_ key: QueryKey) -> Self {
    Self(key: key, isExact: true)
  }

  /// Every query in the store.
  ///
  /// ```swift
  /// store.cancel(.all)
  /// ```
  public static var all: Self { .prefix([]) }

  /// This filter, narrowed to the keys that `predicate` accepts as well.
  ///
  /// ```swift
  /// store.invalidate(.prefix(["posts"]).satisfying { key in key.parts.last as? Int == 42 })
  /// ```
  ///
  /// The predicate is your code: it runs outside the store's lock, once per query this filter's key reaches. It
  /// replaces no test of its own: an earlier predicate must hold too.
  ///
  /// - Parameter predicate: A test on a query's key.
  /// - Returns: The narrowed filter.
  public func satisfying(_ predicate: @escaping @Sendable (QueryKey) -> Bool) -> Self {
    var narrowed = self
    if let earlier = self.predicate {
      narrowed.predicate = { key in earlier(key) && predicate(key) }
    } else {
      narrowed.predicate = predicate
    }
    return narrowed
  }
}
