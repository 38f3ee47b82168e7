/// Which queries ``QueryStore/setQueriesData(_:as:_:)`` wrote, and which it skipped because they keep another state
/// type.
///
/// ```swift
/// let report = store.setQueriesData(.prefix(["posts"]), as: OperationState<Post>.self) { _, post in
///   post.value?.title += " (edited)"
/// }
/// assert(report.mismatched.isEmpty, "not posts: \(report.mismatched)")
/// ```
public struct QueryUpdateReport: Sendable, Hashable {
  /// The queries written, in the order they were written.
  public internal(set) var updated: [QueryKey] = []
  /// The queries the filter reached that keep another state type than the one asked for: left as they were.
  public internal(set) var mismatched: [QueryKey] = []

  init() {}

  /// How many queries were written.
  ///
  /// ```swift
  /// let written = report.count
  /// ```
  public var count: Int { updated.count }
}
