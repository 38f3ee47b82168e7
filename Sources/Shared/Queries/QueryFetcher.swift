/// A query's fetcher as it was written, so that one that needs neither the value nor its attempt's context is kept
/// without a closure around it: every cached query keeps its fetcher.
enum QueryFetcher<State: OperationTrackable>: Sendable {
  /// Produces the value from nothing.
  case plain(@Sendable () async throws -> State.Success)
  /// Produces the value in its attempt's context.
  case contextual(@Sendable (OperationContext<State.Success>) async throws -> State.Success)
  /// Produces the value from the value it fetches into and its attempt's context.
  case full(QueryRecord<State>.Body)

  /// The fetcher as one closure of the value and the context.
  var body: QueryRecord<State>.Body {
    switch self {
    case .plain(let fetch): { _, _ in try await fetch() }
    case .contextual(let fetch): { _, context in try await fetch(context) }
    case .full(let fetch): fetch
    }
  }
}
