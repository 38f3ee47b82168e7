/// What asks the store to refetch its queries, each deciding by its own option of the query (see
/// ``QueryRecordProtocol/triggered(_:now:store:)``).
enum QueryTrigger: Sendable, Equatable {
  /// A sequence given to ``QueryStore/refetchStale(on:matching:)``: held queries that are stale.
  case stale
  /// The network came back: ``QueryOptions/refetchOnReconnect``.
  case reconnect
  /// The app became active: ``QueryOptions/refetchOnFocus``.
  case focus
  /// A tick of the query's ``QueryOptions/refetchInterval``.
  case interval
}
