/// The name of a query: a path of hashable parts, from general to specific.
///
/// ```swift
/// let post: QueryKey = ["posts", 42]
/// let comments: QueryKey = ["posts", 42, "comments"]
/// post.hasPrefix(["posts"])   // true
/// ```
///
/// Invalidating `["posts"]` reaches every key that starts with it.
public struct QueryKey: Hashable, Sendable, ExpressibleByArrayLiteral, CustomStringConvertible {
  /// The parts, from general to specific.
  public let parts: [QueryKeyPart]

  /// A key made of `parts`.
  ///
  /// - Parameter parts: The parts, from general to specific.
  public init(_ parts: [QueryKeyPart]) {
    self.parts = parts
  }

  /// A key written as an array literal: `["posts", 42]`.
  ///
  /// - Parameter elements: The parts.
  public init(arrayLiteral elements: QueryKeyPart...) {
    self.parts = elements
  }

  /// Whether this key starts with every part of `prefix`, in order.
  ///
  /// - Parameter prefix: The shorter key.
  /// - Returns: `true` when `prefix` is this key or one of its ancestors.
  public func hasPrefix(_ prefix: QueryKey) -> Bool {
    parts.starts(with: prefix.parts)
  }

  /// The key as it reads in code: `["posts", 42]`.
  public var description: String {
    "[" + parts.map(\.description).joined(separator: ", ") + "]"
  }
}

/// One part of a ``QueryKey``: any hashable, sendable value, equal only to parts of the same type and value.
///
/// A part's `hash(into:)` and `==` run under the query store's lock: keep them plain (no shared values, no locks).
public struct QueryKeyPart: Hashable, Sendable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
  CustomStringConvertible
{
  /// The value.
  public let value: any Hashable & Sendable

  /// A part holding `value`.
  ///
  /// - Parameter value: Any hashable, sendable value: a string, a number, an identifier.
  public init(_ value: some Hashable & Sendable) {
    self.value = value
  }

  /// A string part.
  ///
  /// - Parameter value: The string.
  public init(stringLiteral value: String) {
    self.value = value
  }

  /// An integer part.
  ///
  /// - Parameter value: The integer.
  public init(integerLiteral value: Int) {
    self.value = value
  }

  /// Whether both hold equal values of the same type.
  public static func == (lhs: QueryKeyPart, rhs: QueryKeyPart) -> Bool {
    func isEqual<Part: Hashable>(_ part: Part, to other: any Hashable & Sendable) -> Bool {
      guard let other = other as? Part else { return false }
      return part == other
    }
    return isEqual(lhs.value, to: rhs.value)
  }

  /// Hashes the value.
  public func hash(into hasher: inout Hasher) {
    value.hash(into: &hasher)
  }

  /// The value, quoted when it is a string.
  public var description: String {
    if let string = value as? String { return "\"\(string)\"" }
    return String(describing: value)
  }
}
