public import SharedState

/// How a query's or a mutation's key becomes a metric's `key` dimension and a span's `shared.key` attribute, with a
/// bounded number of values: its first ``depth`` parts, each part that is not a string written as `*`.
///
/// Ids in keys (`["posts", 42]`) would give a metric a series per id; so by default only the first part counts:
///
/// | key | depth 1 | depth 2 | depth 3 |
/// | --- | --- | --- | --- |
/// | `["posts"]` | `posts` | `posts` | `posts` |
/// | `["posts", 42]` | `posts` | `posts/*` | `posts/*` |
/// | `["users", 7, "posts"]` | `users` | `users/*` | `users/*/posts` |
/// | `["search", "swift"]` | `search` | `search/swift` | `search/swift` |
///
/// A string part can be an id too (the last row): choose the depth for the keys the program has, or keep only
/// ``allowedStrings``.
public struct TelemetryKeys: Sendable {
  /// How many leading parts of a key are kept; at least 1.
  public let depth: Int
  /// The string parts written as they are; `nil` (the default) for every string. Others are written as `*`.
  public let allowedStrings: Set<String>?

  /// Creates the rule.
  ///
  /// - Parameters:
  ///   - depth: How many leading parts of a key are kept; at least 1.
  ///   - allowedStrings: The string parts written as they are; `nil` for every string.
  public init(depth: Int = 1, allowedStrings: Set<String>? = nil) {
    precondition(depth >= 1, "TelemetryKeys keeps at least one part of a key, not \(depth)")
    self.depth = depth
    self.allowedStrings = allowedStrings
  }

  /// The dimension of `key`: its first ``depth`` parts joined by `/`, parts that are not kept strings as `*`.
  ///
  /// - Parameter key: A query's or a mutation's key.
  /// - Returns: Its bounded label; `(none)` for an empty key.
  public func label(_ key: QueryKey) -> String {
    let parts = key.parts
    guard let first = parts.first else { return "(none)" }
    // The common case, one part kept, makes no new string.
    if depth == 1 || parts.count == 1 { return kept(first) }
    return parts.prefix(depth).map(kept).joined(separator: "/")
  }

  /// A part as its label writes it: a kept string as it is, anything else as `*`.
  private func kept(_ part: any Hashable & Sendable) -> String {
    guard let string = part as? String, allowedStrings?.contains(string) ?? true else { return "*" }
    return string
  }
}
