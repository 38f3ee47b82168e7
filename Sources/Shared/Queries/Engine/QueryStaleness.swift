/// How long each fetched value of a query stays fresh, decided by the value (see ``Query/staleTime(_:)``).
struct QueryStaleness<State: OperationTrackable>: Sendable {
  let staleTime: @Sendable (State.Success) -> Duration
}
