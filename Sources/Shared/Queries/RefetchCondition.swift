/// When an event refetches a query: a new holder (``QueryOptions/refetchOnHolder``), the network coming back
/// (``QueryOptions/refetchOnReconnect``) or the app becoming active (``QueryOptions/refetchOnFocus``).
///
/// ```swift
/// let options = QueryOptions(
///   staleTime: .seconds(30), refetchOnHolder: .always, refetchOnReconnect: .ifStale, refetchOnFocus: .never)
/// ```
///
/// A disabled query (``QueryOptions/isEnabled``) ignores every event, whatever its conditions say.
public enum RefetchCondition: Sendable, Hashable {
  /// The event fetches nothing.
  ///
  /// For a new holder: the cached value is shown whatever its age. A missing or invalidated value is still
  /// fetched, since there is nothing else to show.
  case never
  /// The event refetches the query if its value is missing, invalidated or older than its
  /// ``QueryOptions/staleTime`` (see ``QueryStore/isStale(_:)``). The default.
  case ifStale
  /// The event refetches the query whatever its value's age, joining a refetch under way.
  case always
}
