/// The name of a query: a path of hashable parts, from general to specific.
///
/// Write a key as an array literal. Its parts are any hashable, sendable values: literals, and just as well the
/// values your code has at run time.
///
/// ```swift
/// let id = 42
/// let author = UUID()
/// let post: QueryKey = ["posts", id]                 // a String and an Int
/// let comments: QueryKey = ["posts", id, "comments"]
/// let byAuthor: QueryKey = ["posts", "by", author]    // any Hashable & Sendable value
/// assert(post.hasPrefix(["posts"]))
/// assert(comments.hasPrefix(post))
/// assert(!byAuthor.hasPrefix(post))
/// ```
///
/// Invalidating `["posts"]` reaches every key that starts with it (see ``QueryStore/invalidate(matching:)``).
///
/// Two parts are equal when they have the same type and equal values: the part `1` (an `Int`) is not the part `"1"`
/// (a `String`), nor the part `Int64(1)`. An optional part is its wrapped value, so `["posts", post.id]` with an
/// `Int?` identifier names the same query as `["posts", 42]` (as `AnyHashable` treats optionals); a `nil` part is a
/// part of its own, equal only to another `nil`.
///
/// A part's `hash(into:)` runs as the key is made and its `==` under the query store's lock: keep them plain (no
/// shared values, no locks).
public struct QueryKey: Hashable, Sendable, ExpressibleByArrayLiteral, CustomStringConvertible {
  /// The parts, from general to specific; each is a hashable, sendable value (optionals are unwrapped).
  public let parts: [any Hashable & Sendable]
  /// The parts' hash, computed once as the key is made: the registry and the store hash a key several times as a
  /// holder appears, and a key compares unequal to most others by this alone.
  private let partsHash: Int

  /// A key made of `parts`.
  ///
  /// ```swift
  /// let folders: [String] = ["posts", "drafts"]   // any array of hashable, sendable values
  /// let key = QueryKey(folders)
  /// ```
  ///
  /// - Parameter parts: The parts, from general to specific: strings, numbers, identifiers, any hashable, sendable
  ///   values.
  public init(_ parts: [any Hashable & Sendable]) {
    var parts = parts
    QueryKeyPart.unwrapOptionals(in: &parts)
    self.parts = parts
    var hasher = Hasher()
    hasher.combine(parts.count)
    // By index: a `for` loop would copy each part out of the array first.
    for index in parts.indices { parts[index].hash(into: &hasher) }
    partsHash = hasher.finalize()
  }

  /// A key written as an array literal, whose elements are literals or values: `["posts", id]`.
  ///
  /// ```swift
  /// let id = 42
  /// let key: QueryKey = ["posts", id]
  /// ```
  ///
  /// - Parameter elements: The parts, from general to specific. A string literal is a `String` part, an integer
  ///   literal an `Int` part.
  public init(arrayLiteral elements: any Hashable & Sendable...) {
    self.init(elements)
  }

  /// Whether this key starts with every part of `prefix`, in order.
  ///
  /// ```swift
  /// let key: QueryKey = ["posts", 42, "comments"]
  /// assert(key.hasPrefix(["posts", 42]))
  /// assert(!key.hasPrefix(["posts", "42"]))   // a String is not an Int
  /// ```
  ///
  /// - Parameter prefix: The shorter key.
  /// - Returns: `true` when `prefix` is this key or one of its ancestors.
  public func hasPrefix(_ prefix: QueryKey) -> Bool {
    prefix.parts.count <= parts.count && startsWithParts(of: prefix)
  }

  /// Whether both keys have the same parts, in the same order.
  ///
  /// - Parameters:
  ///   - lhs: A key.
  ///   - rhs: Another key.
  /// - Returns: `true` when every part of one equals the part of the other at the same place.
  public static func == (lhs: QueryKey, rhs: QueryKey) -> Bool {
    lhs.partsHash == rhs.partsHash && lhs.parts.count == rhs.parts.count && lhs.startsWithParts(of: rhs)
  }

  /// Hashes the parts, in order (their hash is computed once, as the key is made).
  ///
  /// - Parameter hasher: The hasher to feed.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(partsHash)
  }

  /// Whether the first parts of this key are the parts of `prefix`, which is not longer than this key.
  private func startsWithParts(of prefix: QueryKey) -> Bool {
    // Copies of one key share their parts: equal without comparing them, as arrays are.
    let isShared = parts.withUnsafeBufferPointer { parts in
      prefix.parts.withUnsafeBufferPointer { $0.baseAddress == parts.baseAddress }
    }
    if isShared { return true }
    for index in prefix.parts.indices where !QueryKeyPart.isEqual(parts[index], prefix.parts[index]) {
      return false
    }
    return true
  }

  /// The key as it reads in code: `["posts", 42]`, strings quoted.
  public var description: String {
    "[" + parts.map(QueryKeyPart.describe).joined(separator: ", ") + "]"
  }
}
