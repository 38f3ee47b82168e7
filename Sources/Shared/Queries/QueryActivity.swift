/// How many queries of a store are fetching and how many mutation runs are under way, for a global spinner or a
/// metric, or for one part of the app: the queries and mutations under a key prefix.
///
/// ```swift
/// func watchActivity(store: QueryStore) async {
///   for await activity in store.activity.values {
///     print("fetching \(activity.fetchingQueries), saving \(activity.runningMutations)")
///   }
/// }
/// ```
///
/// ``QueryStore/activity`` counts everything; ``QueryStore/activity(matching:)`` the queries whose key, and the
/// mutations whose ``MutationKey``, start with a prefix.
public struct QueryActivity: Sendable, Hashable {
  /// How many queries have a fetch under way: a first load, a background refetch, a page fetch (a query counts
  /// once: its fetches run one at a time), retries and their waits included.
  public var fetchingQueries = 0
  /// How many mutation runs (``Shared/mutate(_:_:policy:scope:invalidates:awaitsRefetches:isolation:_:onAttempt:onSuccess:onError:onSettled:)-(_,_,_,_,_,_,_,(Arguments)->Result,_,_,_,_)``)
  /// have started and not yet settled.
  public var runningMutations = 0

  /// No fetch and no mutation under way.
  ///
  /// ```swift
  /// let quiet = QueryActivity()
  /// assert(quiet.isIdle)
  /// ```
  public init() {}

  /// Whether nothing is fetching or mutating.
  ///
  /// ```swift
  /// if !store.activity.wrappedValue.isIdle { showSpinner() }
  /// ```
  public var isIdle: Bool { fetchingQueries == 0 && runningMutations == 0 }
}
