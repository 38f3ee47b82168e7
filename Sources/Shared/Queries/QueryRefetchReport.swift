/// The refetches an invalidation set off, and how each ended: what
/// ``QueryStore/invalidateAndAwaitRefetches(_:refetching:)`` returns once they all have.
///
/// ```swift
/// func refreshPosts() async throws {
///   let report = try await SharedRegistry.current.queries.invalidateAndAwaitRefetches(.prefix(["posts"]))
///   if !report.allSucceeded { print("not refreshed:", report.failures.keys, report.cancelled) }
/// }
/// ```
///
/// A query that did not refetch (nobody holds it and `refetching` was ``QueryRefetchScope/held``, or it was
/// ``QueryRefetchScope/none``, or its automatic fetching is off) is in none of the sets: it fetches when next needed.
public struct QueryRefetchReport: Sendable {
  /// How many queries the invalidation marked stale, refetched or not.
  public internal(set) var invalidatedCount = 0
  /// The queries whose refetch wrote a value.
  public internal(set) var succeeded: Set<QueryKey> = []
  /// The queries whose refetch failed after its retries, with the error it failed with (each shows it too).
  public internal(set) var failures: [QueryKey: any Error] = [:]
  /// The queries whose refetch was cancelled before it ended: by ``QueryStore/cancel(_:)``,
  /// ``QueryStore/reset(_:)`` or ``QueryStore/remove(_:)``.
  public internal(set) var cancelled: Set<QueryKey> = []

  init() {}

  /// The queries the invalidation refetched, however their refetch ended.
  public var refetched: Set<QueryKey> {
    succeeded.union(failures.keys).union(cancelled)
  }

  /// Whether every refetch wrote a value: none failed, none was cancelled.
  ///
  /// ```swift
  /// if report.allSucceeded { dismiss() }
  /// ```
  public var allSucceeded: Bool { failures.isEmpty && cancelled.isEmpty }
}

/// The earlier name of ``QueryRefetchReport``, which says how the refetches an invalidation set off ended.
@available(*, deprecated, renamed: "QueryRefetchReport")
public typealias QueryRefetches = QueryRefetchReport
