/// What kind of query a ``Query`` is, with what that kind brings to its value's holders.
enum QueryKind<State: OperationTrackable>: Sendable {
  /// One fetcher produces the whole value.
  case single
  /// A paginated query: `fetchPages` does one unit of page work (the next page, the previous page, or a refetch of
  /// every loaded page) from the state it reads at the start, in an attempt's context (a retry of a refetch of
  /// every page goes on from the page that failed); `keepRestored` makes a state restored from a persisted cache
  /// one the query keeps (at most its `maxPages`). `keepRestored` is the program's code: call it outside every lock.
  case paginated(
    fetchPages:
      @Sendable (QueryRecordMachine.Work, Shared<State>, OperationContext<State.Success>) async throws
      -> State.Success,
    keepRestored: @Sendable (State) -> State)

  /// Whether the query is paginated.
  var isPaginated: Bool {
    if case .paginated = self { return true }
    return false
  }

  /// `state`, restored from a persisted cache, as a query of this kind keeps it: a paginated query's pages cut to
  /// its `maxPages`. Runs the program's code: call outside every lock.
  func kept(restored state: State) -> State {
    guard case .paginated(_, let keepRestored) = self else { return state }
    return keepRestored(state)
  }
}
