/// The states of several queries held together by a ``QueriesHolder``, in the order of its queries, and what they
/// say together.
///
/// ```swift
/// func render(_ posts: CombinedQueries<Post>) {
///   if let error = posts.error { print("one post failed:", error) }
///   if posts.isFetching { print("refreshing…") }
///   let loaded = posts.values.compactMap { $0 }
///   print(loaded.count, "of", posts.states.count, "posts loaded")
/// }
/// ```
public struct CombinedQueries<Value: Sendable>: Sendable {
  /// Each query's state, as every holder of its key sees it, in the order of the holder's queries.
  public var states: [OperationState<Value>]

  /// The states of several queries.
  ///
  /// - Parameter states: The states, in order.
  public init(_ states: [OperationState<Value>]) {
    self.states = states
  }

  /// Each query's value, `nil` for one with none yet, in order.
  public var values: [Value?] {
    states.map(\.value)
  }

  /// The error of the first query (in order) that shows one, if any.
  public var error: (any Error)? {
    states.lazy.compactMap(\.error).first
  }

  /// Whether any query is fetching, a first load or a refetch.
  public var isFetching: Bool {
    states.contains(where: \.isFetching)
  }

  /// Whether any query is loading for the first time (``OperationStatus/pending``).
  public var isPending: Bool {
    states.contains { $0.status.isPending }
  }

  /// Whether every query has a value.
  public var hasEveryValue: Bool {
    states.allSatisfy { $0.value != nil }
  }
}
