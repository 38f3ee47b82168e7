/// What kind of query a ``Query`` is, with what that kind brings to its value's holders.
enum QueryKind<State: OperationTrackable>: Sendable {
  /// One fetcher produces the whole value.
  case single
  /// A paginated query: `fetchPages` does one unit of page work (the next page, the previous page, or a refetch of
  /// every loaded page) from the state it reads at the start, in an attempt's context (a retry of a refetch of
  /// every page goes on from the page that failed).
  case paginated(
    fetchPages:
      @Sendable (QueryRecordMachine.Work, Shared<State>, OperationContext<State.Success>) async throws
      -> State.Success)
}
