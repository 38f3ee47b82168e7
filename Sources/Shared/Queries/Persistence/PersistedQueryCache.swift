public import Foundation

/// A query cache as a value: the persisted queries' values, each encoded as JSON, with when it was obtained.
///
/// ```swift
/// func moveCache(from source: QueryStore, to destination: QueryStore) {
///   let cache = source.dehydrate(.prefix(["posts"]))
///   destination.hydrate(cache)
/// }
/// ```
///
/// ``QueryStore/dehydrate(_:version:)`` takes one from a store and ``QueryStore/hydrate(_:maxAge:)`` puts one in:
/// to seed a test with cached values, or to hand a cache to another process. It is `Codable` (encode it with any
/// encoder), and ``encoded()`` gives the compact bytes a ``QueryCachePersister`` stores, which
/// ``init(encoded:)`` reads back, checking them.
public struct PersistedQueryCache: Codable, Sendable, Equatable {
  /// The app's version of the cache (see ``QueryCachePersistence/version``).
  public var version: String
  /// When the cache was taken.
  public var savedAt: Date
  /// The queries, in no particular order.
  public var entries: [Entry]

  /// A cache of `entries`.
  ///
  /// ```swift
  /// func seededCache() throws -> PersistedQueryCache {
  ///   let post = try PersistedQueryCache.Entry(key: ["posts", 1], value: "Hello", updatedAt: Date())
  ///   return PersistedQueryCache(version: "1", entries: [post])
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - version: The app's version of the cache; the empty string by default.
  ///   - savedAt: When the cache was taken; now by default.
  ///   - entries: The queries.
  public init(version: String = "", savedAt: Date = Date(), entries: [Entry] = []) {
    self.version = version
    self.savedAt = savedAt
    self.entries = entries
  }

  /// The cache held in `data`, as ``encoded()`` wrote it.
  ///
  /// ```swift
  /// func cacheFromAnotherProcess(_ data: Data) throws -> PersistedQueryCache {
  ///   try PersistedQueryCache(encoded: data)
  /// }
  /// ```
  ///
  /// The bytes are checked before anything is read from them: a cache that was truncated or damaged throws, and
  /// so does one this version of the library cannot read.
  ///
  /// - Parameter data: The bytes.
  /// - Throws: ``QueryCacheProblem/corrupt(reason:)`` or ``QueryCacheProblem/unsupportedFormat(_:)``.
  public init(encoded data: Data) throws {
    let contents = try QueryCacheFormat.decode(data)
    if let cut = contents.cut {
      throw QueryCacheProblem.corrupt(reason: "its last \(cut.droppedBytes) bytes are not whole: \(cut.reason)")
    }
    self.init(version: contents.version, savedAt: contents.savedAt, entries: contents.entries.map(\.publicEntry))
  }

  /// The cache as the compact bytes a ``QueryCachePersister`` stores: the values as they are (JSON), the keys with
  /// the types of their parts, and a checksum.
  ///
  /// ```swift
  /// func send(_ cache: PersistedQueryCache, over channel: (Data) -> Void) throws {
  ///   channel(try cache.encoded())
  /// }
  /// ```
  ///
  /// - Returns: The bytes, which ``init(encoded:)`` reads back.
  /// - Throws: ``QueryCacheProblem/unsupportedKey(_:)`` for an entry whose key has a part of a type a cache cannot
  ///   hold (see ``Entry/key``).
  public func encoded() throws -> Data {
    var stored: [QueryCacheEntry] = []
    stored.reserveCapacity(entries.count)
    for entry in entries {
      guard let entry = QueryCacheEntry(entry) else { throw QueryCacheProblem.unsupportedKey(entry.key) }
      stored.append(entry)
    }
    return QueryCacheFormat.encode(version: version, savedAt: savedAt, entries: stored)
  }
}

extension PersistedQueryCache {
  /// One persisted query: its key, its value as JSON, and when the value was obtained.
  ///
  /// ```swift
  /// func firstTitle(in cache: PersistedQueryCache) throws -> String? {
  ///   try cache.entries.first { $0.key == ["posts", 1] }?.decodedValue(as: String.self)
  /// }
  /// ```
  public struct Entry: Sendable, Equatable {
    /// The query's key. Its parts are of the types a cache can hold: `String`, `Int`, `Bool`, `Double`, `UUID`, and
    /// `nil` parts; a query whose key has a part of another type is not persisted.
    public var key: QueryKey
    /// When the value was obtained: after a restore, the query's ``QueryOptions/staleTime`` counts from here. For
    /// a query whose fetched values decide their own freshness (``Query/staleTime(_:)``), it is the time the
    /// value's freshness counts from, so that the value stays fresh as long after a restore as before. For a
    /// paginated query, it is the time of its last fetch of every page (or of its first page): a page added with
    /// ``Shared/fetchNextPage()`` does not make the pages fresh, after a restore either.
    public var updatedAt: Date
    /// Whether the query was invalidated after the value was obtained: restored, it shows the value and refetches
    /// on its first use, whatever its age.
    public var isInvalidated: Bool
    /// The value, encoded as JSON by its `Encodable` conformance.
    public var value: Data

    /// An entry of `value`, already encoded as JSON.
    ///
    /// ```swift
    /// let entry = PersistedQueryCache.Entry(key: ["greeting"], updatedAt: Date(), value: Data("\"Hi\"".utf8))
    /// ```
    ///
    /// - Parameters:
    ///   - key: The query's key.
    ///   - updatedAt: When the value was obtained.
    ///   - isInvalidated: Whether the query was invalidated since; `false` by default.
    ///   - value: The value, as JSON.
    public init(key: QueryKey, updatedAt: Date, isInvalidated: Bool = false, value: Data) {
      self.key = key
      self.updatedAt = updatedAt
      self.isInvalidated = isInvalidated
      self.value = value
    }

    /// An entry of `value`, encoded here as JSON.
    ///
    /// ```swift
    /// let post = try PersistedQueryCache.Entry(key: ["posts", 1], value: "Hello", updatedAt: Date())
    /// ```
    ///
    /// - Parameters:
    ///   - key: The query's key.
    ///   - value: The value, as the query holds it (`Post` for a query of `OperationState<Post>`).
    ///   - updatedAt: When the value was obtained.
    ///   - isInvalidated: Whether the query was invalidated since; `false` by default.
    /// - Throws: The error of the value's `encode(to:)`.
    public init<Value: Encodable>(
      key: QueryKey,
      value: Value,
      updatedAt: Date,
      isInvalidated: Bool = false
    ) throws {
      self.init(
        key: key, updatedAt: updatedAt, isInvalidated: isInvalidated, value: try JSONEncoder().encode(value))
    }

    /// The value, decoded from its JSON as `type`.
    ///
    /// ```swift
    /// let title = try entry.decodedValue(as: String.self)
    /// ```
    ///
    /// - Parameter type: The type of the query's value.
    /// - Returns: The value.
    /// - Throws: The `DecodingError` of a value that is not a `type`.
    public func decodedValue<Value: Decodable>(as type: Value.Type) throws -> Value {
      try JSONDecoder().decode(type, from: value)
    }
  }
}

extension PersistedQueryCache.Entry: Codable {
  private enum CodingKeys: String, CodingKey {
    case key, updatedAt, isInvalidated, value
  }

  /// One key part in its `Codable` form: `{"string": "posts"}`, `{"int": 42}`, and so on.
  private struct PartKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
  }

  /// Decodes an entry as ``encode(to:)`` encodes it.
  ///
  /// - Parameter decoder: The decoder.
  /// - Throws: A `DecodingError` for a missing field or a key part of an unknown type.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    var partsContainer = try container.nestedUnkeyedContainer(forKey: .key)
    var parts: [any Hashable & Sendable] = []
    while !partsContainer.isAtEnd {
      let part = try partsContainer.nestedContainer(keyedBy: PartKey.self)
      guard let name = part.allKeys.first, part.allKeys.count == 1,
        let tag = QueryKeyCoding.Tag.allCases.first(where: { $0.name == name.stringValue })
      else {
        throw DecodingError.dataCorrupted(
          DecodingError.Context(
            codingPath: part.codingPath, debugDescription: "a key part names none of the types a cache holds"))
      }
      switch tag {
      case .string: parts.append(try part.decode(String.self, forKey: name))
      case .int: parts.append(try part.decode(Int.self, forKey: name))
      case .bool: parts.append(try part.decode(Bool.self, forKey: name))
      case .double: parts.append(try part.decode(Double.self, forKey: name))
      case .uuid: parts.append(try part.decode(UUID.self, forKey: name))
      case .nilPart: parts.append(QueryKeyNil())
      }
    }
    self.init(
      key: QueryKey(parts), updatedAt: try container.decode(Date.self, forKey: .updatedAt),
      isInvalidated: try container.decodeIfPresent(Bool.self, forKey: .isInvalidated) ?? false,
      value: try container.decode(Data.self, forKey: .value))
  }

  /// Encodes the entry: each key part under the name of its type (`{"int": 42}`), the date, the flag and the value.
  ///
  /// - Parameter encoder: The encoder.
  /// - Throws: An `EncodingError` for a key part of a type a cache cannot hold.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    var partsContainer = container.nestedUnkeyedContainer(forKey: .key)
    for part in key.parts {
      guard let tag = QueryKeyCoding.tag(of: part) else {
        throw EncodingError.invalidValue(
          part,
          EncodingError.Context(
            codingPath: partsContainer.codingPath,
            debugDescription: "a key part of type \(type(of: part)), which a query cache cannot hold"))
      }
      var container = partsContainer.nestedContainer(keyedBy: PartKey.self)
      let name = PartKey(stringValue: tag.name)
      switch tag {
      case .string: try container.encode(part as! String, forKey: name)
      case .int: try container.encode(part as! Int, forKey: name)
      case .bool: try container.encode(part as! Bool, forKey: name)
      case .double: try container.encode(part as! Double, forKey: name)
      case .uuid: try container.encode(part as! UUID, forKey: name)
      case .nilPart: try container.encode(true, forKey: name)
      }
    }
    try container.encode(updatedAt, forKey: .updatedAt)
    try container.encode(isInvalidated, forKey: .isInvalidated)
    try container.encode(value, forKey: .value)
  }
}
