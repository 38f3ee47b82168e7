/// A query's fetcher as it was written, so that one that needs neither the value nor its attempt's context is kept
/// without a closure around it: every cached query keeps its fetcher.
enum QueryFetcher<State: OperationTrackable>: Sendable {
  /// Produces the value from nothing.
  case plain(@Sendable () async throws -> State.Success)
  /// Produces the value in its attempt's context.
  case contextual(@Sendable (OperationContext<State.Success>) async throws -> State.Success)
  /// Produces the value from the value it fetches into and its attempt's context.
  case full(QueryRecord<State>.Body)

  /// Whether the fetcher can yield values: only one that gets its attempt's context can.
  var mayYield: Bool {
    if case .plain = self { return false }
    return true
  }

  /// Fetches: calls the fetcher with what it takes of the value and the attempt's context.
  func callAsFunction(
    _ shared: Shared<State>,
    _ context: OperationContext<State.Success>
  ) async throws -> State.Success {
    switch self {
    case .plain(let fetch): try await fetch()
    case .contextual(let fetch): try await fetch(context)
    case .full(let fetch): try await fetch(shared, context)
    }
  }
}
