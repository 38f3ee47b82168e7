/// What a store-wide hook hears about: a query's fetch, or a mutation's run, with the meta the app attached to it.
///
/// ```swift
/// store.hooks.onError = { subject, error in
///   switch subject {
///   case .query(let key, _): log("fetching \(key) failed: \(error)")
///   case .mutation(let arguments, _): log("a mutation with \(arguments) failed: \(error)")
///   }
/// }
/// ```
public enum QueryHookSubject: Sendable {
  /// A fetch of the query with this key (a first load, a refetch, a page fetch), after its retries, with the
  /// query's ``QueryOptions/meta``.
  case query(QueryKey, meta: OperationMeta)
  /// A run of a mutation, called with these arguments, with the run's ``OperationOptions/meta``.
  case mutation(arguments: any Sendable, meta: OperationMeta)

  /// The meta the app attached to the query or to the mutation's run; empty when it attached none.
  ///
  /// ```swift
  /// store.hooks.onError = { subject, error in
  ///   if subject.meta["showsErrorToast", as: Bool.self] == true { showToast(error) }
  /// }
  /// ```
  public var meta: OperationMeta {
    switch self {
    case .query(_, let meta), .mutation(_, let meta): meta
    }
  }
}
