/// What a store-wide hook hears about: a query's fetch, or a mutation's run.
///
/// ```swift
/// store.hooks.onError = { subject, error in
///   switch subject {
///   case .query(let key): log("fetching \(key) failed: \(error)")
///   case .mutation(let arguments): log("a mutation with \(arguments) failed: \(error)")
///   }
/// }
/// ```
public enum QueryHookSubject: Sendable {
  /// A fetch of the query with this key (a first load, a refetch, a page fetch), after its retries.
  case query(QueryKey)
  /// A run of a mutation, called with these arguments.
  case mutation(arguments: any Sendable)
}
